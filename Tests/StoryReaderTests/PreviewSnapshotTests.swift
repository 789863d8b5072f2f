import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Snapshot tests of `storyreader preview` for every text size at 80×24 and 40×24.
///
/// The expected screens are in `Tests/StoryReaderTests/Snapshots/`, one file a screen, preset and
/// size. After a deliberate change of layout, regenerate them with
///
///     UPDATE_SNAPSHOTS=1 swift test --filter PreviewSnapshotTests
///
/// and read the diff before committing: a snapshot is only as good as the look it got.
/// Whatever the snapshots say, each screen is also checked for what must always hold: no line
/// wider than the terminal, no more lines than rows, the title and headings there, and (reader)
/// the word being heard on screen and marked under its letters.
@Suite struct PreviewSnapshotTests {
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// The word the reader preview highlights by default: the middle word of page 1 of The Lighthouse Cat.
    static let heardWord: String = {
        let url = TestPaths.stories.appendingPathComponent("the-lighthouse-cat.md")
        let story = try! StoryParser.parse(contentsOf: url, path: url.path).story
        let words = story.pages[0].blocks.filter { if case .picture = $0.kind { false } else { true } }.flatMap { $0.sentences.flatMap(\.words) }
        return words[words.count / 2].text
    }()

    static func run(_ screen: String, _ preset: TextSizePreset, width: Int) throws -> [String] {
        let result = try StoryReaderProcess.run(["preview", screen, "--text-size", preset.rawValue, "--width", "\(width)", "--height", "24"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
    }

    static func compare(_ output: [String], name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        Snapshot.assertMatches(output.joined(separator: "\n") + "\n", named: name + ".txt", in: snapshots, sourceLocation: sourceLocation)
    }

    /// The screen lines; after them the footer (from the line that starts with "— ", wrapped to
    /// the width) says what is shown.
    static func screenLines(_ output: [String], width: Int, preset: TextSizePreset) -> [String] {
        #expect(output.count >= 2)
        let footerStart = output.lastIndex { $0.hasPrefix("— ") } ?? output.count
        let description = output[footerStart...].joined(separator: " ")
        #expect(description.hasPrefix("— \(preset.rawValue)"))
        #expect(description.contains("\(width)×24"))
        if preset.isAccessibilitySize { #expect(description.contains("shown as block letters")) }
        for line in output[footerStart...] { #expect(DisplayWidth.of(line) <= width, "the footer is wider than the terminal: \(line)") }
        let lines = Array(output[..<footerStart])
        #expect(lines.count <= 24)
        for line in lines {
            #expect(DisplayWidth.of(line) <= width, "too wide (\(DisplayWidth.of(line))): \(line)")
            #expect(!line.contains("\u{1B}"))
        }
        return lines
    }

    @Test(arguments: TextSizePreset.allCases, [80, 40])
    func library(_ preset: TextSizePreset, _ width: Int) throws {
        let output = try Self.run("library", preset, width: width)
        let lines = Self.screenLines(output, width: width, preset: preset)
        // The REPL's library for the sample child (age 6): the 8 stories for that age (the
        // favourite is listed twice, in Favourites and in its section, and counted once).
        #expect(lines.first == "Library, 8 stories")
        // The focused profile switcher, a section heading and a card with its state are on screen.
        #expect(lines.contains { $0.contains("❯[Profile: Reader]") })
        #expect(lines.contains { $0.contains("Favourites") })
        #expect(lines.contains { $0.contains("✓ read once, ★ favourite") })
        if preset.isAccessibilitySize { #expect(lines.contains { $0.contains("█") }, "headings not drawn large") }
        try Self.compare(output, name: "library-\(preset.rawValue)-\(width)x24")
    }

    @Test(arguments: TextSizePreset.allCases, [80, 40])
    func reader(_ preset: TextSizePreset, _ width: Int) throws {
        let output = try Self.run("reader", preset, width: width)
        let lines = Self.screenLines(output, width: width, preset: preset)
        #expect(lines.first == "Reading The Lighthouse Cat")
        // The word being heard: marked by ^ under its letters on a normal-size line (it may be
        // broken over two lines at the narrowest widths).
        var marked = ""
        for index in lines.indices.dropFirst() where Self.isCaretLine(lines[index]) {
            let above = lines[index - 1]
            if above.contains(where: { "█▀▄".contains($0) }) || Self.isCaretLine(above) { continue }
            marked += Self.text(of: above, under: lines[index])
        }
        #expect(marked == Self.heardWord, "the word being heard (“\(Self.heardWord)”) is not marked on screen: “\(marked)”")
        if preset.isAccessibilitySize {
            #expect(lines.contains { $0.contains("█") }, "the sentence being heard is not drawn large")
        }
        try Self.compare(output, name: "reader-\(preset.rawValue)-\(width)x24")
    }

    /// Each reading aid on the reader at 80×24 and 40×24, at the default size and the largest.
    @Test(arguments: [["--line-focus", "3"], ["--syllables"], ["--spacing", "wide"]], [TextSizePreset.large, .accessibility5])
    func readerWithAnAid(_ aid: [String], _ preset: TextSizePreset) throws {
        for width in [80, 40] {
            let result = try StoryReaderProcess.run(["preview", "reader", "--text-size", preset.rawValue, "--width", "\(width)", "--height", "24"] + aid)
            #expect(result.status == 0, "\(result.standardError)")
            let output = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
            let lines = Self.screenLines(Array(output), width: width, preset: preset)
            #expect(lines.first == "Reading The Lighthouse Cat")
            var marked = ""
            for index in lines.indices.dropFirst() where Self.isCaretLine(lines[index]) {
                let above = lines[index - 1]
                if above.contains(where: { "█▀▄".contains($0) }) || Self.isCaretLine(above) { continue }
                marked += Self.text(of: above, under: lines[index])
            }
            #expect(marked.replacingOccurrences(of: Syllables.dot, with: "") == Self.heardWord, "\(aid) \(preset) \(width): «\(marked)»")
            let name = aid[0].dropFirst(2) + (aid.count > 1 ? "-" + aid[1] : "")
            try Self.compare(Array(output), name: "reader-\(name)-\(preset.rawValue)-\(width)x24")
        }
    }

    /// Every screen in Spanish, French and German at the default size and the largest, 80×24 and
    /// 40×24: translations run about 30 % longer than English, and each screen must still fit,
    /// its title and the focused item in the language.
    @Test(arguments: ["es", "fr", "de"], [TextSizePreset.large, .accessibility5])
    func screensInEachLanguage(_ language: String, _ preset: TextSizePreset) throws {
        let catalog = LanguageFixtures.languages.catalog(language)
        for screen in ["library", "story", "reader", "help"] {
            for width in [80, 40] {
                let result = try StoryReaderProcess.run(
                    ["preview", screen, "--lang", language, "--text-size", preset.rawValue, "--width", "\(width)", "--height", "24"])
                #expect(result.status == 0, "\(result.standardError)")
                let output = Array(result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast())
                let lines = Self.screenLines(output, width: width, preset: preset)
                let title = lines.first ?? ""
                switch screen {
                case "library": #expect(title == catalog.trn("Library, {count} story", "Library, {count} stories", 8))
                case "reader": #expect(title == catalog.tr("Reading {title}", ["title": "The Lighthouse Cat"]))
                case "help": #expect(lines.contains { $0.contains("❯[" + catalog.tr("Learn mode")) }, "\(lines)")
                default: #expect(lines.contains { $0.contains("❯") }, "no focus on the \(screen) screen")
                }
                try Self.compare(output, name: "\(language)-\(screen)-\(preset.rawValue)-\(width)x24")
            }
        }
    }

    static func isCaretLine(_ line: String) -> Bool {
        line.contains("^") && line.allSatisfy { $0 == "^" || $0 == " " }
    }

    /// The characters of `line` in the columns marked by `^` in `marks`.
    static func text(of line: String, under marks: String) -> String {
        let marked = Set(marks.enumerated().filter { $0.element == "^" }.map(\.offset))
        var column = 0
        var result = ""
        for character in line {
            if marked.contains(column) { result.append(character) }
            column += DisplayWidth.of(character)
        }
        return result
    }
}
