import Foundation

/// The built-in block-letter fonts, drawn with `█ ▀ ▄` (two pixels a terminal row, as half blocks),
/// for terminals that cannot scale text.
///
/// - `compact`: three rows, six pixels high: capitals use pixel rows 1–5 with an accent on row 0;
///   small letters have an x-height of three pixels, ascenders from row 1 and accents on row 1.
///   For the 2× sizes, and for 3× on a narrow terminal.
/// - `tall`: four rows, eight pixels high, five pixels wide (a 5×7 cell with a descender row, like
///   an LCD's font): capitals use pixel rows 1–6 with an accent on row 0; small letters have an
///   x-height of four pixels (rows 3–6), ascenders from row 1, accents on row 1 and real
///   descenders on row 7. For 3× (accessibility4–5): a child who needs the largest text gets letters
///   whose small `a`, `e` and `s` are told apart by more than one pixel.
///
/// Accented letters are composed from a base letter and its combining marks (acute, grave,
/// circumflex, tilde, diaeresis, ring, cedilla), so `é`, `Ó`, `ñ`, `à`, `ü` and `ç` all come out.
/// Any other character is drawn framed (`▛▀▜ / ▌x▐ / ▙▄▟`), so nothing is ever silently dropped.
/// Block letters are read as junk by screen readers: the renderer always keeps the plain text
/// beside them.
public struct BlockFont: Sendable {
    /// Terminal rows of a rendered line.
    public let height: Int
    /// Blank columns between two glyphs.
    public let spacing = 1
    /// Pixel row of a capital's accent, and of a small letter's.
    private let capitalAccentRow: Int
    private let smallAccentRow: Int
    /// Where a cedilla hangs: a free pixel row below the letter, or nil to lift the letter a row.
    private let cedillaRow: Int?
    private let grids: [Character: [[Bool]]]

    /// Three rows: the 2× sizes, and 3× where the tall font would not fit.
    public static let compact = BlockFont(height: 3, capitalAccentRow: 0, smallAccentRow: 1, cedillaRow: nil, table: compactTable)
    /// Four rows: the 3× sizes (accessibility4–5).
    public static let tall = BlockFont(height: 4, capitalAccentRow: 0, smallAccentRow: 1, cedillaRow: 7, table: tallTable)

    /// The narrowest reading column, in terminal columns, the tall font is used in: eight of its
    /// letters (six columns each with the gap). Narrower, a word such as "butterfly" would be cut
    /// in the middle, so the compact font is used instead.
    public static let tallMinimumColumns = 48

    /// The font for text drawn at `scale` (2 or 3) in a reading column `columns` wide.
    public static func forScale(_ scale: Int, columns: Int) -> BlockFont {
        scale >= 3 && columns >= tallMinimumColumns ? .tall : .compact
    }

    private init(height: Int, capitalAccentRow: Int, smallAccentRow: Int, cedillaRow: Int?, table: [Character: [String]]) {
        self.height = height
        self.capitalAccentRow = capitalAccentRow
        self.smallAccentRow = smallAccentRow
        self.cedillaRow = cedillaRow
        // The table gives pixel rows from 1; row 0 is for capitals' accents.
        self.grids = table.mapValues { rows in
            let width = rows[0].count
            let grid = [String(repeating: ".", count: width)] + rows
            return grid.map { $0.map { $0 == "#" } }
        }
    }

    /// Every character with a drawn glyph (not the framed fallback), in a stable order: the
    /// table's characters and each letter of Spanish, French and German with its accent.
    public var repertoire: [Character] {
        let accented: [Character] = Array("áéíóúñüÁÉÍÓÚÑÜàâçèêëîïôùûÿœÀÂÇÈÊËÎÏÔÙÛäöÄÖ")
        return (grids.keys.sorted() + accented.filter { grids[$0] == nil && covers($0) })
    }

    /// Whether `character` has a real glyph (not the framed fallback).
    public func covers(_ character: Character) -> Bool { pixels(for: character) != nil }

