import CLouis

/// Text in braille cells, with where each cell came from.
public struct BrailleText: Sendable, Hashable {
    /// The cells, one byte each: bit 0 is dot 1 … bit 7 is dot 8 (BrlAPI's and Unicode's order).
    public var cells: [UInt8]
    /// For each cell, the offset (in Unicode scalars) of the character of `text` it was made from.
    public var source: [Int]

    public init(cells: [UInt8], source: [Int]) {
        self.cells = cells
        self.source = source
    }

    /// The cells as Unicode braille patterns (U+2800…), as `lou_translate` prints them with `unicode.dis`.
    public var unicode: String {
        String(String.UnicodeScalarView(cells.compactMap { Unicode.Scalar(0x2800 + UInt32($0)) }))
    }
}

/// Why text could not be put in braille.
public struct BrailleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var table: String
    public var description: String { "liblouis could not translate with the table \(table): is liblouis-data installed?" }
}

/// liblouis, which turns text into the cells of a braille code, with its position arrays.
///
/// liblouis keeps tables and buffers in globals and is not thread-safe: every call runs on its
/// owner's thread (`library`, the project's idiom for a C library), tables compiled there too. A
/// translation of a sentence takes well under a millisecond once its table is loaded (the first
/// use of a table compiles it, some tens of milliseconds: the shell does that off the loop,
/// `canLoad`).
public enum BrailleTranslator {
    /// liblouis's owner. Its "handle" is the library's global state; kept for the run.
    static let library = HandleOwner<Void>(name: "storyreader.liblouis", open: {})

    /// `text` in braille with the table list `table` (see ``BrailleCode/table(forLanguage:)``).
    public static func translate(_ text: String, table: String) throws(BrailleError) -> BrailleText {
        let input = text.unicodeScalars.map { widechar($0.value) }
        if input.isEmpty { return BrailleText(cells: [], source: []) }
        let outcome: Result<BrailleText, BrailleError>
        do {
            outcome = try library.withHandle { _ in
                Result { () throws(BrailleError) in try translateHere(input, table: table) }
            }
        } catch {
            // Only `HandleOwner.Closed`, which this owner never is (it is kept for the run).
            outcome = .failure(BrailleError(table: table))
        }
        return try outcome.get()
    }

    /// The translation itself, on liblouis's thread.
    private static func translateHere(_ input: [widechar], table: String) throws(BrailleError) -> BrailleText {
        // Contractions never make text longer than this; computer braille is one cell a character.
        var capacity = input.count * 4 + 16
        while true {
            var inputLength = Int32(input.count)
            var outputLength = Int32(capacity)
            var output = [widechar](repeating: 0, count: capacity)
            var inputPosition = [Int32](repeating: 0, count: capacity)
            let status = input.withUnsafeBufferPointer { inBuffer in
                lou_translate(
                    table, inBuffer.baseAddress, &inputLength, &output, &outputLength, nil, nil,
                    nil, &inputPosition, nil, Int32(dotsIO.rawValue | ucBrl.rawValue))
            }
            guard status != 0 else { throw BrailleError(table: table) }
            // Output cut short: translate again with room to spare.
            if inputLength < Int32(input.count), capacity < input.count * 16 {
                capacity *= 2
                continue
            }
            let count = Int(outputLength)
            let cells = output[0..<count].map { UInt8(truncatingIfNeeded: $0 & 0xFF) }
            let source = inputPosition[0..<count].map { min(max(Int($0), 0), input.count - 1) }
            return BrailleText(cells: cells, source: source)
        }
    }

    /// Whether the table list loads (liblouis-data installed, a known table); compiles it on
    /// liblouis's thread, so that later translations with it are quick.
    public static func canLoad(_ table: String) -> Bool {
        (try? library.withHandle { _ in lou_getTable(table) != nil }) ?? false
    }
}
