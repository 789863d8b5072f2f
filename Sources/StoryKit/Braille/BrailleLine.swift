/// What a braille display shows: a line of text in cells, a word marked with dots 7–8 (the way
/// Orca marks a selection), and the window of cells that fits on the display.
///
/// A pure value: the REPL builds one from the session's state (the focused element's spoken form,
/// or the sentence being read and the word being heard), and the display connection writes
/// ``shown`` and sends routing keys back through ``word(atCell:)``.
public struct BrailleLine: Sendable, Hashable {
    /// Dots 7 and 8: the mark under the word being heard.
    public static let markDots: UInt8 = 0b1100_0000

    /// The text shown (already sanitized).
    public let text: String
    /// The text in the child's braille code.
    public let braille: BrailleText
    /// The words of `text` as ranges of Unicode scalar offsets (routing keys and the mark use them).
    public let words: [Range<Int>]
    /// The word marked with dots 7–8 (an index into `words`), if any.
    public private(set) var markedWord: Int?
    /// Cells on the display.
    public let width: Int
    /// The first cell of `braille` on the display.
    public private(set) var offset = 0

    /// - Parameters:
    ///   - words: the words' scalar ranges in `text` (empty: the whole text is one thing to read).
    ///   - width: the display's cells (at least 1).
    public init(text: String, braille: BrailleText, words: [Range<Int>] = [], width: Int) {
        self.text = text
        self.braille = braille
        self.words = words
        self.width = max(1, width)
    }

    /// Text put in braille with `table`, its words found by the story's own segmenter.
    public init(text: String, table: String, words: [Range<Int>] = [], width: Int) throws(BrailleError) {
        self.init(text: text, braille: try BrailleTranslator.translate(text, table: table), words: words, width: width)
    }

    /// The cells of word `index` (an empty range when it made none).
    public func cells(ofWord index: Int) -> Range<Int> {
        guard words.indices.contains(index) else { return 0..<0 }
        let range = words[index]
        guard let first = braille.source.firstIndex(where: { range.contains($0) }),
            let last = braille.source.lastIndex(where: { range.contains($0) })
        else { return 0..<0 }
        return first..<(last + 1)
    }

    /// Marks word `index` (nil: no mark) and pans, when needed, so that it is on the display: it
    /// then starts the window, so the words after it follow under the fingers without a jump.
    public mutating func mark(word index: Int?) {
        markedWord = index.flatMap { words.indices.contains($0) ? $0 : nil }
        guard let marked = markedWord else { return }
        let cells = cells(ofWord: marked)
        guard !cells.isEmpty else { return }
        if cells.lowerBound < offset || cells.upperBound > offset + width {
            offset = cells.lowerBound
        }
    }

    /// The cells on the display now: `width` of them, blank-padded, the marked word's with dots 7–8.
    public var shown: [UInt8] {
        var window = [UInt8](repeating: 0, count: width)
        let marked = markedWord.map(cells(ofWord:)) ?? 0..<0
        for cell in offset..<min(offset + width, braille.cells.count) {
            window[cell - offset] = braille.cells[cell] | (marked.contains(cell) ? Self.markDots : 0)
        }
        return window
    }

    /// The display's window moves one display-width back; false at the start (the caller may move
    /// to the sentence before).
    public mutating func panBack() -> Bool {
        guard offset > 0 else { return false }
        offset = max(0, offset - width)
        return true
    }

    /// The window moves one display-width on; false when the end is on the display already.
    public mutating func panOn() -> Bool {
        guard offset + width < braille.cells.count else { return false }
        offset += width
        return true
    }

    /// The word under routing key `cell` (0 is the leftmost cell of the display), if any: the
    /// word the cell's character belongs to, or the word just before a space.
    public func word(atCell cell: Int) -> Int? {
        let index = offset + cell
        guard cell >= 0, cell < width, braille.source.indices.contains(index) else { return nil }
        let scalar = braille.source[index]
        if let found = words.firstIndex(where: { $0.contains(scalar) }) { return found }
        return words.lastIndex { $0.upperBound <= scalar }
    }
}

extension BrailleLine {
    /// The words of `text` as the story's segmenter finds them, as scalar ranges.
    public static func wordRanges(of text: String) -> [Range<Int>] {
        Segmenter.words(in: text, startingAt: 0).map { $0.range.start..<$0.range.end }
    }
}
