/// A sentence of a block, with its words.
public struct Sentence: Sendable, Hashable {
    public var text: String
    /// Where the sentence stands in `Story.text`.
    public var range: TextRange
    public var words: [Word]

    public init(text: String, range: TextRange, words: [Word]) {
        self.text = text
        self.range = range
        self.words = words
    }
}

/// A word as a reader sees it: `Pip’s`, `don’t`, `star-shaped`, `3,000`, `café`, `🌻`.
/// Surrounding punctuation and quotes are not part of it.
public struct Word: Sendable, Hashable {
    public var text: String
    /// Where the word stands in `Story.text`.
    public var range: TextRange

    public init(text: String, range: TextRange) {
        self.text = text
        self.range = range
    }
}
