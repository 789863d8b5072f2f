/// One grapheme placed on a wrapped line.
public struct PlacedGrapheme: Sendable, Hashable {
    public var character: Character
    /// Where it stands in the wrapped text, in Unicode scalars.
    public var scalarRange: TextRange
    /// Its first column on the line, and how many columns it takes.
    public var column: Int
    public var width: Int
}

/// A line of wrapped text, and where each of its graphemes came from.
public struct WrappedLine: Sendable, Hashable {
    public var graphemes: [PlacedGrapheme]

    public var text: String { String(graphemes.map(\.character)) }
    /// Columns used.
    public var width: Int { graphemes.last.map { $0.column + $0.width } ?? 0 }
    /// The scalars this line shows (empty for an empty line).
    public var scalarRange: TextRange? {
        guard let first = graphemes.first, let last = graphemes.last else { return nil }
        return TextRange(start: first.scalarRange.start, end: last.scalarRange.end)
    }

    /// The column where the grapheme holding scalar `offset` starts, if this line shows it.
    public func column(ofScalar offset: Int) -> Int? {
        graphemes.first { $0.scalarRange.contains(offset) }?.column
    }
}

/// Wraps text to a width in terminal columns, measured with `DisplayWidth.of` over graphemes.
///
/// - Lines break at spaces; a line feed always breaks. The spaces a break falls on are not drawn;
///   nothing else is ever dropped.
/// - A word wider than the line is broken between graphemes (never inside one).
/// - Every grapheme keeps its scalar range, so a highlighted word (a scalar range) can be found on
///   the wrapped lines and kept on screen.
public enum TextWrap {
    /// Wraps `text` into lines no wider than `width` columns (at least 2, the widest grapheme).
    /// - Parameters:
    ///   - measure: columns of one grapheme; `DisplayWidth.of` unless the text is drawn larger
    ///     (double-size lines, block letters).
    public static func wrap(_ text: String, width requestedWidth: Int, measure: (Character) -> Int = DisplayWidth.of) -> [WrappedLine] {
        wrap(text, width: requestedWidth, measureAt: { character, _ in measure(character) })
    }

    /// Wraps `text`, measuring each grapheme where it stands (`range`: its scalars in `text`):
    /// for reading aids that draw more than the grapheme (a syllable dot after it, a wider gap).
    public static func wrap(_ text: String, width requestedWidth: Int, measureAt: (Character, TextRange) -> Int) -> [WrappedLine] {
        let width = max(2, requestedWidth)
        // Graphemes with their scalar ranges and widths.
        var items: [(character: Character, range: TextRange, width: Int)] = []
        var offset = 0
        for character in text {
            let count = character.unicodeScalars.count
            let range = TextRange(start: offset, end: offset + count)
            items.append((character, range, measureAt(character, range)))
            offset += count
        }

        var lines: [WrappedLine] = []
        var current: [PlacedGrapheme] = []
        var column = 0
        var pendingSpaces: [(character: Character, range: TextRange, width: Int)] = []

        func finishLine() {
            lines.append(WrappedLine(graphemes: current))
            current = []
            column = 0
            pendingSpaces = []
        }
        func place(_ item: (character: Character, range: TextRange, width: Int)) {
            current.append(PlacedGrapheme(character: item.character, scalarRange: item.range, column: column, width: item.width))
            column += item.width
        }

        var index = 0
        while index < items.count {
            let item = items[index]
            if item.character == "\n" || item.character == "\r\n" {
                finishLine()
                index += 1
                continue
            }
            if item.character.isWhitespace {
                if !current.isEmpty { pendingSpaces.append(item) }
                index += 1
                continue
            }
            // A word: the run of non-space graphemes from here.
            var end = index
            var wordWidth = 0
            while end < items.count, !items[end].character.isWhitespace {
                wordWidth += items[end].width
                end += 1
            }
            let spacesWidth = pendingSpaces.reduce(0) { $0 + $1.width }
            if !current.isEmpty, column + spacesWidth + wordWidth > width {
                finishLine()
            }
            if !current.isEmpty {
                for space in pendingSpaces { place(space) }
            }
            pendingSpaces = []
            // Place the word, breaking it where it does not fit.
            for wordIndex in index..<end {
                let grapheme = items[wordIndex]
                if column + grapheme.width > width, !current.isEmpty { finishLine() }
                place(grapheme)
            }
            index = end
        }
        if !current.isEmpty || lines.isEmpty || text.hasSuffix("\n") { lines.append(WrappedLine(graphemes: current)) }
        return lines
    }

    /// The line and column showing scalar `offset`, if any line does.
    public static func locate(scalar offset: Int, in lines: [WrappedLine]) -> (line: Int, column: Int)? {
        for (index, line) in lines.enumerated() {
            if let column = line.column(ofScalar: offset) { return (index, column) }
        }
        return nil
    }

    /// The lines that show any scalar of `range`.
    public static func lines(showing range: TextRange, in lines: [WrappedLine]) -> [Int] {
        lines.indices.filter { index in
            lines[index].graphemes.contains { $0.scalarRange.start < range.end && $0.scalarRange.end > range.start }
        }
    }
}
