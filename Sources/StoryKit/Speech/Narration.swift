/// A story as a plan for reading aloud: its sentences in order, each with its words and their
/// ranges in the story's text, ready to become utterances with one word mark per word.
///
/// Word timing uses SSML `<mark name="wK"/>` before every word rather than eSpeak's own word
/// events: those are missing or misplaced for curly quotes, apostrophes, hyphens, numbers and
/// pairs such as "of a" (SPEECH.md). A mark is a point in the sound stream: eSpeak reports the
/// sample where the next word starts, whatever the word is (measured in `NarrationAlignment`).
public struct Narration: Sendable, Hashable {
    /// One sentence to say.
    public struct Item: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case heading, paragraph, picture }
        public var kind: Kind
        /// Index of the block in the story's `blocks` (what ↑/↓ move by).
        public var blockIndex: Int
        /// Index of the page (what step mode by page waits at).
        public var pageIndex: Int
        /// The sentence's range in the story text.
        public var range: TextRange
        /// The sentence as in the story.
        public var text: String
        /// Its words, in order, as in the story.
        public var words: [Word]
        /// Text said before the sentence without a highlight (`Picture: `).
        public var prefix: String
        /// Index of the sentence in `Story.sentences` (sentences without words are not narrated,
        /// so narration indices can differ): the index the reading log stores.
        public var storySentenceIndex: Int
    }

    /// Sentences in reading order.
    public var items: [Item]
    /// The story text the ranges point into.
    public var text: String
    /// The language the story asks for.
    public var language: String
    /// Pages in the story (a story without breaks has one).
    public var pageCount: Int
    /// `text`'s scalars, kept so that cutting a sentence is not a walk through the whole story.
    private let scalars: [Unicode.Scalar]

    /// Tokens longer than this (in Unicode scalars) are split before synthesis: eSpeak NG 1.51
    /// aborts the process on some long tokens (`s's's…`, 136+ characters).
    public static let longestToken = 40
    /// Of an over-long token, at most this many scalars are spoken.
    public static let longestSpokenToken = 80

    /// What is said before a picture's description, by language ("Picture: " when unknown).
    public static func picturePrefix(forLanguage language: String) -> String {
        switch language.split(separator: "-").first.map({ $0.lowercased() }) ?? "" {
        case "fr": "Image : "
        case "de": "Bild: "
        case "es": "Imagen: "
        case "it": "Immagine: "
        case "pt": "Imagem: "
        case "nl": "Afbeelding: "
        default: "Picture: "
        }
    }

    /// "Page 2 of 5." in the story's language: said before the first sentence of a new page while
    /// listening, so the place is heard at a sentence boundary, never in the middle of a word.
    public static func pageAnnouncement(page: Int, of count: Int, language: String) -> String {
        let number = page + 1
        return switch language.split(separator: "-").first.map({ $0.lowercased() }) ?? "" {
        case "fr": "Page \(number) sur \(count)."
        case "de": "Seite \(number) von \(count)."
        case "es": "Página \(number) de \(count)."
        default: "Page \(number) of \(count)."
        }
    }

    /// - Parameters:
    ///   - picturePrefix: said before a picture's description; by default in the story's language.
    ///   - announcingPages: each new page (after the first) is announced before its first sentence
    ///     (listening); exports leave it out.
    public init(story: Story, picturePrefix: String? = nil, announcingPages: Bool = false) throws(NarrationError) {
        let picturePrefix = picturePrefix ?? Self.picturePrefix(forLanguage: story.language)
        var items: [Item] = []
        var blockIndex = 0
        var storySentenceIndex = 0
        for page in story.pages {
            var pageLead =
                announcingPages && page.index > 0
                ? Self.pageAnnouncement(page: page.index, of: story.pages.count, language: story.language) + " " : ""
            for block in page.blocks {
                defer { blockIndex += 1 }
                let kind: Item.Kind
                var prefix = ""
                switch block.kind {
                case .heading: kind = .heading
                case .paragraph: kind = .paragraph
                case .picture:
                    kind = .picture
                    prefix = picturePrefix
                }
                for (position, sentence) in block.sentences.enumerated() {
                    defer { storySentenceIndex += 1 }
                    guard !sentence.words.isEmpty else { continue }
                    items.append(
                        Item(
                            kind: kind, blockIndex: blockIndex, pageIndex: page.index, range: sentence.range,
                            text: sentence.text, words: sentence.words, prefix: pageLead + (position == 0 ? prefix : ""),
                            storySentenceIndex: storySentenceIndex))
                    pageLead = ""
                }
            }
        }
        // A word is something eSpeak NG says: letters, digits, or an emoji (said by its name, "rabbit
        // face"), as docs/story-format.md promises ("an emoji is a word").
        let speakable = items.contains { item in
            item.words.contains { $0.text.unicodeScalars.contains(where: Self.isSpoken) }
        }
        guard speakable else { throw .nothingToSpeak(title: story.title) }
        self.items = items
        self.text = story.text
        self.language = story.language
        self.pageCount = max(story.pages.count, 1)
        self.scalars = Array(story.text.unicodeScalars)
    }

    /// Whether eSpeak NG says something for this scalar: a letter, a digit, or an emoji (by name;
    /// the emoji property alone would also take `#`, `*` and digits, which are keycap bases).
    static func isSpoken(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isAlphabetic || properties.numericType != nil || (properties.isEmoji && scalar.value > 0xFF)
    }

    /// Number of words in the plan.
    public var wordCount: Int { items.reduce(0) { $0 + $1.words.count } }

    /// The utterance for sentence `index`, starting at its word `fromWord` (to resume in place).
    public func utterance(sentence index: Int, fromWord: Int = 0, settings: SpeechSettings) -> NarrationUtterance {
        let item = items[index]
        let firstWord = min(max(0, fromWord), max(0, item.words.count - 1))
        var ssml = SSMLBuilder()
        ssml.append("<speak>")
        if firstWord == 0 && !item.prefix.isEmpty { ssml.append(Self.escaped(item.prefix)) }
        var cursor = item.words.isEmpty ? item.range.start : item.words[firstWord].range.start
        var spans: [TextRange] = []
        for wordIndex in firstWord..<item.words.count {
            let word = item.words[wordIndex]
            if word.range.start > cursor { ssml.append(Self.speakable(scalars, cursor, word.range.start)) }
            ssml.append("<mark name=\"w\(wordIndex)\"/>")
            let spanStart = ssml.count
            ssml.append(Self.speakable(scalars, max(cursor, word.range.start), word.range.end))
            spans.append(TextRange(start: spanStart, end: ssml.count))
            cursor = max(cursor, word.range.end)
        }
        if item.range.end > cursor { ssml.append(Self.speakable(scalars, cursor, item.range.end)) }
        // No closing `</speak>`: eSpeak NG 1.51 (Debian 12's) takes every `</speak>` for a change
        // of voice, so it loaded the voice and its dictionary again after each sentence, 3–4 % of an
        // export's synthesis. The text's end closes the sentence as the tag did; the end pause
        // (`espeakENDPAUSE`) stays.
        return NarrationUtterance(
            sentenceIndex: index, firstWord: firstWord, wordSpans: spans,
            letterCounts: item.words[firstWord...].map { $0.text.unicodeScalars.filter(\.properties.isAlphabetic).count },
            utterance: SpeechUtterance(text: ssml.text, settings: settings, encoding: .ssml, endPause: true))
    }

    private struct SSMLBuilder {
        var text = ""
        /// Length of `text` in Unicode scalars: the unit of eSpeak's positions.
        var count = 0
        mutating func append(_ piece: String) {
            text += piece
            count += piece.unicodeScalars.count
        }
    }

    /// Scalars `from..<to` of the story, made safe for eSpeak: controls become spaces, over-long
    /// tokens are split and cut, and SSML's `& < >` are escaped.
    static func speakable(_ scalars: [Unicode.Scalar], _ from: Int, _ to: Int) -> String {
        let lower = max(0, min(from, scalars.count))
        let upper = max(lower, min(to, scalars.count))
        var out = String.UnicodeScalarView()
        var tokenLength = 0
        for scalar in scalars[lower..<upper] {
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
            if isControl || scalar.properties.isWhitespace {
                out.append(" ")
                tokenLength = 0
                continue
            }
            tokenLength += 1
            if tokenLength > longestSpokenToken { continue }
            if tokenLength > 1 && tokenLength % longestToken == 1 { out.append(" ") }
            out.append(scalar)
        }
        return escaped(String(out))
    }

    /// `text` made safe to put inside SSML (the same rules as the story's own text).
    public static func ssmlText(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        return speakable(scalars, 0, scalars.count)
    }

    static func escaped(_ text: String) -> String { XMLText.escaped(text) }

    /// The sentence index where block `blockIndex` starts, or nil.
    public func firstSentence(ofBlock blockIndex: Int) -> Int? {
        items.firstIndex { $0.blockIndex >= blockIndex }
    }

    /// The narration index for `Story.sentences[index]` (a stored reading position), or the next
    /// narrated sentence after it.
    public func item(forStorySentence index: Int) -> Int? {
        items.firstIndex { $0.storySentenceIndex >= index }
    }

    /// The sentence containing the story text offset `offset`, or the next one after it.
    public func sentence(atTextOffset offset: Int) -> Int? {
        items.firstIndex { $0.range.end > offset }
    }
}

