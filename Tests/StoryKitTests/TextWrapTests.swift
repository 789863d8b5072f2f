import Foundation
import Testing

@testable import StoryKit

@Suite struct TextWrapTests {
    static let samples: [String] = [
        "The sun slid down behind the hill. The sky turned pink, then purple, then dark blue.",
        "“Bedtime, Little Bear,” said Mama Bear.",
        "En lo alto de una montaña, encima del pueblo de Villapequeña, vivía un dragón.",
        "Supercalifragilisticexpialidocious is a very long word indeed for a small column.",
        "Cafe\u{301} con leche, nin\u{303}o: combining marks stay with their letters.",
        "漢字とかなの文章も折り返します。日本語の行。",
        "Emoji 🌻 and 🚀 and 👩‍🚀 are words too 🐻.",
        "Two  spaces and\na line break\n\nand a blank line.",
        "",
    ]

    /// No line wider than asked, nothing but breaking spaces lost, every grapheme where it says.
    @Test(arguments: samples.indices, [2, 5, 12, 20, 40])
    func wrapsWithoutLoss(_ index: Int, _ width: Int) {
        let text = Self.samples[index]
        let lines = TextWrap.wrap(text, width: width)
        for line in lines {
            #expect(line.width <= width, "\(line.text) is \(line.width) wide")
            #expect(DisplayWidth.of(line.text) == line.width || line.graphemes.contains { DisplayWidth.of($0.character) == 0 })
        }
        let kept = lines.flatMap { $0.graphemes.map(\.character) }.filter { !$0.isWhitespace }
        #expect(String(kept) == String(text.filter { !$0.isWhitespace }))
        // Every grapheme's scalar range points at that grapheme in the source text.
        for grapheme in lines.flatMap(\.graphemes) {
            #expect(text.scalars(in: grapheme.scalarRange) == String(grapheme.character))
        }
    }

    @Test func breaksAtSpacesWhenItCan() {
        let lines = TextWrap.wrap("the quick brown fox jumps", width: 10).map(\.text)
        #expect(lines == ["the quick", "brown fox", "jumps"])
    }

    @Test func breaksLongWords() {
        let lines = TextWrap.wrap("a Kingfisher", width: 5).map(\.text)
        #expect(lines == ["a", "Kingf", "isher"])
    }

    @Test func lineFeedsBreak() {
        #expect(TextWrap.wrap("one\ntwo", width: 40).map(\.text) == ["one", "two"])
        #expect(TextWrap.wrap("one\n\ntwo", width: 40).map(\.text) == ["one", "", "two"])
    }

    @Test func combiningMarksStayWithTheirLetter() {
        let text = "cafe\u{301} cafe\u{301}"
        let lines = TextWrap.wrap(text, width: 4)
        #expect(lines.map(\.text) == ["cafe\u{301}", "cafe\u{301}"])
        #expect(lines[1].graphemes.last?.scalarRange == TextRange(start: 9, end: 11))
    }

    @Test func wideCharactersCountTwo() {
        // East Asian wide characters take two columns (the real width table).
        #expect(DisplayWidth.of("漢" as Character) == 2)
        let lines = TextWrap.wrap("漢字漢字漢字", width: 5)
        #expect(lines.map(\.text) == ["漢字", "漢字", "漢字"])
        #expect(lines.allSatisfy { $0.width == 4 })
    }

    /// The word being heard is found on the wrapped lines by its scalar offset.
    @Test func locatesAHighlightedWord() {
        let text = "Wick jumped onto his tummy. She put one cold, wet paw right in his ear."
        let target = text.range(of: "paw")!
        let start = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: target.lowerBound)
        for width in [8, 13, 30, 80] {
            let lines = TextWrap.wrap(text, width: width)
            let found = TextWrap.locate(scalar: start, in: lines)
            #expect(found != nil)
            if let found {
                let graphemes = lines[found.line].graphemes.drop { $0.column < found.column }
                #expect(String(graphemes.prefix(3).map(\.character)) == "paw")
            }
            #expect(TextWrap.lines(showing: TextRange(start: start, end: start + 3), in: lines) == [found?.line].compactMap { $0 })
        }
        #expect(TextWrap.locate(scalar: 10_000, in: TextWrap.wrap(text, width: 20)) == nil)
    }

    @Test func customMeasure() {
        // Doubled, as on double-size lines: 10 columns hold 5 letters.
        let lines = TextWrap.wrap("abcdefgh", width: 10, measure: { _ in 2 })
        #expect(lines.map(\.text) == ["abcde", "fgh"])
    }
}
