import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The big view (double-size lines or block letters) through the renderer's own model: while a
/// page is read word by word on an 80×24 frame, every word of every sentence is shown big at the
/// moment it is heard, the screen's title row stays, and nothing is wider than the terminal.
@Suite struct LargeTextViewTests {
    static let catalog = SessionFixtures.catalog

    static func story(_ id: String) throws -> Story {
        let url = TestPaths.stories.appendingPathComponent(id + ".md")
        return try StoryParser.parse(contentsOf: url, path: url.path).story
    }

    /// Reads page 1 of `storyID` word by word and checks the big view at each word.
    func readPage(_ storyID: String, size: TextSizePreset, scaling: TextScaling) throws {
        let story = try Self.story(storyID)
        let options = RenderOptions(textSize: size, theme: .highContrastDark, style: TerminalStyle(colors: .trueColor, attributes: true), scaling: scaling)
        var seen: Set<Int> = []
        var word = 0
        while true {
            let index = SessionPreview.wordIndex(in: story, page: 0, word: word)
            if seen.contains(index) { break }
            seen.insert(index)
            let heard = story.words[index]
            let built = SessionPreview.screen(.reader, catalog: Self.catalog, story: story, page: 0, word: word, columns: 80, rows: 24)
            let rendered = ScreenRenderer.render(built.screen, focus: built.focus, options: options, width: 80, height: 16)
            let big = rendered.largeLines.joined(separator: " ")
            // The word being heard is on screen big (its letters, whatever punctuation the view wraps with).
            let letters = heard.text.filter { $0.isLetter || $0.isNumber }
            #expect(
                big.filter { $0.isLetter || $0.isNumber || $0 == " " }.split(separator: " ").contains { $0.contains(letters) },
                "\(storyID) \(size) word \(word) «\(heard.text)» not in the big view: \(rendered.largeLines)")
            #expect(TerminalText.stripEscapes(rendered.lines.first ?? "").hasPrefix("Reading "), "the title row went: \(rendered.lines.first ?? "")")
            word += 1
        }
        #expect(seen.count > 20, "page 1 of \(storyID) has more than 20 words")
    }

    @Test(arguments: [TextSizePreset.accessibility3, .accessibility5])
    func everyWordOfTheMoonStoryIsShownBigWhileHeard(size: TextSizePreset) throws {
        try readPage("the-moon-who-lost-her-hum", size: size, scaling: .decDoubleSize)
        try readPage("the-moon-who-lost-her-hum", size: size, scaling: .none)
    }

    @Test func aLongSentenceIsWrappedWholeNotCut() throws {
        // The sentence the issue saw cut after "the": now its end is drawn big too.
        let story = try Self.story("the-moon-who-lost-her-hum")
        let options = RenderOptions(
            textSize: .accessibility3, theme: .dark, style: TerminalStyle(colors: .trueColor, attributes: true), scaling: .decDoubleSize)
        let last = story.words.firstIndex { $0.text.hasPrefix("hummed") } ?? 0
        let built = SessionPreview.screen(.reader, catalog: Self.catalog, story: story, page: 0, word: last, columns: 80, rows: 24)
        let rendered = ScreenRenderer.render(built.screen, focus: built.focus, options: options, width: 80, height: 16)
        #expect(rendered.largeLines.joined(separator: " ").contains("hummed."), "\(rendered.largeLines)")
        for line in rendered.lines { #expect(DisplayWidth.of(TerminalText.stripEscapes(line)) <= 80) }
    }

    /// Without scalable text, accessibility4–5 draw the tall letters (four rows a line) where the
    /// column holds eight of them, the compact ones (three rows) on a narrow terminal and at 2×.
    @Test(arguments: [(TextSizePreset.accessibility5, 80, 4), (.accessibility4, 80, 4), (.accessibility5, 40, 3), (.accessibility3, 80, 3)])
    func blockLettersAreTallWhereTheyFit(size: TextSizePreset, columns: Int, rowsPerLine: Int) throws {
        let story = try Self.story("the-moon-who-lost-her-hum")
        let options = RenderOptions(textSize: size, theme: .dark, style: .plain, scaling: .none)
        let built = SessionPreview.screen(.reader, catalog: Self.catalog, story: story, page: 0, word: 3, columns: columns, rows: 24)
        let rendered = ScreenRenderer.render(built.screen, focus: built.focus, options: options, width: columns, height: 24)
        let big = try #require(rendered.largeLines.first)
        let font = rowsPerLine == 4 ? BlockFont.tall : BlockFont.compact
        let drawn = font.render(big).map { ("  " + $0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        let lines = rendered.lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        let start = try #require(lines.firstIndex(of: drawn[0]), "«\(big)» is not drawn in the \(rowsPerLine)-row font: \(lines)")
        #expect(Array(lines[start..<min(lines.count, start + rowsPerLine)]) == drawn)
    }

    @Test func everyRowIsPaintedToTheEdgeAndLeavesTheThemeBackgroundSet() {
        let story = try! Self.story("the-moon-who-lost-her-hum")
        for scaling in [TextScaling.decDoubleSize, .none] {
            let options = RenderOptions(
                textSize: .accessibility3, theme: .highContrastDark, style: TerminalStyle(colors: .trueColor, attributes: true), scaling: scaling)
            let built = SessionPreview.screen(.reader, catalog: Self.catalog, story: story, page: 0, word: 3, columns: 80, rows: 24)
            let frame = ScreenFrame(screen: built.screen, focusedID: built.focus, columns: 80, rows: 24)
            let lines = frame.lines(options: options)
            #expect(lines.count == 24, "the frame fills the screen")
            let background = Theme.named(.highContrastDark).background(for: .text).rgb
            let set = "48;2;\(background.red);\(background.green);\(background.blue)m"
            for line in lines {
                // Erasing after the line (EL, ED) uses the background left set: the theme's.
                #expect(!line.hasSuffix("\u{1B}[0m"), "a line ends by resetting to the terminal's colours")
                let last = line.components(separatedBy: "\u{1B}[").last ?? ""
                #expect(last.hasSuffix(set) || last.contains(set), "the last colour set is not the theme's background: \(last)")
                let plain = TerminalText.stripEscapes(line)
                let doubled = line.contains("\u{1B}#3") || line.contains("\u{1B}#4")
                #expect(DisplayWidth.of(plain) * (doubled ? 2 : 1) >= 80, "a row not painted to the right edge: «\(plain)»")
                if scaling == .decDoubleSize, !doubled {
                    #expect(line.hasPrefix("\u{1B}#5"), "a normal row must reset a double-size line left by an earlier frame")
                }
            }
        }
    }
}
