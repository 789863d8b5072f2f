import Foundation
import StoryKitTestSupport
import Testing

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

    static let fonts: [(name: String, font: BlockFont)] = [("compact", .compact), ("tall", .tall)]
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/BlockFont")

    /// Every glyph of both fonts against its golden file: the pixel grid as drawn (`#` set), then
    /// the terminal rows. A changed glyph shows in `git diff` as a picture of the letter.
    @Test(arguments: ["compact", "tall"])
    func everyGlyphMatchesItsGoldenFile(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        #expect(font.repertoire.count >= 110, "\(fontName) draws letters, digits, punctuation and accents")
        for character in font.repertoire {
            let scalars = character.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: "-")
            let grid = try #require(font.pixels(for: character)).map { String($0.map { $0 ? "#" : "." }) }
            let text = "\(scalars) \(character)\n" + grid.joined(separator: "\n") + "\n\n" + font.glyph(character).joined(separator: "\n") + "\n"
            Snapshot.assertMatches(text, named: "\(fontName)/\(scalars).txt", in: Self.snapshots)
        }
    }

    @Test(arguments: ["compact", "tall"])
    func coversEveryCharacterOfTheBundledTitles(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        let titles = try Self.bundledTitles()
        #expect(titles.count >= 12)
        #expect(titles.contains("El dragón que tenía hipo"))
        var missing: Set<Character> = []
        for title in titles {
            for character in title where !font.covers(character) { missing.insert(character) }
        }
        #expect(missing.isEmpty, "no glyph for \(missing.sorted())")
    }

    @Test(arguments: ["compact", "tall"])
    func coversLettersDigitsPunctuationAndAccents(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        let required =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,!?¡¿'’“”\"-–—:;()&…«»ß"
            + "éóíúáñàèùâêîôûçëïüöäÉÓÍÚÁÑÀÇÜÖÄ"
        for character in required {
            #expect(font.covers(character), "\(fontName): no glyph for \(character)")
        }
        // Decomposed input composes the same way.
        #expect(font.glyph("e\u{301}") == font.glyph("é"))
    }

    @Test(arguments: ["compact", "tall"])
    func accentsAreVisible(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        for (accented, plain) in [("é", "e"), ("è", "e"), ("ñ", "n"), ("Ó", "O"), ("ç", "c"), ("ü", "u"), ("Ä", "A"), ("í", "i")] as [(Character, Character)] {
            #expect(font.glyph(accented) != font.glyph(plain), "\(fontName): \(accented) looks like \(plain)")
        }
        #expect(font.glyph("é") != font.glyph("è"))
    }

    @Test(arguments: ["compact", "tall"])
    func glyphsAreRowsOfEqualWidth(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        for character in font.repertoire + [" "] {
            let glyph = font.glyph(character)
            #expect(glyph.count == font.height)
            #expect(Set(glyph.map { DisplayWidth.of($0) }) == [font.glyphWidth(character)], "\(fontName): \(character)")
            // Only blocks and spaces.
            #expect(glyph.joined().allSatisfy { " ▀▄█".contains($0) })
        }
    }

    @Test(arguments: ["compact", "tall"])
    func everyLetterAndDigitIsDistinct(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        // The compact font has no room to tell O, o and 0 apart; the tall one does.
        let alike: Set<Character> = fontName == "compact" ? ["0", "O", "o"] : []
        var seen: [[String]: Character] = [:]
        for letter in letters {
            let glyph = font.glyph(letter)
            if let other = seen[glyph], !(alike.contains(letter) && alike.contains(other)) {
                Issue.record("\(fontName): \(letter) looks the same as \(other)")
            }
            seen[glyph] = letter
        }
    }

    /// Letters a beginner mixes up differ by at least two pixels in the tall font (the right stem
    /// of a, the ascender of h, the dot of i), never by one.
    @Test func tallSmallLettersThatLookAlikeDifferClearly() throws {
        for (a, b) in [("a", "o"), ("e", "c"), ("n", "h"), ("i", "l"), ("u", "v"), ("b", "d"), ("p", "q"), ("O", "0"), ("l", "1")] as [(Character, Character)] {
            let left = try #require(BlockFont.tall.pixels(for: a))
            let right = try #require(BlockFont.tall.pixels(for: b))
            let width = max(left[0].count, right[0].count)
            let pad = { (grid: [[Bool]]) in grid.map { $0 + Array(repeating: false, count: width - $0.count) } }
            let differing = zip(pad(left), pad(right)).map { zip($0, $1).filter { $0 != $1 }.count }.reduce(0, +)
            #expect(differing >= 2, "\(a) and \(b) differ by \(differing) pixels")
        }
    }

    @Test(arguments: ["compact", "tall"])
    func fallbackIsVisibleAndKeepsTheCharacter(fontName: String) throws {
        let font = try #require(Self.fonts.first { $0.name == fontName }?.font)
        let snowman: Character = "☃"
        #expect(!font.covers(snowman))
        let glyph = font.glyph(snowman)
        #expect(glyph.count == font.height)
        #expect(glyph[0].hasPrefix("▛") && glyph[font.height - 1].hasSuffix("▟"))
        #expect(glyph[1].contains(snowman))
        #expect(font.glyphWidth(snowman) == DisplayWidth.of(snowman) + 2)
    }

    @Test func rendersAWord() {
        #expect(BlockFont.compact.render("Hi!") == ["▄ ▄ ▄ ▄", "█▄█ ▄ █", "█ █ █ ▄"])
        #expect(BlockFont.compact.width(of: "Hi!") == 7)
        #expect(BlockFont.tall.render("Hi!") == ["▄   ▄  ▄  ▄", "█▄▄▄█ ▄▄  █", "█   █  █  ▀", "▀   ▀ ▀▀▀ ▀"])
        #expect(BlockFont.tall.width(of: "Hi!") == 11)
    }

    /// 3× text is tall letters where eight of them fit the column, else compact ones; 2× is compact.
    @Test func theFontFollowsTheScaleAndTheColumn() {
        #expect(BlockFont.forScale(3, columns: 72).height == 4)
        #expect(BlockFont.forScale(3, columns: BlockFont.tallMinimumColumns).height == 4)
        #expect(BlockFont.forScale(3, columns: 38).height == 3)
        #expect(BlockFont.forScale(2, columns: 72).height == 3)
    }
}
