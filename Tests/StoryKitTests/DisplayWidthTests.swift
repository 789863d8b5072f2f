import Testing

@testable import StoryKit

@Suite struct DisplayWidthTests {
    /// Text, its width in columns, and what it shows.
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let width: Int
        let testDescription: String
        init(_ testDescription: String, _ text: String, _ width: Int) {
            self.text = text
            self.width = width
            self.testDescription = testDescription
        }
    }

    static let cases: [Case] = [
        Case("ASCII", "Once upon a time", 16),
        Case("empty", "", 0),
        Case("CJK ideograph", "橋", 2),
        Case("emoji", "😀", 2),
        Case("e + combining acute", "e\u{301}", 1),
        Case("precomposed é", "café", 4),
        Case("ZWSP", "\u{200B}", 0),
        Case("ZWNJ and ZWJ alone", "\u{200C}\u{200D}", 0),
        Case("VS16 alone", "\u{FE0F}", 0),
        Case("byte order mark", "\u{FEFF}", 0),
        Case("LRM and RLM", "\u{200E}\u{200F}", 0),
        Case("ZWJ sequence farmer", "🧑\u{200D}🌾", 2),
        Case("ZWJ sequence of text-default emoji (eye in speech bubble)", "👁\u{200D}🗨", 2),
        Case("skin tone", "👍🏽", 2),
        Case("flag", "🇫🇷", 2),
        Case("heart with VS16", "❤\u{FE0F}", 2),
        Case("heart without VS16", "❤", 1),
        Case("keycap", "1\u{FE0F}\u{20E3}", 2),
        Case("fullwidth A", "Ａ", 2),
        Case("halfwidth katakana", "ｶﾀｶﾅ", 4),
        Case("Hangul syllables", "한국어", 6),
        Case("Hangul conjoining jamo", "\u{1112}\u{1161}\u{11AB}", 2),
        Case("ideographic space", "\u{3000}", 2),
        Case("ideographic half fill space U+303F is narrow", "\u{303F}", 1),
        Case("hiragana", "むかしむかし", 12),
        Case("CJK Extension B", "\u{20B9F}", 2),
        Case("controls", "\u{07}\u{1B}\u{7F}\u{85}", 0),
        Case("CR LF", "\r\n", 0),
        Case("Cyrillic", "Жили-были", 9),
        Case("Arabic", "مرحبا", 5),
        Case("Devanagari with a spacing vowel sign", "कि", 1),
        Case("mixed sentence", "The fox 狐 saw 🍇 grapes, é\u{301}!", 28),
    ]

    @Test(arguments: cases)
    func width(_ example: Case) {
        #expect(DisplayWidth.of(example.text) == example.width)
    }

    @Test(arguments: cases)
    func stringIsTheSumOfItsGraphemes(_ example: Case) {
        #expect(example.text.reduce(0) { $0 + DisplayWidth.of($1) } == DisplayWidth.of(example.text))
        #expect(example.text.allSatisfy { (0...2).contains(DisplayWidth.of($0)) })
    }

    @Test func wideTableIsSortedAndDisjoint() {
        let ranges = DisplayWidth.wideRanges
        #expect(!ranges.isEmpty)
        for (earlier, later) in zip(ranges, ranges.dropFirst()) {
            #expect(earlier.upperBound + 1 < later.lowerBound, "\(earlier) and \(later)")
        }
    }

    @Test func wideTableBoundaries() {
        for range in DisplayWidth.wideRanges {
            #expect(DisplayWidth.isWide(range.lowerBound))
            #expect(DisplayWidth.isWide(range.upperBound))
            #expect(!DisplayWidth.isWide(range.lowerBound - 1))
            #expect(!DisplayWidth.isWide(range.upperBound + 1))
        }
    }
}
