import Foundation

/// A built-in block-letter font, three terminal rows high, drawn with `█ ▀ ▄`.
///
/// Each glyph is a bitmap six pixels high (two pixels a row, as half blocks): capitals use pixel
/// rows 1–5 with an accent on row 0; small letters have an x-height of three pixels, ascenders
/// from row 1 and accents on row 1. Accented letters are composed from a base letter and its
/// combining marks (acute, grave, circumflex, tilde, diaeresis, ring, cedilla), so `é`, `Ó`, `ñ`,
/// `à` and `ç` all come out. Any other character is drawn framed (`▛▀▜ / ▌x▐ / ▙▄▟`), so nothing
/// is ever silently dropped. Block letters are read as junk by screen readers: the renderer always
/// keeps the plain text beside them.
public enum BlockFont {
    /// Rows of a rendered line.
    public static let height = 3
    /// Blank columns between two glyphs.
    public static let spacing = 1

    /// Whether `character` has a real glyph (not the framed fallback).
    public static func covers(_ character: Character) -> Bool { pixels(for: character) != nil }

    /// The glyph of one character: three rows of equal display width (empty for a zero-width one).
    public static func glyph(_ character: Character) -> [String] {
        if let grid = pixels(for: character) { return encode(grid) }
        let width = DisplayWidth.of(character)
        if width <= 0 { return ["", "", ""] }
        let bar = String(repeating: "▀", count: width)
        let base = String(repeating: "▄", count: width)
        return ["▛" + bar + "▜", "▌" + String(character) + "▐", "▙" + base + "▟"]
    }

    /// Columns the glyph of `character` takes, without spacing.
    public static func glyphWidth(_ character: Character) -> Int {
        if let grid = pixels(for: character) { return grid.first?.count ?? 0 }
        let width = DisplayWidth.of(character)
        return width <= 0 ? 0 : width + 2
    }

    /// Columns `text` takes when rendered.
    public static func width(of text: String) -> Int {
        let widths = text.map(glyphWidth).filter { $0 > 0 }
        return widths.reduce(0, +) + max(0, widths.count - 1) * spacing
    }

    /// Three rows drawing `text` in block letters (no line breaks: wrap first).
    public static func render(_ text: String) -> [String] {
        var rows = ["", "", ""]
        var first = true
        for character in text {
            let glyph = self.glyph(character)
            if glyph[0].isEmpty && glyph[1].isEmpty { continue }
            for row in 0..<3 {
                if !first { rows[row] += String(repeating: " ", count: spacing) }
                rows[row] += glyph[row]
            }
            first = false
        }
        return rows
    }

    // MARK: Glyph data

    /// Six pixel rows of equal width, or nil when the font has no glyph.
    static func pixels(for character: Character) -> [[Bool]]? {
        if character == " " { return Array(repeating: [false, false], count: 6) }
        if let grid = basePixels(character) { return grid }
        // Compose: base letter + combining marks.
        let decomposed = Array(String(character).decomposedStringWithCanonicalMapping.unicodeScalars)
        guard decomposed.count >= 2, let base = basePixels(Character(decomposed[0])) else { return nil }
        let isCapital = decomposed[0].properties.isUppercase
        var grid = base
        for mark in decomposed.dropFirst() {
            guard let accent = accents[mark.value] else { return nil }
            let width = grid[0].count
            if mark.value == 0x0327 {
                // Cedilla: lift the letter a row and hang the mark below.
                if grid[1].contains(true) && !isCapital { return nil }
                grid.remove(at: isCapital ? 0 : 1)
                grid.append(pattern(accent, width: width))
                continue
            }
            grid[isCapital ? 0 : 1] = pattern(accent, width: width)
        }
        return grid
    }

    /// Where a one-row accent's pixels go, for a glyph `width` wide.
    private static func pattern(_ accent: Accent, width: Int) -> [Bool] {
        var row = Array(repeating: false, count: width)
        let middle = width / 2
        switch accent {
        case .acute: row[min(width - 1, middle + (width > 2 ? 1 : 0))] = true
        case .grave: row[max(0, middle - (width > 2 ? 1 : 0))] = true
        case .circumflex, .ring, .cedilla: row[middle] = true
            if accent == .circumflex, width >= 3 { row[middle - 1] = true; row[middle + 1] = true; row[middle] = false }
        case .tilde: for column in 0..<width { row[column] = true }
        case .diaeresis:
            if width >= 3 { row[0] = true; row[width - 1] = true } else { row[0] = true }
        }
        return row
    }

    private enum Accent { case acute, grave, circumflex, tilde, diaeresis, ring, cedilla }
    private static let accents: [UInt32: Accent] = [
        0x0301: .acute, 0x0300: .grave, 0x0302: .circumflex, 0x0303: .tilde, 0x0308: .diaeresis,
        0x030A: .ring, 0x0327: .cedilla,
    ]

    private static func basePixels(_ character: Character) -> [[Bool]]? { grids[character] }

    /// The table as pixel grids, made once.
    private static let grids: [Character: [[Bool]]] = table.mapValues { rows in
        // Five rows given (pixel rows 1–5); row 0 is for capitals' accents.
        let width = rows[0].count
        let grid = [String(repeating: ".", count: width)] + rows
        return grid.map { $0.map { $0 == "#" } }
    }

    private static func encode(_ grid: [[Bool]]) -> [String] {
        (0..<3).map { row in
            let top = grid[row * 2]
            let bottom = grid[row * 2 + 1]
            return String(zip(top, bottom).map { pair -> Character in
                switch pair {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }

    /// Pixel rows 1–5 of each base glyph, `#` set.
    private static let table: [Character: [String]] = {
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
            "…": [".....", ".....", ".....", ".....", "#.#.#"], "+": ["...", ".#.", "###", ".#.", "..."],
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