    /// The glyph of one character: `height` rows of equal display width (empty for a zero-width one).
    public func glyph(_ character: Character) -> [String] {
        if let grid = pixels(for: character) { return encode(grid) }
        let width = DisplayWidth.of(character)
        if width <= 0 { return Array(repeating: "", count: height) }
        let bar = String(repeating: "▀", count: width)
        let base = String(repeating: "▄", count: width)
        let middle = "▌" + String(character) + "▐"
        let blank = "▌" + String(repeating: " ", count: width) + "▐"
        return ["▛" + bar + "▜", middle] + Array(repeating: blank, count: height - 3) + ["▙" + base + "▟"]
    }

    /// Columns the glyph of `character` takes, without spacing.
    public func glyphWidth(_ character: Character) -> Int {
        if let grid = pixels(for: character) { return grid.first?.count ?? 0 }
        let width = DisplayWidth.of(character)
        return width <= 0 ? 0 : width + 2
    }

    /// Columns `text` takes when rendered.
    public func width(of text: String) -> Int {
        let widths = text.map(glyphWidth).filter { $0 > 0 }
        return widths.reduce(0, +) + max(0, widths.count - 1) * spacing
    }

    /// `height` rows drawing `text` in block letters (no line breaks: wrap first).
    public func render(_ text: String) -> [String] {
        var rows = Array(repeating: "", count: height)
        var first = true
        for character in text {
            let glyph = self.glyph(character)
            if glyph.allSatisfy(\.isEmpty) { continue }
            for row in 0..<height {
                if !first { rows[row] += String(repeating: " ", count: spacing) }
                rows[row] += glyph[row]
            }
            first = false
        }
        return rows
    }

    // MARK: Glyph data

    /// Six pixel rows of equal width, or nil when the font has no glyph.
    func pixels(for character: Character) -> [[Bool]]? {
        if character == " " { return Array(repeating: [false, false], count: height * 2) }
        if let grid = basePixels(character) { return grid }
        // Compose: base letter + combining marks.
        let decomposed = Array(String(character).decomposedStringWithCanonicalMapping.unicodeScalars)
        guard decomposed.count >= 2, let base = basePixels(Character(decomposed[0])) else { return nil }
        let isCapital = decomposed[0].properties.isUppercase
        var grid = base
        for mark in decomposed.dropFirst() {
            guard let accent = Self.accents[mark.value] else { return nil }
            let width = grid[0].count
            if mark.value == 0x0327 {
                if let cedillaRow {
                    // A free row below the letter (a letter that descends has no room for it).
                    if grid[cedillaRow].contains(true) { return nil }
                    grid[cedillaRow] = pattern(accent, width: width)
                    continue
                }
                // Lift the letter a row and hang the mark below.
                if grid[1].contains(true) && !isCapital { return nil }
                grid.remove(at: isCapital ? 0 : 1)
                grid.append(pattern(accent, width: width))
                continue
            }
            if width == 1 {
                // A one-pixel letter (the compact i) has no room to show which way an accent
                // leans: widen it, the letter staying under the mark's foot.
                let (left, right) =
                    switch accent {
                    case .acute: (0, 1)
                    case .grave: (1, 0)
                    default: (1, 1)
                    }
                grid = grid.map { Array(repeating: false, count: left) + $0 + Array(repeating: false, count: right) }
                var row = Array(repeating: false, count: left + 1 + right)
                switch accent {
                case .acute: row[1] = true
                case .grave: row[0] = true
                default:
                    row[0] = true
                    row[2] = true
                }
                grid[isCapital ? capitalAccentRow : smallAccentRow] = row
                continue
            }
            grid[isCapital ? capitalAccentRow : smallAccentRow] = pattern(accent, width: width)
        }
        return grid
    }

