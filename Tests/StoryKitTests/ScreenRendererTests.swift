import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct ScreenRendererTests {
    static let story: Story = {
        let url = TestPaths.stories.appendingPathComponent("the-lighthouse-cat.md")
        return try! StoryParser.parse(contentsOf: url, path: url.path).story
    }()

    /// A reader screen on `page` with the page's word `word` being heard, as the REPL builds it.
    static func reader(page pageIndex: Int = 0, word: Int) -> (Screen, Word) {
        let page = story.pages[pageIndex]
        let words = page.blocks.filter { $0.kind == .paragraph || { if case .heading = $0.kind { true } else { false } }($0) }
            .flatMap { $0.sentences.flatMap(\.words) }
        let current = words[min(word, words.count - 1)]
        var elements = [
            AccessibilityElement(id: "title", label: story.title, traits: .header),
            AccessibilityElement(id: "progress", label: "Progress", value: "page \(pageIndex + 1) of \(story.pages.count), reading"),
        ]
        for (index, block) in page.blocks.enumerated() {
            let highlight = block.range.contains(current.range.start) ? current.range.shifted(by: -block.range.start) : nil
            switch block.kind {
            case .picture:
                elements.append(AccessibilityElement(id: "b\(index)", label: "Picture: " + block.text, traits: .image, content: .picture(art: nil)))
            case .heading:
                elements.append(
                    AccessibilityElement(
                        id: "b\(index)", label: block.text, traits: .header,
                        content: .readingText(text: block.text, highlight: highlight, emphasis: [])))
            case .paragraph:
                elements.append(
                    AccessibilityElement(
                        id: "b\(index)", label: block.text,
                        content: .readingText(text: block.text, highlight: highlight, emphasis: [])))
            }
        }
        for name in ["Pause", "Stop", "Previous sentence", "Next sentence", "Slower", "Faster"] {
            elements.append(AccessibilityElement(id: name.lowercased(), label: name, hint: "Press Enter.", traits: .button))
        }
        return (Screen(kind: .reader, title: "Reading \(story.title)", elements: elements), current)
    }

    static let library = Screen(
        kind: .library, title: "Library, 3 stories",
        elements: [
            AccessibilityElement(id: "profile", label: "Profile: Ana", traits: .button),
            AccessibilityElement(
                id: "young", label: "Ages 3 to 5", value: "contains 2 stories", traits: .header,
                children: [
                    AccessibilityElement(
                        id: "bear", label: "Bedtime for Bear", value: "read once, favourite", hint: "Press Enter to open.",
                        traits: .button, combinesChildren: true, children: [AccessibilityElement(id: "ages", label: "ages 3 to 5")]),
                    AccessibilityElement(id: "pip", label: "Pip and the Puddle", value: "not read yet", traits: .button, combinesChildren: true),
                ]),
            AccessibilityElement(
                id: "older", label: "Ages 4 to 8", value: "contains 1 story", traits: .header,
                children: [
                    AccessibilityElement(id: "dragon", label: "El dragón que tenía hipo", value: "read 3 times", traits: .button, combinesChildren: true)
                ]),
            AccessibilityElement(id: "settings", label: "Settings", traits: .button),
        ])

    static let styles: [TerminalStyle] = [.plain, .monochrome, .trueColor, TerminalStyle(colors: .ansi16, attributes: true)]
    static let scalings: [TextScaling] = [.none, .decDoubleSize, .kittyTextSizing]

    /// For every preset, size, style and scaling: no line too wide, no more lines than rows, the
    /// title first, the word being heard on screen.
    @Test(arguments: TextSizePreset.allCases, [80, 40])
    func readerFitsAndShowsTheWord(_ preset: TextSizePreset, _ width: Int) {
        let pageWords = Self.story.pages[0].blocks.flatMap { $0.sentences.flatMap(\.words) }
        for wordIndex in [0, pageWords.count / 2, pageWords.count - 1] {
            let (screen, word) = Self.reader(word: wordIndex)
            for style in Self.styles {
                // Scaling only matters at the accessibility sizes.
                for scaling in preset.isAccessibilitySize ? Self.scalings : [.none] {
                    let options = RenderOptions(textSize: preset, theme: .default, style: style, scaling: scaling)
                    let rendered = ScreenRenderer.render(screen, focus: "pause", options: options, width: width, height: 24)
                    let context = "\(preset) \(width) \(style) \(scaling) word \(wordIndex) \(word.text)"
                    #expect(rendered.lines.count <= 24, "\(context)")
                    for line in rendered.lines {
                        #expect(TerminalText.visibleWidth(line) <= width, "\(context): \(TerminalText.stripEscapes(line))")
                        #expect(!TerminalText.blinks(line))
                        if !style.attributes { #expect(!line.contains("\u{1B}"), "\(context)") }
                    }
                    #expect(TerminalText.stripEscapes(rendered.lines[0]).hasPrefix("Reading"), "\(context)")
                    guard let row = rendered.highlightLine else {
                        Issue.record("\(context): the word being heard is not on screen")
                        continue
                    }
                    let shown = TerminalText.stripEscapes(rendered.lines[row])
                    // The word may be broken at the end of a narrow line: its start is there.
                    #expect(shown.contains(String(word.text.prefix(4))), "\(context): \(shown)")
                    if !style.attributes {
                        // Marked by ^^^ on the next line, under the word.
                        let marks = rendered.lines[row + 1]
                        #expect(marks.trimmingCharacters(in: .whitespaces).allSatisfy { $0 == "^" } && marks.contains("^"), "\(context)")
                    } else if style.colors == .none {
                        #expect(rendered.lines[row].contains(";7m") || rendered.lines[row].contains(";7;"), "\(context): no reverse video")
                    } else {
                        #expect(rendered.lines[row].contains(";4;"), "\(context): not underlined")
                    }
                }
            }
        }
    }

    @Test func largeTextMethods() {
        let (screen, _) = Self.reader(word: 10)
        func render(_ preset: TextSizePreset, _ scaling: TextScaling, _ style: TerminalStyle = .trueColor) -> RenderedScreen {
            ScreenRenderer.render(screen, focus: nil, options: RenderOptions(textSize: preset, style: style, scaling: scaling), width: 80, height: 24)
        }
        let dec = render(.accessibility2, .decDoubleSize)
        #expect(dec.method == .decDoubleSize)
        #expect(dec.lines.contains { $0.hasPrefix("\u{1B}#3") })
        // Double-size lines come in pairs: the same text, top half then bottom half.
        for (index, line) in dec.lines.enumerated() where line.hasPrefix("\u{1B}#3") {
            #expect(index + 1 < dec.lines.count && dec.lines[index + 1] == "\u{1B}#4" + line.dropFirst(3))
        }
        let kitty = render(.accessibility5, .kittyTextSizing)
        #expect(kitty.method == .kittyTextSizing)
        #expect(kitty.lines.contains { $0.contains("\u{1B}]66;s=3;") })
        #expect(kitty.sizeDescription == "accessibility5, shown at 3×")
        let blocks = render(.accessibility1, .none)
        #expect(blocks.method == .blockLetters)
        #expect(blocks.lines.contains { $0.contains("█") })
        // Without escapes the terminal's scaling cannot be used: block letters.
        #expect(render(.accessibility2, .decDoubleSize, .plain).method == .blockLetters)
        // Normal sizes never scale.
        // (ESC #5, single width, starts each row where the terminal draws double-size lines, so a
        // row left double-size by an earlier, larger frame is reset.)
        #expect(!render(.large, .decDoubleSize).lines.contains { $0.contains("\u{1B}#3") || $0.contains("\u{1B}#4") || $0.contains("\u{1B}#6") })
        #expect(render(.large, .decDoubleSize).lines.allSatisfy { $0.isEmpty || $0.hasPrefix("\u{1B}#5") })
        #expect(!render(.xxxLarge, .none).lines.contains { $0.contains("█") })
    }

    /// Given room, every word of the page is drawn in normal-size text, in order: nothing lost.
    @Test(arguments: TextSizePreset.allCases)
    func noTextLost(_ preset: TextSizePreset) {
        let (screen, _) = Self.reader(word: 0)
        for width in [80, 40] {
            let rendered = ScreenRenderer.render(screen, focus: nil, options: RenderOptions(textSize: preset), width: width, height: 2000)
            let shown = rendered.lines.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for block in Self.story.pages[0].blocks where block.kind == .paragraph {
                let words = block.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                #expect(shown.contains(words), "\(preset) \(width): lost part of “\(block.text.prefix(40))…”")
            }
        }
    }

    @Test func focusAndStateAreNotColourOnly() {
        for style in Self.styles {
            let rendered = ScreenRenderer.render(Self.library, focus: "bear", options: RenderOptions(style: style), width: 40, height: 24)
            let text = rendered.lines.map { String(TerminalText.stripEscapes($0).reversed().drop { $0 == " " }.reversed()) }
            #expect(rendered.focusLine.map { text[$0] } == "❯ Bedtime for Bear")
            #expect(text.contains { $0.contains("✓ read once, ★ favourite") })
            #expect(text.contains { $0.contains("✓ read 3 times") })
            #expect(text.contains { $0.contains("not read yet") && !$0.contains("✓") })
            #expect(text.contains("  Ages 3 to 5 — contains 2 stories"))
            #expect(text.filter { $0.contains("❯") }.count == 1)
        }
        // Moving focus moves the marker.
        let other = ScreenRenderer.render(Self.library, focus: "settings", options: RenderOptions(), width: 40, height: 24)
        #expect(other.lines.contains { $0.contains("❯[Settings]") })
        #expect(!other.lines.contains { $0.contains("❯ Bedtime") })
    }

    @Test func coloursComeFromTheTheme() {
        for name in ThemeName.allCases {
            let theme = Theme.named(name)
            let rendered = ScreenRenderer.render(Self.library, focus: "bear", options: RenderOptions(theme: name, style: .trueColor), width: 40, height: 24)
            let background = theme.background.rgb
            let code = "48;2;\(background.red);\(background.green);\(background.blue)"
            #expect(rendered.lines.allSatisfy { $0.isEmpty || $0.contains(code) }, "\(name): background not painted")
            let focus = theme.foreground(.focus).rgb
            #expect(rendered.lines[rendered.focusLine!].contains("38;2;\(focus.red);\(focus.green);\(focus.blue)"))
            // Every line is painted to the edge.
            #expect(rendered.lines.allSatisfy { $0.isEmpty || TerminalText.visibleWidth($0) == 40 })
        }
        let mono = ScreenRenderer.render(Self.library, focus: "bear", options: RenderOptions(style: .monochrome), width: 40, height: 24)
        #expect(!mono.lines.contains { $0.contains("38;") || $0.contains("48;") })
        #expect(mono.lines[mono.focusLine!].contains("\u{1B}[0;1m"))
    }

    /// The highlighted word stays on screen wherever it is on the page, at the largest size on the smallest screen.
    @Test func everyWordOfAPageStaysOnScreen() {
        let count = Self.story.pages[0].blocks.flatMap { $0.sentences.flatMap(\.words) }.count
        // Every other word (debug builds are slow), all sentences and paragraphs of the page.
        for index in stride(from: 0, to: count, by: 2) {
            let (screen, word) = Self.reader(word: index)
            for preset in index % 8 == 0 ? [TextSizePreset.xSmall, .accessibility5] : [.accessibility5] {
                let rendered = ScreenRenderer.render(screen, focus: nil, options: RenderOptions(textSize: preset), width: 40, height: 24)
                // In the plain text, or — where the big view takes the screen — in a large line.
                let letters = word.text.filter { $0.isLetter || $0.isNumber }
                // (A hyphenated word may wrap over two large lines: compare letters only.)
                let inLargeLine = rendered.largeLines.joined().filter { $0.isLetter || $0.isNumber }.contains(letters)
                #expect(rendered.highlightLine != nil || inLargeLine, "word \(index) “\(word.text)” at \(preset)")
                #expect(rendered.lines.count <= 24)
            }
        }
    }

    @Test func untrustedTextIsSanitized() {
        let screen = Screen(
            kind: .library, title: "Evil\u{1B}[2J title",
            elements: [
                AccessibilityElement(id: "x", label: "Bad\u{1B}]0;pwned\u{07} label", value: "read once"),
                AccessibilityElement(id: "p", label: "p", content: .readingText(text: "Text with \u{1B}[31m escapes\u{9B}.", highlight: nil, emphasis: [])),
            ])
        let rendered = ScreenRenderer.render(screen, focus: nil, options: RenderOptions(style: .plain), width: 80, height: 24)
        #expect(!rendered.lines.joined().unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{07}" })
    }

    @Test func fieldShowsTheCursor() {
        let screen = Screen(
            kind: .profileForm, title: "New profile",
            elements: [
                AccessibilityElement(id: "name", label: "Name", traits: .textField, content: .field(text: "Ana", cursor: 1))
            ])
        let plain = ScreenRenderer.render(screen, focus: "name", options: RenderOptions(style: .plain), width: 40, height: 10)
        #expect(plain.lines.contains("❯ Name: Ana"))
        #expect(plain.lines.contains("         ^"))
    }

    /// The terminal's cursor belongs where a screen reader looks: a text field's insertion point,
    /// a focused item's label (after the ❯), or the word being heard.
    @Test func theCursorIsOnTheInsertionPointAndTheFocus() throws {
        let form = Screen(
            kind: .profileForm, title: "New profile",
            elements: [
                AccessibilityElement(id: "name", label: "Name", traits: .textField, content: .field(text: "Ana", cursor: 1)),
                AccessibilityElement(id: "save", label: "Save", traits: .button),
            ])
        for style in [TerminalStyle.plain, .trueColor] {
            let field = ScreenRenderer.render(form, focus: "name", options: RenderOptions(style: style), width: 40, height: 10)
            let cursor = try #require(field.cursor)
            #expect(cursor.column == 9, "on the n of “Ana” (❯ Name: A|na)")
            #expect(field.focusLine == cursor.line)
        }
        let list = Screen(
            kind: .library, title: "Library",
            elements: [
                AccessibilityElement(id: "a", label: "Story: One", traits: .button),
                AccessibilityElement(id: "b", label: "Story: Two", traits: .button),
            ])
        let rendered = ScreenRenderer.render(list, focus: "b", options: RenderOptions(style: .plain), width: 40, height: 10)
        let cursor = try #require(rendered.cursor)
        let line = Array(rendered.lines[cursor.line])
        #expect(String(line[cursor.column...]).hasPrefix("[Story: Two]"), "on the button as drawn")
    }

    @Test func traitsAreShownInWords() {
        let screen = Screen(
            kind: .settings, title: "Settings",
            elements: [
                AccessibilityElement(id: "size", label: "Text size", value: "accessibility2", traits: .adjustable),
                AccessibilityElement(id: "warn", label: "Problem: no sound card", traits: [.staticText, .warning]),
                AccessibilityElement(id: "off", label: "Voice", traits: [.staticText, .notEnabled]),
                AccessibilityElement(id: "on", label: "Step mode", traits: [.staticText, .selected]),
            ])
        let lines = ScreenRenderer.render(screen, focus: "size", options: RenderOptions(), width: 40, height: 10).lines
        #expect(lines.contains("❯ ◀ Text size: accessibility2 ▶"))
        #expect(lines.contains("  ⚠ Problem: no sound card"))
        #expect(lines.contains("  Voice (not available)"))
        #expect(lines.contains("  Step mode ✓ selected"))
    }

    @Test func stateBadges() {
        #expect(StateBadge.decorate("read once, favourite, started") == "✓ read once, ★ favourite, started")
        #expect(StateBadge.decorate("page 2 of 5, reading") == "page 2 of 5, ▶ reading")
        #expect(StateBadge.decorate("not read yet") == "not read yet")
        #expect(StateBadge.decorate("✓ read once") == "✓ read once")
        #expect(StateBadge.locked.text == "✗ locked")
    }

    /// The symbols follow the words in every language: a Spanish or German value gets the same
    /// ✓ ★ ▶ as an English one, and the renderer's own words come from the screen's language.
    @Test func stateBadgesAndTheRenderersWordsInTheScreensLanguage() {
        let spanish = LanguageFixtures.languages.catalog("es")
        let german = LanguageFixtures.languages.catalog("de")
        #expect(StateBadge.decorate("leída una vez, favorita", messages: spanish) == "✓ leída una vez, ★ favorita")
        #expect(StateBadge.decorate("leída 3 veces, empezada", messages: spanish) == "✓ leída 3 veces, empezada")
        #expect(StateBadge.decorate("21-mal gelesen, Favorit", messages: german) == "✓ 21-mal gelesen, ★ Favorit")
        #expect(StateBadge.decorate("Seite 2 von 5, liest", messages: german) == "Seite 2 von 5, ▶ liest")
        #expect(StateBadge.decorate("noch nicht gelesen", messages: german) == "noch nicht gelesen")
        let elements =
            [
                AccessibilityElement(id: "voice", label: "Stimme", traits: [.staticText, .notEnabled]),
                AccessibilityElement(id: "step", label: "Schrittmodus", traits: [.staticText, .selected]),
            ] + (1...30).map { AccessibilityElement(id: "line\($0)", label: "Zeile \($0)", traits: .staticText) }
        let screen = Screen(kind: .settings, title: "Einstellungen", elements: elements, messages: german)
        let lines = ScreenRenderer.render(screen, focus: "line1", options: RenderOptions(), width: 40, height: 12).lines
        #expect(lines.contains("  Stimme (nicht verfügbar)"))
        #expect(lines.contains("  Schrittmodus ✓ ausgewählt"))
        #expect(lines.contains { $0.hasPrefix("↓ mehr darunter") }, "\(lines)")
        #expect(!lines.joined().contains("more below"))
    }

    @Test func measuringRenderedLines() {
        #expect(TerminalText.visibleWidth("\u{1B}[0;1;38;2;1;2;3mabc\u{1B}[0m") == 3)
        #expect(TerminalText.visibleWidth("\u{1B}#3\u{1B}[0mabc") == 6)
        #expect(TerminalText.visibleWidth("\u{1B}[0m\u{1B}]66;s=3;ab\u{07}c") == 7)
        #expect(TerminalText.stripEscapes("\u{1B}#4\u{1B}[0;7mhi\u{1B}[0m") == "hi")
    }
}

extension ScreenRendererTests {
    /// Wide characters, emoji and combining marks: every preset and method keeps within the width
    /// and keeps the highlighted word on screen.
    @Test(arguments: TextSizePreset.allCases)
    func wideAndCombiningTextFits(_ preset: TextSizePreset) {
        let text = "小さな星は🌟とても恥ずかしがり屋でした。Cafe\u{301} y nin\u{303}os 👩‍🚀 miraban el cielo. 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字の長い単語。"
        let target = text.range(of: "miraban")!
        let start = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: target.lowerBound)
        let screen = Screen(
            kind: .reader, title: "Reading 星の物語 🌟",
            elements: [
                AccessibilityElement(id: "title", label: "星の物語 🌟", traits: .header),
                AccessibilityElement(id: "p", label: text, content: .readingText(text: text, highlight: TextRange(start: start, end: start + 7), emphasis: [])),
            ])
        for width in [80, 40, 20] {
            for scaling in Self.scalings {
                for style in [TerminalStyle.plain, .trueColor] {
                    let rendered = ScreenRenderer.render(
                        screen, focus: nil, options: RenderOptions(textSize: preset, style: style, scaling: scaling), width: width, height: 24)
                    for line in rendered.lines {
                        #expect(TerminalText.visibleWidth(line) <= width, "\(preset) \(width) \(scaling): \(TerminalText.stripEscapes(line))")
                    }
                    let row = rendered.highlightLine.map { TerminalText.stripEscapes(rendered.lines[$0]) } ?? ""
                    #expect(row.contains("mir"), "\(preset) \(width) \(scaling)")
                }
            }
        }
    }
}

