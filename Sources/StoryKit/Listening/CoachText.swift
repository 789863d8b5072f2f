/// A word of the text the child reads aloud, as the coach follows it.
public struct CoachWord: Sendable, Hashable {
    /// The caller's sentence (the narration's item index) and the word's index in it.
    public var sentence: Int
    public var index: Int
    /// As written in the story.
    public var text: String
    /// The decoder's word for it, or nil: a word the dictionary lacks (a name, a sound word, a
    /// number) is left out of the grammar and never judged: neither heard, skipped nor helped.
    public var spoken: String?

    public init(sentence: Int, index: Int, text: String, spoken: String?) {
        self.sentence = sentence
        self.index = index
        self.text = text
        self.spoken = spoken
    }
}

/// One sentence to follow: the caller's id for it and its words as written.
public struct CoachSentence: Sendable, Hashable {
    public var id: Int
    public var words: [String]

    public init(id: Int, words: [String]) {
        self.id = id
        self.words = words
    }
}

/// Written words to the decoder's dictionary words.
enum CoachVocabulary {
    /// Abbreviations read as a word (the book's "Mr." is said "mister").
    static let abbreviations = ["mr": "mister", "mrs": "missus", "dr": "doctor", "ms": "miz"]

    /// The dictionary form of a written word: lower case, curly apostrophes straightened, the
    /// punctuation around it dropped; nil when nothing of a word is left or it holds characters a
    /// grammar token cannot (digits, inner dots).
    static func key(_ written: String) -> String? {
        var word = written.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
        let keep: (Character) -> Bool = { $0.isLetter || $0 == "'" || $0 == "-" }
        while let first = word.first, !first.isLetter { word.removeFirst() }
        while let last = word.last, !last.isLetter { word.removeLast() }
        guard !word.isEmpty, word.allSatisfy(keep), word.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        return abbreviations[word] ?? word
    }

    /// The words of `sentences` with their dictionary words, adding to the decoder the
    /// hyphenated words whose parts it knows ("cold-hearted" = "cold" + "hearted").
    static func words(_ sentences: [CoachSentence], decoder: SphinxDecoder) -> [CoachWord] {
        var known: [String: Bool] = [:]
        func spoken(_ written: String) -> String? {
            guard let key = key(written) else { return nil }
            if let cached = known[key] { return cached ? key : nil }
            var found = decoder.phones(key) != nil
            if !found, key.contains("-") {
                let parts = key.split(separator: "-").map { decoder.phones(String($0)) }
                if !parts.isEmpty, parts.allSatisfy({ $0 != nil }) {
                    found = decoder.addWord(key, phones: parts.map { $0! }.joined(separator: " "))
                }
            }
            known[key] = found
            return found ? key : nil
        }
        return sentences.flatMap { sentence in
            sentence.words.enumerated().map { index, text in
                CoachWord(sentence: sentence.id, index: index, text: text, spoken: spoken(text))
            }
        }
    }
}

extension CoachTally {
    /// "You read 42 words by yourself, and I helped with 3." in `messages`' language; without help,
    /// "all by yourself" (a child should not hear "I helped with 0"); nothing heard or helped: said
    /// plainly, without a count of nothing.
    public func spoken(_ messages: MessageCatalog) -> String {
        if read == 0, helped == 0 { return messages.tr("I did not hear any words this time.") }
        if helped == 0 { return messages.trn("You read {count} word all by yourself.", "You read {count} words all by yourself.", read) }
        return messages.trn(
            "You read {count} word by yourself, and I helped with {helped}.", "You read {count} words by yourself, and I helped with {helped}.",
            read, ["helped": String(helped)])
    }
}
