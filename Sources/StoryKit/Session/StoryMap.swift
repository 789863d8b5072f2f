/// Where things are in a story, counted once when reading starts, so that every narration event
/// and every move (sentence, paragraph, page, beginning, end) is a lookup rather than a walk
/// through the whole story (a long story has thousands of sentences and an event every word).
public struct StoryMap: Sendable, Hashable {
    /// The first word (an index into `Story.words`) of each sentence, and the word count at the end.
    public let sentenceFirstWord: [Int]
    /// The block (an index into `Story.blocks`) of each sentence.
    public let sentenceBlock: [Int]
    /// The page of each block.
    public let blockPage: [Int]
    /// Each block's kind and text (headings name chapters).
    public let blockKind: [StoryBlock.Kind]
    public let blockText: [String]
    public let pageCount: Int

    public init(story: Story) {
        var firstWord: [Int] = []
        var sentenceBlock: [Int] = []
        var blockPage: [Int] = []
        var blockKind: [StoryBlock.Kind] = []
        var blockText: [String] = []
        var words = 0
        for page in story.pages {
            for block in page.blocks {
                let blockIndex = blockPage.count
                blockPage.append(page.index)
                blockKind.append(block.kind)
                blockText.append(block.text)
                for sentence in block.sentences {
                    firstWord.append(words)
                    sentenceBlock.append(blockIndex)
                    words += sentence.words.count
                }
            }
        }
        firstWord.append(words)
        sentenceFirstWord = firstWord
        self.sentenceBlock = sentenceBlock
        self.blockPage = blockPage
        self.blockKind = blockKind
        self.blockText = blockText
        pageCount = max(story.pages.count, 1)
    }

    public var sentenceCount: Int { sentenceFirstWord.count - 1 }
    public var wordCount: Int { sentenceFirstWord.last ?? 0 }

    /// The sentence holding word `word` (the last one past the end).
    public func sentence(containingWord word: Int) -> Int {
        guard sentenceCount > 0 else { return 0 }
        // The last sentence whose first word is at or before `word` and that has words.
        var low = 0
        var high = sentenceCount
        while low < high {
            let middle = (low + high) / 2
            if sentenceFirstWord[middle + 1] <= word { low = middle + 1 } else { high = middle }
        }
        return min(low, sentenceCount - 1)
    }

    public func firstWord(ofSentence sentence: Int) -> Int {
        sentenceFirstWord[min(max(sentence, 0), sentenceCount)]
    }

    public func hasWords(_ sentence: Int) -> Bool {
        sentence >= 0 && sentence < sentenceCount && sentenceFirstWord[sentence + 1] > sentenceFirstWord[sentence]
    }

    public func page(ofSentence sentence: Int) -> Int {
        guard sentenceCount > 0 else { return 0 }
        return blockPage[sentenceBlock[min(max(sentence, 0), sentenceCount - 1)]]
    }

    public func page(ofWord word: Int) -> Int { page(ofSentence: sentence(containingWord: word)) }

    /// Sentences with words: the places a sentence move can land on.
    public var spokenSentences: [Int] { (0..<sentenceCount).filter(hasWords) }

    /// The first spoken sentence of each paragraph.
    public var paragraphStarts: [Int] {
        starts { blockKind[sentenceBlock[$0]] == .paragraph ? sentenceBlock[$0] : nil }
    }

    /// The first spoken sentence of each page.
    public var pageStarts: [Int] { starts { blockPage[sentenceBlock[$0]] } }

    private func starts(_ group: (Int) -> Int?) -> [Int] {
        var result: [Int] = []
        var last: Int?
        for sentence in spokenSentences {
            guard let key = group(sentence) else { continue }
            if key != last { result.append(sentence) }
            last = key
        }
        return result
    }

    /// Which paragraph (1-based, counting paragraphs only) sentence `sentence` is in, and how many.
    public func paragraph(ofSentence sentence: Int) -> (number: Int, of: Int)? {
        let block = sentenceBlock[min(max(sentence, 0), max(sentenceCount - 1, 0))]
        guard sentenceCount > 0, blockKind[block] == .paragraph else { return nil }
        let paragraphs = blockKind.indices.filter { blockKind[$0] == .paragraph }
        guard let index = paragraphs.firstIndex(of: block) else { return nil }
        return (index + 1, paragraphs.count)
    }

    /// The heading (chapter) sentence `sentence` is under, if any.
    public func chapter(ofSentence sentence: Int) -> String? {
        guard sentenceCount > 0 else { return nil }
        let block = sentenceBlock[min(max(sentence, 0), sentenceCount - 1)]
        for index in stride(from: block, through: 0, by: -1) {
            if case .heading = blockKind[index] { return blockText[index] }
        }
        return nil
    }

    /// Whether sentence `sentence` is the first spoken one of a page after the first.
    public func startsPage(_ sentence: Int) -> Bool {
        let page = self.page(ofSentence: sentence)
        guard page > 0, hasWords(sentence) else { return false }
        var previous = sentence - 1
        while previous >= 0, !hasWords(previous) { previous -= 1 }
        return previous < 0 || self.page(ofSentence: previous) != page
    }
}