extension ScreenRendererTests {
    /// The REPL's frame: screen, captions and command line together fit, and the word being heard stays on screen.
    @Test(arguments: [TextSizePreset.large, .xSmall, .accessibility3, .accessibility5], [80, 40])
    func frameWithCaptions(_ preset: TextSizePreset, _ width: Int) {
        let (screen, word) = Self.reader(word: 40)
        let captions = [
            "Reading The Lighthouse Cat.", "Page 1 of 3.", "A very long caption that goes on and on so that it needs more than one line at forty columns.",
        ]
        for style in [TerminalStyle.plain, .trueColor] {
            let frame = ScreenFrame(screen: screen, focusedID: "pause", captions: captions, commandLine: nil, columns: width, rows: 24)
            let lines = frame.lines(options: RenderOptions(textSize: preset, style: style))
            #expect(lines.count <= 24)
            #expect(lines.allSatisfy { TerminalText.visibleWidth($0) <= width })
            let text = lines.map(TerminalText.stripEscapes)
            #expect(text.contains { $0.hasPrefix("» A very long caption") })
            #expect(text.contains { $0.contains("Tab moves") })
            #expect(text.contains { $0.contains(String(word.text.prefix(4))) })
            let typing = ScreenFrame(screen: screen, focusedID: nil, captions: [], commandLine: "text-size acc", columns: width, rows: 24)
            #expect(
                typing.lines(options: RenderOptions(textSize: preset, style: style)).map(TerminalText.stripEscapes).contains { $0.hasPrefix(":text-size acc▏") }
            )
        }
    }

    /// The reading keys line is shown whole at 40 columns in every language (it once lost its
    /// first keys, "Space pause · ←→ sentence", where it wrapped to three rows).
    @Test(arguments: ["en", "es", "fr", "de"])
    func theReadingKeysAreWholeOnANarrowTerminal(_ language: String) {
        var (screen, _) = Self.reader(word: 40)
        screen.messages = LanguageFixtures.languages.catalog(language)
        let frame = ScreenFrame(
            screen: screen, focusedID: "pause", captions: ["Page 1 of 3."], keyHelp: ScreenFrame.readingKeyHelp,
            columns: 40, rows: 24)
        let lines = frame.lines(options: RenderOptions(textSize: .large, style: .plain)).map(TerminalText.stripEscapes)
        let keys = screen.messages.text(ScreenFrame.readingKeyHelp)
        let wrapped = TextWrap.wrap(keys, width: 40).map(\.text)
        #expect(wrapped.count >= 3, "\(language): \(wrapped)")
        #expect(Array(lines.suffix(wrapped.count)) == wrapped, "\(language): \(lines.suffix(4))")
    }
}