    /// Where a one-row accent's pixels go, for a glyph `width` wide.
    private func pattern(_ accent: Accent, width: Int) -> [Bool] {
        var row = Array(repeating: false, count: width)
        let middle = width / 2
        switch accent {
        case .acute: row[min(width - 1, middle + (width > 2 ? 1 : 0))] = true
        case .grave: row[max(0, middle - (width > 2 ? 1 : 0))] = true
        case .circumflex, .ring, .cedilla:
            row[middle] = true
            if accent == .circumflex, width >= 3 {
                row[middle - 1] = true
                row[middle + 1] = true
                row[middle] = false
            }
        case .tilde: for column in 0..<width { row[column] = true }
        case .diaeresis:
            if width >= 3 {
                row[0] = true
                row[width - 1] = true
            } else {
                row[0] = true
            }
        }
        return row
    }

    private enum Accent { case acute, grave, circumflex, tilde, diaeresis, ring, cedilla }
    private static let accents: [UInt32: Accent] = [
        0x0301: .acute, 0x0300: .grave, 0x0302: .circumflex, 0x0303: .tilde, 0x0308: .diaeresis,
        0x030A: .ring, 0x0327: .cedilla,
    ]

    private func basePixels(_ character: Character) -> [[Bool]]? { grids[character] }

