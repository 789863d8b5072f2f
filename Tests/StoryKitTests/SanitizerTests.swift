import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct SanitizerTests {
    // MARK: The vectors

    /// One case of `Tests/Fixtures/sanitize-vectors.json`: untrusted input and what must remain.
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let input: String
        let output: String
        var testDescription: String { name }
    }

    /// The vectors (`Tests/Fixtures/sanitize-vectors.json`); a file that is missing or unreadable
    /// fails the tests that use it.
    static func vectors() throws -> [Vector] {
        try JSONDecoder().decode([Vector].self, from: Data(contentsOf: TestPaths.sanitizeVectors))
    }

    @Test(arguments: try vectors())
    func vector(_ vector: Vector) {
        #expect(Sanitizer.sanitize(vector.input) == vector.output)
    }

    @Test(arguments: try vectors())
    func vectorIsIdempotent(_ vector: Vector) {
        let once = Sanitizer.sanitize(vector.input)
        #expect(Sanitizer.sanitize(once) == once)
        #expect(Sanitizer.sanitize(vector.output) == vector.output, "an expected output is already clean")
    }

    @Test
    func vectorFileHasUniquelyNamedCases() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 30)
        #expect(Set(vectors.map(\.name)).count == vectors.count, "vectors are parameterised by name")
    }

    // MARK: Cases the vectors do not cover

    /// An input, what must remain, and why.
    struct Case: Sendable, CustomTestStringConvertible {
        let input: String
        let output: String
        let testDescription: String
        init(_ testDescription: String, _ input: String, _ output: String) {
            self.input = input
            self.output = output
            self.testDescription = testDescription
        }
    }

    static let cases: [Case] = [
        Case("TAB is four spaces", "a\tb\t", "a    b    "),
        Case("lone CR at the end", "a\r", "a\n"),
        Case("CR CR LF is two breaks", "a\r\r\nb", "a\n\nb"),
        Case("LF CR is two breaks", "a\n\rb", "a\n\nb"),
        Case("paragraph separator", "a\u{2029}b", "a\nb"),
        Case("VT, FF, NUL, ESC-less C0", "a\u{0B}\u{0C}\u{00}\u{01}\u{1F}b", "ab"),
        Case("CSI with intermediate byte (DECSCUSR)", "a\u{1B}[1 qb", "ab"),
        Case("CSI with private marker and many parameters", "\u{1B}[?25;1;2:3hx", "x"),
        Case("CSI ended by a non-ASCII scalar, which stays", "a\u{1B}[12éb", "aéb"),
        Case("CSI ended by ESC starting another", "\u{1B}[1\u{1B}[31mx", "x"),
        Case("CSI cancelled by CAN", "a\u{1B}[1\u{18}b", "ab"),
        Case("CSI ended by LF, which stays", "a\u{1B}[1\nb", "a\nb"),
        Case("CSI at the end of the text", "a\u{1B}[12;", "a"),
        Case("8-bit CSI with private parameters", "\u{9B}?1049hx", "x"),
        Case("OSC ended by CAN", "\u{1B}]0;t\u{18}x", "x"),
        Case("OSC ended by SUB", "\u{1B}]0;t\u{1A}x", "x"),
        Case("OSC ended by 8-bit ST", "\u{1B}]0;t\u{9C}x", "x"),
        Case("OSC 8 hyperlink keeps only its text", "\u{1B}]8;;http://e.vil\u{1B}\\click\u{1B}]8;;\u{1B}\\", "click"),
        Case("ESC inside a string does not end it", "\u{1B}]0;a\u{1B}[31mb\u{07}c", "c"),
        Case("ESC ESC \\ ends a string", "\u{1B}]0;a\u{1B}\u{1B}\\c", "c"),
        Case("unterminated DCS eats the rest", "a\u{1B}Pq#0;2;0;0;0", "a"),
        Case("unterminated SOS eats the rest", "a\u{1B}Xsos text", "a"),
        Case("unterminated PM eats the rest", "a\u{1B}^pm text", "a"),
        Case("unterminated APC eats the rest", "a\u{1B}_G a=T;AAAA", "a"),
        Case("reset ESC c", "a\u{1B}cb", "ab"),
        Case("save and restore cursor ESC 7 ESC 8", "a\u{1B}7b\u{1B}8c", "abc"),
        Case("reverse index ESC M", "a\u{1B}Mb", "ab"),
        Case("keypad modes ESC = ESC >", "a\u{1B}=b\u{1B}>c", "abc"),
        Case("DECALN ESC # 8", "\u{1B}#8x", "x"),
        Case("UTF-8 mode ESC % G", "\u{1B}%Gx", "x"),
        Case("G1 charset ESC ) 0", "\u{1B})0x", "x"),
        Case("ESC at the end of the text", "a\u{1B}", "a"),
        Case("ESC before LF keeps the LF", "a\u{1B}\nb", "a\nb"),
        Case("ESC before a non-ASCII scalar keeps it", "a\u{1B}éb", "aéb"),
        Case("ESC before DEL", "a\u{1B}\u{7F}b", "ab"),
        Case("8-bit OSC introducer dropped alone", "a\u{9D}0;t\u{07}b", "a0;tb"),
        Case("every C1 control", String(String.UnicodeScalarView((0x80...0x9F).compactMap(Unicode.Scalar.init))) + "x", "x"),
        Case("bidi embeddings and overrides", "a\u{202A}b\u{202B}c\u{202C}d\u{202D}e\u{202E}f", "abcdef"),
        Case("bidi isolates", "a\u{2066}b\u{2067}c\u{2068}d\u{2069}e", "abcde"),
        Case("Arabic letter mark, LRM and RLM stay", "a\u{061C}b\u{200E}c\u{200F}", "a\u{061C}b\u{200E}c\u{200F}"),
        Case("tag characters", "a\u{E0001}\u{E0041}\u{E007F}b", "ab"),
        Case("byte order mark stays", "\u{FEFF}Once", "\u{FEFF}Once"),
        Case("VS16, ZWJ and skin tone stay", "❤\u{FE0F} 👩\u{200D}🚀 👍🏽", "❤\u{FE0F} 👩\u{200D}🚀 👍🏽"),
        Case("no-break, ideographic and narrow spaces stay", "a\u{A0}b\u{3000}c\u{202F}d", "a\u{A0}b\u{3000}c\u{202F}d"),
        Case("empty", "", ""),
    ]

    @Test(arguments: cases)
    func edgeCase(_ example: Case) {
        #expect(Sanitizer.sanitize(example.input) == example.output)
    }

    // MARK: Properties over many strings

    @Test func randomHostileStringsComeOutCleanAndStable() {
        var generator = SeededGenerator(seed: 0x5EED_2024)
        for number in 0..<4000 {
            let input = Self.randomString(from: Self.hostilePieces, using: &generator)
            let once = Sanitizer.sanitize(input)
            let problem: String? =
                if let bad = once.unicodeScalars.first(where: Self.mustNotRemain) {
                    "U+\(String(bad.value, radix: 16, uppercase: true)) remains"
                } else if Sanitizer.sanitize(once) != once {
                    "a second pass changes it"
                } else { nil }
            if let problem {
                Issue.record("case \(number): \(problem); input \(input.debugDescription)")
                return
            }
        }
    }

    @Test func randomCleanStringsComeBackUnchanged() {
        var generator = SeededGenerator(seed: 42)
        for number in 0..<2000 {
            let input = Self.randomString(from: Self.cleanPieces, using: &generator)
            let output = Sanitizer.sanitize(input)
            if output != input {
                Issue.record("case \(number): \(input.debugDescription) became \(output.debugDescription)")
                return
            }
        }
    }

    @Test func corpusStoriesKeepEveryLetter() throws {
        let files = TestPaths.corpusFiles
        #expect(!files.isEmpty)
        for file in files {
            let story = try String(contentsOf: file, encoding: .utf8)
            let clean = Sanitizer.sanitize(story)
            #expect(clean.filter(\.isLetter) == story.filter(\.isLetter), "\(file.lastPathComponent)")
            #expect(Sanitizer.sanitize(clean) == clean, "\(file.lastPathComponent)")
        }
    }

    // MARK: Single-line fields

    static let lineCases: [Case] = [
        Case("breaks and padding", "  The Fox\n and the\r\nGrapes  ", "The Fox and the Grapes"),
        Case("tab", "a\tb", "a b"),
        Case("runs of spaces", "a     b", "a b"),
        Case("line and paragraph separators", "a\u{2028}b\u{2029}c", "a b c"),
        Case("escape removed without a space", "Red\u{1B}[31mFox", "RedFox"),
        Case("title-setting OSC", "\u{1B}]0;pwned\u{07}Title", "Title"),
        Case("only blanks", " \n\t\r\n ", ""),
        Case("empty", "", ""),
        Case("letters of any script unchanged", "Ünïcödé 橋 한국어 😀", "Ünïcödé 橋 한국어 😀"),
        Case("other white space becomes one space", "\u{3000}a\u{A0}\u{A0}b\u{2009}c\u{202F}", "a b c"),
        Case("ZWSP and ZWJ are not white space", "a\u{200B}b\u{200D}c", "a\u{200B}b\u{200D}c"),
        Case("bidi override", "file\u{202E}txt.exe", "filetxt.exe"),
    ]

    @Test(arguments: lineCases)
    func line(_ example: Case) {
        #expect(Sanitizer.sanitizeLine(example.input) == example.output)
    }

    @Test func randomLinesAreSingleTrimmedAndStable() {
        var generator = SeededGenerator(seed: 7)
        for number in 0..<2000 {
            let input = Self.randomString(from: Self.hostilePieces + Self.cleanPieces, using: &generator)
            let line = Sanitizer.sanitizeLine(input)
            let problem: String? =
                if line.contains("\n") { "a line break remains" } else if line.contains("  ") {
                    "a run of spaces remains"
                } else if line.unicodeScalars.contains(where: { $0 != " " && $0.properties.isWhitespace }) {
                    "white space other than U+0020 remains"
                } else if line.hasPrefix(" ") || line.hasSuffix(" ") { "not trimmed" } else if line.unicodeScalars.contains(where: Self.mustNotRemain) {
                    "a control remains"
                } else if Sanitizer.sanitizeLine(line) != line { "a second pass changes it" } else { nil }
            if let problem {
                Issue.record("case \(number): \(problem) in \(line.debugDescription); input \(input.debugDescription)")
                return
            }
        }
    }

    // MARK: Helpers

    /// What sanitized text may never contain.
    static func mustNotRemain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069, 0xE0000...0xE007F: true
        default: false
        }
    }

    /// Pieces of attack text: escape introducers, parameters, terminators, C1, bidi controls, tags
    /// and line breaks, mixed with text that must survive.
    static let hostilePieces: [String] = [
        "\u{1B}", "\u{1B}[", "\u{1B}]", "\u{1B}P", "\u{1B}X", "\u{1B}^", "\u{1B}_", "\u{1B}\\", "\u{1B}#",
        "\u{1B}(", "[", "]", "\\", "#", "(", "0", "1;2", "?", " ", "m", "H", "~", "\u{07}", "\u{18}",
        "\u{1A}", "\u{9B}", "\u{9C}", "\u{9D}", "\u{85}", "\u{90}", "\u{7F}", "\u{00}", "\u{08}", "\t",
        "\r", "\n", "\r\n", "\u{2028}", "\u{2029}", "\u{202E}", "\u{2066}", "\u{2069}", "\u{E0041}",
        "\u{E007F}", "\u{200E}", "\u{200D}", "\u{FE0F}", "\u{301}", "😀", "🧑\u{200D}🌾", "👍🏽", "橋",
        "e", "Fox", "é",
    ]

    /// Pieces with nothing to remove: letters of several scripts, marks, joiners, emoji, spaces, LF.
    static let cleanPieces: [String] = [
        "Once", " ", "upon", "a", "time", ".", ",", "!", "\n", "\n\n", "é", "e\u{301}", "ñ", "ß",
        "Ω", "Жили-были", "مرحبا", "שלום", "\u{200E}", "\u{200F}", "\u{200D}", "\u{FE0F}", "\u{FEFF}",
        "\u{A0}", "\u{3000}", "橋", "한국어", "ｶﾀｶﾅ", "Ａ", "😀", "🧑\u{200D}🌾", "👍🏽", "🇫🇷", "1\u{FE0F}\u{20E3}",
        "[", "]", "\\", "~", "#", "(", "0",
    ]

    static func randomString(from pieces: [String], using generator: inout SeededGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...24, using: &generator) {
            text += pieces.randomElement(using: &generator)!
        }
        return text
    }
}