extension ScreenRendererTests {
    /// At any height, a large line is whole: both halves of a double-size line, kitty's rows, and
    /// a row of ^ marks with the line it marks.
    @Test(arguments: [TextScaling.none, .decDoubleSize, .kittyTextSizing])
    func largeLinesAreWhole(_ scaling: TextScaling) {
        let (screen, _) = Self.reader(word: 45)
        for preset in [TextSizePreset.accessibility2, .accessibility5] {
            for height in 6...24 {
                let style: TerminalStyle = scaling == .none ? .plain : .trueColor
                let lines = ScreenRenderer.render(
                    screen, focus: nil, options: RenderOptions(textSize: preset, style: style, scaling: scaling), width: 40, height: height
                ).lines
                let context = "\(preset) \(scaling) height \(height)"
                for (index, line) in lines.enumerated() {
                    if line.hasPrefix("\u{1B}#3") {
                        #expect(index + 1 < lines.count && lines[index + 1].hasPrefix("\u{1B}#4"), "\(context): top half alone")
                    }
                    if line.hasPrefix("\u{1B}#4") {
                        #expect(index > 0 && lines[index - 1].hasPrefix("\u{1B}#3"), "\(context): bottom half alone")
                    }
                    if line.contains("]66;s=3;") {
                        // The rows kitty's scaled text covers carry no text of their own (only the theme's colour).
                        #expect(
                            index + 2 < lines.count && TerminalText.stripEscapes(lines[index + 1]).isEmpty
                                && TerminalText.stripEscapes(lines[index + 2]).isEmpty,
                            "\(context): kitty rows cut")
                    }
                    if PreviewLike.isCaretLine(line) {
                        #expect(
                            index > 0 && !PreviewLike.isCaretLine(lines[index - 1]) && !lines[index - 1].trimmingCharacters(in: .whitespaces).isEmpty,
                            "\(context): marks without their line")
                    }
                }
            }
        }
    }

    enum PreviewLike {
        static func isCaretLine(_ line: String) -> Bool { line.contains("^") && line.allSatisfy { $0 == "^" || $0 == " " } }
    }
}