/// An utterance made from a narration sentence, with its word marks.
public struct NarrationUtterance: Sendable, Hashable {
    public var sentenceIndex: Int
    /// The first word said (0 unless resuming inside the sentence).
    public var firstWord: Int
    /// Where each word from `firstWord` on stands in the utterance text (Unicode scalars).
    public var wordSpans: [TextRange]
    /// Letters in each word from `firstWord` on (for timing words eSpeak joins to the next).
    public var letterCounts: [Int]
    public var utterance: SpeechUtterance

    /// The word (index within the sentence) whose text contains utterance offset `offset`.
    public func wordIndex(atUtteranceOffset offset: Int) -> Int? {
        var low = 0
        var high = wordSpans.count
        while low < high {
            let middle = (low + high) / 2
            if wordSpans[middle].end <= offset { low = middle + 1 } else { high = middle }
        }
        guard low < wordSpans.count, wordSpans[low].contains(offset) else { return nil }
        return firstWord + low
    }

    /// The word (index within the sentence) that a mark named `name` stands before.
    public static func wordIndex(forMark name: String) -> Int? {
        guard name.hasPrefix("w") else { return nil }
        return Int(name.dropFirst())
    }
}

/// Why a story cannot be narrated.
public enum NarrationError: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    case nothingToSpeak(title: String)

    public var description: String { localized(.english) }

    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .nothingToSpeak(let title): messages.tr("'{title}' has nothing to read aloud: it has no words", ["title": title])
        }
    }
}
