import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

@Suite struct BlockFontTests {
    /// The titles of the bundled stories, read from `stories/*.md`.
    static func bundledTitles() throws -> [String] {
        let folder = TestPaths.stories
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        return try names.compactMap { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return text.split(separator: "\n").first { $0.hasPrefix("title:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func coversEveryCharacterOfTheBundledTitles() throws {
        let titles = try Self.bundledTitles()
        #expect(titles.count >= 12)
        #expect(titles.contains("El dragón que tenía hipo"))
        var missing: Set<Character> = []
        for title in titles {
            for character in title where !BlockFont.covers(character) { missing.insert(character) }
        }
        #expect(missing.isEmpty, "no glyph for \(missing.sorted())")
    }

    @Test func coversLettersDigitsPunctuationAndAccents() {
        let required = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,!?¡¿'’“”\"-–—:;()&…"
            + "éóíúáñàèùâêîôûçëïüöäÉÓÍÚÁÑÀÇ"
        for character in required {
            #expect(BlockFont.covers(character), "no glyph for \(character)")
        }
        // Decomposed input composes the same way.
        #expect(BlockFont.glyph("e\u{301}") == BlockFont.glyph("é"))
    }

    @Test func accentsAreVisible() {
        #expect(BlockFont.glyph("é") != BlockFont.glyph("e"))
        #expect(BlockFont.glyph("é") != BlockFont.glyph("è"))
        #expect(BlockFont.glyph("ñ") != BlockFont.glyph("n"))
        #expect(BlockFont.glyph("Ó") != BlockFont.glyph("O"))
        #expect(BlockFont.glyph("ç") != BlockFont.glyph("c"))
    }

    @Test func glyphsAreThreeRowsOfEqualWidth() {
        for character in "AbMWgjé?1 ñÇ" {
            let glyph = BlockFont.glyph(character)
            #expect(glyph.count == 3)
            #expect(Set(glyph.map { DisplayWidth.of($0) }) == [BlockFont.glyphWidth(character)])
            // Only blocks and spaces.
            #expect(glyph.joined().allSatisfy { " ▀▄█".contains($0) })
        }
    }

    @Test func everyLetterIsDistinct() {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var seen: [[String]: Character] = [:]
        for letter in letters {
            let glyph = BlockFont.glyph(letter)
            if let other = seen[glyph], !(["0": "O", "O": "0", "o": "0"] as [Character: Character]).keys.contains(letter) {
                Issue.record("\(letter) looks the same as \(other)")
            }
            seen[glyph] = letter
        }
    }

    @Test func fallbackIsVisibleAndKeepsTheCharacter() {
        let snowman: Character = "☃"
        #expect(!BlockFont.covers(snowman))
        let glyph = BlockFont.glyph(snowman)
        #expect(glyph[0].hasPrefix("▛") && glyph[2].hasSuffix("▟"))
        #expect(glyph[1].contains(snowman))
        #expect(BlockFont.glyphWidth(snowman) == DisplayWidth.of(snowman) + 2)
    }

    @Test func rendersAWord() {
        let rows = BlockFont.render("Hi!")
        #expect(rows.count == 3)
        #expect(rows == ["▄ ▄ ▄ ▄", "█▄█ ▄ █", "█ █ █ ▄"])
        #expect(BlockFont.width(of: "Hi!") == 7)
    }
}