    private func encode(_ grid: [[Bool]]) -> [String] {
        (0..<height).map { row in
            let top = grid[row * 2]
            let bottom = grid[row * 2 + 1]
            return String(
                zip(top, bottom).map { pair -> Character in
                    switch pair {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
        }
    }

    /// Pixel rows 1–5 of each base glyph of the compact font, `#` set.
    private static let compactTable: [Character: [String]] = {
        var table: [Character: [String]] = [
            // Capitals.
            "A": [".#.", "#.#", "###", "#.#", "#.#"], "B": ["##.", "#.#", "##.", "#.#", "##."],
            "C": [".##", "#..", "#..", "#..", ".##"], "D": ["##.", "#.#", "#.#", "#.#", "##."],
            "E": ["###", "#..", "##.", "#..", "###"], "F": ["###", "#..", "##.", "#..", "#.."],
            "G": [".##", "#..", "#.#", "#.#", ".##"], "H": ["#.#", "#.#", "###", "#.#", "#.#"],
            "I": ["###", ".#.", ".#.", ".#.", "###"], "J": ["..#", "..#", "..#", "#.#", ".#."],
            "K": ["#.#", "#.#", "##.", "#.#", "#.#"], "L": ["#..", "#..", "#..", "#..", "###"],
            "M": ["#...#", "##.##", "#.#.#", "#...#", "#...#"], "N": ["#..#", "##.#", "#.##", "#..#", "#..#"],
            "O": [".#.", "#.#", "#.#", "#.#", ".#."], "P": ["##.", "#.#", "##.", "#..", "#.."],
            "Q": [".#.", "#.#", "#.#", "##.", ".##"], "R": ["##.", "#.#", "##.", "#.#", "#.#"],
            "S": [".##", "#..", ".#.", "..#", "##."], "T": ["###", ".#.", ".#.", ".#.", ".#."],
            "U": ["#.#", "#.#", "#.#", "#.#", "###"], "V": ["#.#", "#.#", "#.#", "#.#", ".#."],
            "W": ["#...#", "#...#", "#.#.#", "##.##", "#...#"], "X": ["#.#", "#.#", ".#.", "#.#", "#.#"],
            "Y": ["#.#", "#.#", ".#.", ".#.", ".#."], "Z": ["###", "..#", ".#.", "#..", "###"],
            // Small letters: x-height rows 3–5, ascenders from row 1, descenders lifted a row.
            "a": ["...", "...", ".##", "#.#", ".##"], "b": ["#..", "#..", "##.", "#.#", "##."],
            "c": ["...", "...", ".##", "#..", ".##"], "d": ["..#", "..#", ".##", "#.#", ".##"],
            "e": ["...", ".#.", "###", "#..", ".##"], "f": [".##", "#..", "##.", "#..", "#.."],
            "g": ["...", ".##", "#.#", ".##", "##."], "h": ["#..", "#..", "##.", "#.#", "#.#"],
            "i": ["#", ".", "#", "#", "#"], "j": [".#", "..", ".#", ".#", "#."],
            "k": ["#..", "#..", "#.#", "##.", "#.#"], "l": ["#.", "#.", "#.", "#.", ".#"],
            "m": [".....", ".....", "####.", "#.#.#", "#.#.#"], "n": ["...", "...", "##.", "#.#", "#.#"],
            "o": ["...", "...", ".#.", "#.#", ".#."], "p": ["...", "##.", "#.#", "##.", "#.."],
            "q": ["...", ".##", "#.#", ".##", "..#"], "r": ["...", "...", ".##", "#..", "#.."],
            "s": ["...", "...", ".##", ".#.", "##."], "t": [".#.", "###", ".#.", ".#.", ".##"],
            "u": ["...", "...", "#.#", "#.#", ".##"], "v": ["...", "...", "#.#", "#.#", ".#."],
            "w": [".....", ".....", "#.#.#", "#.#.#", ".#.#."], "x": ["...", "...", "#.#", ".#.", "#.#"],
            "y": ["...", "#.#", "#.#", ".##", "##."], "z": ["...", "...", "##.", ".#.", ".##"],
            // Digits.
            "0": ["###", "#.#", "#.#", "#.#", "###"], "1": [".#.", "##.", ".#.", ".#.", "###"],
            "2": ["##.", "..#", ".#.", "#..", "###"], "3": ["##.", "..#", ".#.", "..#", "##."],
            "4": ["#.#", "#.#", "###", "..#", "..#"], "5": ["###", "#..", "##.", "..#", "##."],
            "6": [".##", "#..", "###", "#.#", "###"], "7": ["###", "..#", ".#.", ".#.", ".#."],
            "8": ["###", "#.#", "###", "#.#", "###"], "9": ["###", "#.#", "###", "..#", "##."],
            // Punctuation.
            ".": [".", ".", ".", ".", "#"], ",": [".", ".", ".", "#", "#"], "!": ["#", "#", "#", ".", "#"],
            "?": ["##.", "..#", ".#.", "...", ".#."], "¡": ["#", ".", "#", "#", "#"],
            "¿": [".#.", "...", ".#.", "#..", ".##"], ":": [".", "#", ".", "#", "."], ";": [".", "#", ".", "#", "#"],
            "'": ["#", "#", ".", ".", "."], "\"": ["#.#", "#.#", "...", "...", "..."],
            "-": ["...", "...", "###", "...", "..."], "–": ["...", "...", "###", "...", "..."],
            "—": [".....", ".....", "#####", ".....", "....."], "(": [".#", "#.", "#.", "#.", ".#"],
            ")": ["#.", ".#", ".#", ".#", "#."], "&": [".#.", "#.#", ".#.", "#.#", ".##"],
            "/": ["..#", "..#", ".#.", "#..", "#.."], "*": ["#.#", ".#.", "#.#", "...", "..."],
            "…": [".....", ".....", ".....", ".....", "#.#.#"], "+": ["...", ".#.", "###", ".#.", "..."], "·": [".", ".", "#", ".", "."],
            "«": ["..", ".#", "#.", ".#", ".."], "»": ["..", "#.", ".#", "#.", ".."],
        ]
        table["’"] = table["'"]
        table["‘"] = table["'"]
        table["“"] = table["\""]
        table["”"] = table["\""]
        table["ß"] = [".#.", "#.#", "##.", "#.#", "##."]
        return table
    }()
}

extension BlockFont {
    /// Pixel rows 1–7 of each base glyph of the tall font, `#` set: capitals on rows 1–6, small
    /// letters' x-height on rows 3–6, descenders on row 7.
    fileprivate static let tallTable: [Character: [String]] = {
        var table: [Character: [String]] = [
            // Capitals, five pixels wide (I three).
            "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "....."],
            "B": ["####.", "#...#", "####.", "#...#", "#...#", "####.", "....."],
            "C": [".###.", "#...#", "#....", "#....", "#...#", ".###.", "....."],
            "D": ["####.", "#...#", "#...#", "#...#", "#...#", "####.", "....."],
            "E": ["#####", "#....", "####.", "#....", "#....", "#####", "....."],
            "F": ["#####", "#....", "####.", "#....", "#....", "#....", "....."],
            "G": [".###.", "#....", "#.###", "#...#", "#...#", ".###.", "....."],
            "H": ["#...#", "#...#", "#####", "#...#", "#...#", "#...#", "....."],
            "I": ["###", ".#.", ".#.", ".#.", ".#.", "###", "..."],
            "J": ["..###", "...#.", "...#.", "...#.", "#..#.", ".##..", "....."],
            "K": ["#...#", "#..#.", "###..", "#..#.", "#...#", "#...#", "....."],
            "L": ["#....", "#....", "#....", "#....", "#....", "#####", "....."],
            "M": ["#...#", "##.##", "#.#.#", "#...#", "#...#", "#...#", "....."],
            "N": ["#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "....."],
            "O": [".###.", "#...#", "#...#", "#...#", "#...#", ".###.", "....."],
            "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "....."],
            "Q": [".###.", "#...#", "#...#", "#.#.#", "#..#.", ".##.#", "....."],
            "R": ["####.", "#...#", "#...#", "####.", "#..#.", "#...#", "....."],
            "S": [".####", "#....", ".###.", "....#", "....#", "####.", "....."],
            "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "....."],
            "U": ["#...#", "#...#", "#...#", "#...#", "#...#", ".###.", "....."],
            "V": ["#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..", "....."],
            "W": ["#...#", "#...#", "#...#", "#.#.#", "##.##", "#...#", "....."],
            "X": ["#...#", ".#.#.", "..#..", "..#..", ".#.#.", "#...#", "....."],
            "Y": ["#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..", "....."],
            "Z": ["#####", "...#.", "..#..", ".#...", "#....", "#####", "....."],
            // Small letters, four pixels wide (m, v, w five; i, j, l narrower). The single-storey
            // a of children's books, with its stem on the right, so it is not an o.
            "a": ["....", "....", ".###", "#..#", "#..#", ".###", "...."],
            "b": ["#...", "#...", "###.", "#..#", "#..#", "###.", "...."],
            "c": ["....", "....", ".###", "#...", "#...", ".###", "...."],
            "d": ["...#", "...#", ".###", "#..#", "#..#", ".###", "...."],
            "e": ["....", "....", ".##.", "####", "#...", ".###", "...."],
            "f": ["..##", ".#..", "####", ".#..", ".#..", ".#..", "...."],
            "g": ["....", "....", ".###", "#..#", ".###", "...#", ".##."],
            "h": ["#...", "#...", "###.", "#..#", "#..#", "#..#", "...."],
            "i": [".#.", "...", "##.", ".#.", ".#.", "###", "..."],
            "j": ["..#", "...", ".##", "..#", "..#", "..#", "##."],
            "k": ["#...", "#...", "#..#", "#.#.", "###.", "#..#", "...."],
            "l": ["#.", "#.", "#.", "#.", "#.", ".#", ".."],
            "m": [".....", ".....", "####.", "#.#.#", "#.#.#", "#.#.#", "....."],
            "n": ["....", "....", "###.", "#..#", "#..#", "#..#", "...."],
            "o": ["....", "....", ".##.", "#..#", "#..#", ".##.", "...."],
            "p": ["....", "....", "###.", "#..#", "#..#", "###.", "#..."],
            "q": ["....", "....", ".###", "#..#", "#..#", ".###", "...#"],
            "r": ["....", "....", "#.##", "##..", "#...", "#...", "...."],
            "s": ["....", "....", ".###", "##..", "..##", "###.", "...."],
            "t": [".#..", ".#..", "####", ".#..", ".#..", "..##", "...."],
            "u": ["....", "....", "#..#", "#..#", "#..#", ".###", "...."],
            "v": [".....", ".....", "#...#", "#...#", ".#.#.", "..#..", "....."],
            "w": [".....", ".....", "#...#", "#.#.#", "#.#.#", ".#.#.", "....."],
            "x": ["....", "....", "#..#", ".##.", ".##.", "#..#", "...."],
            "y": ["....", "....", "#..#", "#..#", ".###", "...#", ".##."],
            "z": ["....", "....", "####", "..#.", ".#..", "####", "...."],
            "ß": [".##.", "#..#", "#.#.", "#..#", "#..#", "#.#.", "#..."],
            "œ": [".....", ".....", ".#.##", "#.###", "#.#..", ".#.##", "....."],
            // Digits: the zero has a stroke, so it is not an O.
            "0": [".##.", "#..#", "#.##", "##.#", "#..#", ".##.", "...."],
            "1": [".#.", "##.", ".#.", ".#.", ".#.", "###", "..."],
            "2": [".##.", "#..#", "..#.", ".#..", "#...", "####", "...."],
            "3": ["###.", "...#", ".##.", "...#", "...#", "###.", "...."],
            "4": ["#..#", "#..#", "####", "...#", "...#", "...#", "...."],
            "5": ["####", "#...", "###.", "...#", "...#", "###.", "...."],
            "6": [".##.", "#...", "###.", "#..#", "#..#", ".##.", "...."],
            "7": ["####", "...#", "..#.", ".#..", ".#..", ".#..", "...."],
            "8": [".##.", "#..#", ".##.", "#..#", "#..#", ".##.", "...."],
            "9": [".##.", "#..#", "#..#", ".###", "...#", ".##.", "...."],
            // Punctuation.
            ".": [".", ".", ".", ".", ".", "#", "."], ",": [".", ".", ".", ".", ".", "#", "#"],
            "!": ["#", "#", "#", "#", ".", "#", "."], "¡": ["#", ".", "#", "#", "#", "#", "."],
            "?": [".##.", "#..#", "..#.", ".#..", "....", ".#..", "...."],
            "¿": ["..#.", "....", "..#.", ".#..", "#..#", ".##.", "...."],
            ":": [".", ".", "#", ".", ".", "#", "."], ";": [".", ".", "#", ".", ".", "#", "#"],
            "'": ["#", "#", ".", ".", ".", ".", "."], "\"": ["#.#", "#.#", "...", "...", "...", "...", "..."],
            "-": ["...", "...", "...", "###", "...", "...", "..."], "–": ["....", "....", "....", "####", "....", "....", "...."],
            "—": ["......", "......", "......", "######", "......", "......", "......"],
            "(": [".#", "#.", "#.", "#.", "#.", "#.", ".#"], ")": ["#.", ".#", ".#", ".#", ".#", ".#", "#."],
            "&": [".#..", "#.#.", ".#..", "#.#.", "#..#", ".##.", "...."],
            "/": ["...#", "...#", "..#.", ".#..", "#...", "#...", "...."],
            "*": ["#.#", ".#.", "#.#", "...", "...", "...", "..."],
            "…": [".....", ".....", ".....", ".....", ".....", "#.#.#", "....."],
            "+": ["...", "...", ".#.", "###", ".#.", "...", "..."], "·": [".", ".", ".", "#", ".", ".", "."],
            "«": ["....", "....", ".#.#", "#.#.", ".#.#", "....", "...."], "»": ["....", "....", "#.#.", ".#.#", "#.#.", "....", "...."],
        ]
        table["’"] = table["'"]
        table["‘"] = table["'"]
        table["“"] = table["\""]
        table["”"] = table["\""]
        return table
    }()
}
