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
    /// The printed book's page numbers (`Story.printPages`) and the sentence each page's reading
    /// starts with: the one its first character is in (a sentence that runs over a page break
    /// belongs to the page it ends on), or the next one with words.
    public let printPageLabels: [String]
    public let printPageSentence: [Int]

    public init(story: Story) {
        var firstWord: [Int] = []
        var sentenceBlock: [Int] = []
        var blockPage: [Int] = []
        var blockKind: [StoryBlock.Kind] = []
        var blockText: [String] = []
        var words = 0
        var sentenceEnds: [Int] = []
        for page in story.pages {
            for block in page.blocks {
                let blockIndex = blockPage.count
                blockPage.append(page.index)
                blockKind.append(block.kind)
                blockText.append(block.text)
                for sentence in block.sentences {
                    firstWord.append(words)
                    sentenceEnds.append(sentence.words.isEmpty ? -1 : sentence.range.end)
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
        var labels: [String] = []
        var printSentence: [Int] = []
        var next = 0
        for page in story.printPages {
            // Pages come in the text's order: each search goes on from the last one.
            while next < sentenceEnds.count, sentenceEnds[next] <= page.position { next += 1 }
            guard next < sentenceEnds.count else { break }
            labels.append(page.label)
            printSentence.append(next)
        }
        printPageLabels = labels
        printPageSentence = printSentence
    }

    /// The print page sentence `sentence` is on (an index into `printPageLabels`); nil before the
    /// first one or in a story without print pages.
    public func printPage(ofSentence sentence: Int) -> Int? {
        printPageSentence.lastIndex { $0 <= sentence }
    }

    /// The print page labelled `typed`, as printed (`xii`, `12`; any case); a number also finds the
    /// page printed with leading zeros or spaces.
    public func printPage(labelled typed: String) -> Int? {
        let wanted = typed.trimmingCharacters(in: .whitespaces).lowercased()
        if let index = printPageLabels.firstIndex(where: { $0.lowercased() == wanted }) { return index }
        guard let number = Int(wanted) else { return nil }
        return printPageLabels.firstIndex { Int($0.trimmingCharacters(in: .whitespaces)) == number }
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
