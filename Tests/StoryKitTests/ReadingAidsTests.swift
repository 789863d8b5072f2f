import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// Reading aids: line focus, syllables and wide spacing on the reader's screen (speech never
/// changes), and a word on demand (`e`) with word-by-word moves while paused.
@Suite struct ReadingAidsTests {
    /// Drawing only looks up loaded patterns (it reads no file): the shell loads them first, as here.
    init() { for language in ["en", "es", "fr", "de"] { Syllables.preload(language) } }

    static let catalog = SessionFixtures.catalog

    static func story(_ id: String) throws -> Story {
        let url = TestPaths.stories.appendingPathComponent(id + ".md")
        return try StoryParser.parse(contentsOf: url, path: url.path).story
    }

    /// The Lighthouse Cat's reader at word 40 of page 1, rendered with `aids`.
    static func render(
        _ aids: ReadingAids, theme: ThemeName = .default, style: TerminalStyle = .plain, size: TextSizePreset = .large,
        columns: Int = 80, rows: Int = 24
    ) throws -> (RenderedScreen, Story, Int) {
        let story = try story("the-lighthouse-cat")
        let built = SessionPreview.screen(.reader, catalog: catalog, story: story, page: 0, word: 40, columns: columns, rows: rows)
        let options = RenderOptions(textSize: size, theme: theme, style: style, scaling: .none, aids: aids, language: story.language)
        let word = SessionPreview.wordIndex(in: story, page: 0, word: 40)
        return (ScreenRenderer.render(built.screen, focus: built.focus, options: options, width: columns, height: rows), story, word)
    }

    /// Lines of story text: indented, not a `^` row, not the footer or the buttons.
    static func storyLines(_ lines: [String]) -> [String] {
        lines.dropFirst().filter { $0.hasPrefix("  ") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("^") && !$0.contains("Progress:") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(arguments: [LineFocus.one, .three, .five])
    func lineFocusShowsOnlyTheLinesAroundTheWordBeingHeard(focus: LineFocus) throws {
        let (plain, story, heard) = try Self.render(.off)
        let (focused, _, _) = try Self.render(ReadingAids(lineFocus: focus))
        #expect(plain.lines.count == focused.lines.count, "nothing moves: a hidden line keeps its row")
        let shown = Self.storyLines(focused.lines).filter { !$0.isEmpty }
        #expect(shown.count == focus.lines!, "\(shown)")
        // The line with the word being heard is one of them, marked as before.
        let heardLine = try #require(plain.highlightLine)
        #expect(focused.lines[heardLine] == plain.lines[heardLine])
        #expect(focused.lines[heardLine].contains(story.words[heard].text.filter(\.isLetter)))
        // The shown lines are neighbours in the text: the plain screen has them in the same order.
        let all = Self.storyLines(plain.lines).filter { !$0.isEmpty }
        let start = try #require(all.firstIndex(of: shown[0]))
        #expect(Array(all[start..<start + shown.count]) == shown)
    }

    /// With colours the other lines are drawn in a dimmed colour; the focused lines keep the
    /// theme's text colour and its contrast (≥ 4.5:1, ≥ 7:1 in high contrast). High-contrast
    /// themes never lower a contrast: there the other lines are blank.
    @Test(arguments: ThemeName.allCases)
    func dimmedLinesAndTheContrastOfTheFocusedOnes(theme: ThemeName) throws {
        let style = TerminalStyle(colors: .trueColor, attributes: true)
        let (screen, _, _) = try Self.render(ReadingAids(lineFocus: .one), theme: theme, style: style)
        let colours = Theme.named(theme)
        func sgr(_ color: ThemeColor) -> String { "38;2;\(color.rgb.red);\(color.rgb.green);\(color.rgb.blue)" }
        let heard = try #require(screen.highlightLine)
        let required = theme.isHighContrast ? Contrast.enhancedText : Contrast.minimumText
        #expect(screen.lines[heard].contains(sgr(colours.foreground(.text))))
        #expect(Contrast.ratio(colours.foreground(.text).rgb, colours.background.rgb) >= required)
        let plainText = screen.lines.map(TerminalText.stripEscapes)
        let storyRows = plainText.indices.dropFirst().filter {
            plainText[$0].hasPrefix("  ") && $0 != heard && screen.lines[$0].contains(sgr(colours.dimmedText))
        }
        if theme.isHighContrast {
            #expect(storyRows.isEmpty, "no dimmed text in \(theme)")
            #expect(Self.storyLines(plainText).filter { !$0.isEmpty }.count == 1)
        } else {
            #expect(storyRows.count >= 3, "the other lines are dimmed in \(theme)")
            let dimmed = Contrast.ratio(colours.dimmedText.rgb, colours.background.rgb)
            #expect(dimmed < Contrast.ratio(colours.foreground(.text).rgb, colours.background.rgb) / 1.8, "dimmed lines recede (\(dimmed):1)")
            #expect(dimmed >= 1.8, "and can still be made out (\(dimmed):1)")
        }
        // Without colour (NO_COLOR), faint.
        let (faint, _, _) = try Self.render(ReadingAids(lineFocus: .one), style: TerminalStyle(colors: .none, attributes: true))
        #expect(faint.lines.contains { $0.contains("\u{1B}[0;2m") })
    }

    @Test func syllablesAreDottedAndTheHighlightStaysOnTheWord() throws {
        let (plain, _, _) = try Self.render(.off)
        let (dotted, story, heard) = try Self.render(ReadingAids(syllables: true))
        let text = Self.storyLines(dotted.lines).joined(separator: " ")
        #expect(text.contains("light·house"), "\(text)")
        #expect(text.contains("ev·ery") || text.contains("Ev·ery"), "\(text)")
        // Without the dots the words are the same words.
        let undotted = text.replacingOccurrences(of: Syllables.dot, with: "").split(separator: " ")
        let original = Self.storyLines(plain.lines).joined(separator: " ").split(separator: " ")
        #expect(undotted == original)
        // The ^ marks sit under the word being heard, dots and all.
        let line = try #require(dotted.highlightLine)
        let marks = dotted.lines[line + 1]
        let start = try #require(marks.firstIndex(of: "^"))
        let marked = String(dotted.lines[line][start...].prefix(marks[start...].filter { $0 == "^" }.count))
        #expect(marked.replacingOccurrences(of: Syllables.dot, with: "") == story.words[heard].text, "«\(marked)»")
    }

    @Test func wideSpacingPutsABlankLineBetweenLinesAndTwoSpacesBetweenWords() throws {
        let (wide, story, heard) = try Self.render(ReadingAids(spacing: .wide))
        let rows = wide.lines.dropFirst().prefix { !$0.hasPrefix("↑") && !$0.hasPrefix("↓") }
        let textRows = rows.indices.filter { rows[$0].hasPrefix("  ") && !rows[$0].trimmingCharacters(in: .whitespaces).isEmpty && !rows[$0].contains("^") }
        #expect(textRows.count >= 3)
        for (a, b) in zip(textRows, textRows.dropFirst()) { #expect(b - a >= 2, "a blank line between lines") }
        for index in textRows {
            let words = rows[index].trimmingCharacters(in: .whitespaces)
            #expect(!words.contains { $0 == " " } || words.contains("  "), "two spaces between words: «\(words)»")
            #expect(!words.replacingOccurrences(of: "  ", with: "").contains(" "), "never one: «\(words)»")
        }
        let line = try #require(wide.highlightLine)
        let marks = wide.lines[line + 1]
        let start = try #require(marks.firstIndex(of: "^"))
        #expect(wide.lines[line][start...].hasPrefix(story.words[heard].text))
    }

    /// Every aid at once still fits at 80×24 and 40×24 at every text size, with the word heard on screen.
    @Test(arguments: TextSizePreset.allCases)
    func everyAidFitsAtEverySize(size: TextSizePreset) throws {
        for columns in [80, 40] {
            let (screen, story, heard) = try Self.render(ReadingAids(lineFocus: .three, syllables: true, spacing: .wide), size: size, columns: columns)
            #expect(screen.lines.count <= 24)
            for line in screen.lines { #expect(DisplayWidth.of(line) <= columns, "\(size) \(columns): «\(line)»") }
            let letters = story.words[heard].text.filter(\.isLetter)
            let shown = screen.lines.joined(separator: " ").replacingOccurrences(of: Syllables.dot, with: "")
            #expect(shown.contains(letters) || !screen.largeLines.isEmpty, "\(size) \(columns): the word heard")
        }
    }

    // MARK: A word on demand

    func reading() -> Session {
        var session = Session(catalog: Self.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("lighthouse")))
        _ = session.handle(.narration(.sentenceStarted(1)))
        return session
    }

    func said(_ effects: [Effect]) -> [(Utterance, SpeechSettings)] {
        effects.compactMap { if case .speakWith(let utterance, let settings) = $0 { (utterance, settings) } else { nil } }
    }

    @Test func explainSaysTheWordSlowlySpellsItShowsItBigAndReadsOn() throws {
        var session = reading()
        let story = session.state.reader!.story
        let index = try #require(story.words.firstIndex { $0.text == "lighthouse" })
        _ = session.handle(.narration(.word(index)))
        let effects = session.handle(.key(.character("e")))
        #expect(effects.first == .pauseNarration)
        let spoken = said(effects)
        try #require(spoken.count == 2)
        #expect(spoken[0].0.text == "lighthouse")
        #expect(spoken[0].1.rate == session.state.profile.speech.rate * 6 / 10, "slowly")
        #expect(spoken[0].1.voice == "en", "in the story's voice")
        #expect(spoken[1].0.spelling == "lighthouse")
        #expect(spoken[1].0.text == "l, i, g, h, t, h, o, u, s, e.")
        // Then the story goes on from that word, held in the speech service while it was explained.
        #expect(effects.last { if case .resumeNarration = $0 { true } else { false } } != nil)
        #expect(session.state.reader?.wordIndex == index)
        #expect(session.state.reader?.status == .playing)
        // Shown big with its syllables until the reading moves past it.
        let screen = session.screen
        let big = try #require(screen.elements.first { $0.id == "explained-word" })
        #expect(big.content == .bigWord("light·house"))
        #expect(big.label == "‘light·house’, spelled l i g h t h o u s e")
        _ = session.handle(.narration(.word(index)))
        #expect(session.screen.elements.contains { $0.id == "explained-word" })
        _ = session.handle(.narration(.word(index + 1)))
        #expect(!session.screen.elements.contains { $0.id == "explained-word" })
    }

    @Test func whilePausedTheArrowsMoveWordByWordAndSayTheWord() throws {
        var session = reading()
        let start = session.state.reader!.wordIndex
        let words = session.state.reader!.story.words
        #expect(session.handle(.key(.space)).contains(.pauseNarration))
        let next = session.handle(.key(.right))
        #expect(said(next).map(\.0.text) == [Session.bare(words[start + 1].text)])
        #expect(session.state.reader?.wordIndex == start + 1)
        #expect(session.state.reader?.status == .paused, "still paused")
        _ = session.handle(.key(.left))
        _ = session.handle(.key(.left))
        #expect(session.state.reader?.wordIndex == start - 1)
        // Space goes on from the word reached.
        let resumed = session.handle(.key(.space))
        #expect(resumed.contains { if case .narrate(_, let word, _, _) = $0 { word == start - 1 } else { false } })
        // Playing, the typed command says how to use it.
        let playing = session.handle(.command(.nextWord))
        #expect(playing.contains { if case .speak(let utterance) = $0 { utterance.text.contains("press Space to pause first") } else { false } })
    }

    @Test func theFirstWordHasNoWordBeforeIt() {
        var session = reading()
        _ = session.handle(.key(.space))
        var answers: [String] = []
        for _ in 0..<100 where !answers.contains("Top: this is the first word.") {
            answers += session.handle(.key(.left)).compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
        }
        #expect(answers.contains("Top: this is the first word."))
        #expect(session.state.reader?.wordIndex == 0)
    }

    /// The spelled word is synthesised letter by letter: far longer than the word said once.
    @Test func aSpelledWordIsSaidLetterByLetter() throws {
        func samples(_ utterance: SpeechUtterance) throws -> Int {
            let count = Atomic<Int>(0)
            _ = try EspeakEngine.shared.synthesize(utterance, stop: nil) { chunk in
                count.add(chunk.samples.count, ordering: .relaxed)
                return .proceed
            }
            return count.load(ordering: .relaxed)
        }
        let settings = SpeechSettings(rate: 175, pitch: 50, volume: 100, voice: "en")
        let word = try samples(SpeechUtterance(text: "lighthouse", settings: settings))
        let spelled = try samples(
            SpeechUtterance(
                text: "<speak><say-as interpret-as=\"characters\">\(Narration.ssmlText("lighthouse"))</say-as></speak>",
                settings: settings, encoding: .ssml))
        #expect(word > 5_000)
        #expect(spelled > word * 2, "10 letters named one by one: \(spelled) samples against \(word)")
        // …and as long as the espeak-ng command takes to name the ten letters one by one
        // ("l i g h t h o u s e"; measured: 48,801 samples against 46,674).
        let espeak = try #require(ExternalProcess.find("espeak-ng"), "espeak-ng is missing: scripts/setup.sh --test installs it")
        let folder = try TemporaryFolder("spelled")
        defer { folder.remove() }
        let wav = folder.url.appendingPathComponent("letters.wav").path
        let letters = "lighthouse".map { String($0) }.joined(separator: " ")
        let run = try ExternalProcess.run(espeak, ["-v", "en", "-w", wav, letters], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "\(run.standardError)")
        let named = try WAVSamples.read(wav).count
        #expect(abs(Double(spelled) / Double(named) - 1) < 0.1, "spelled \(spelled) samples, the letters named one by one \(named)")
    }

    // MARK: Settings

    /// The aids are pickers: on the settings screen (in a kiosk too) Right and Left step through
    /// their values and say them; in the profile form Right steps and a first letter jumps; a
    /// saved form carries them to the store.
    @Test(arguments: [false, true])
    func theAidsArePickersInSettingsAndTheProfileForm(kiosk: Bool) throws {
        var session = Session(catalog: Self.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
        if kiosk { session.startKiosk(KioskOptions(), now: 1000) }
        _ = session.start()
        _ = session.handle(.command(.settings))
        #expect(session.state.route == .settings)
        func said(_ effects: [Effect]) -> String {
            effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }.joined(separator: " ")
        }
        session.state.focusedID = try #require(session.screen.elements.first { $0.label == "Line focus" }?.id)
        #expect(said(session.handle(.key(.right))).contains("1 line"))
        #expect(said(session.handle(.key(.right))).contains("3 lines"))
        session.state.focusedID = try #require(session.screen.elements.first { $0.label == "Syllables" }?.id)
        #expect(said(session.handle(.key(.right))).contains("on"))
        session.state.focusedID = try #require(session.screen.elements.first { $0.label == "Spacing" }?.id)
        #expect(said(session.handle(.key(.right))).contains("wide"))
        #expect(session.state.profile.settings.aids == ReadingAids(lineFocus: .three, syllables: true, spacing: .wide))
        _ = session.handle(.key(.left))
        #expect(session.state.profile.settings.aids.spacing == .normal)
        guard !kiosk else { return }

        // The profile form (Edit profile, from the settings): the same aids as pickers, starting
        // from what the settings just chose (3 lines, syllables on, normal spacing).
        session.state.focusedID = "edit-profile"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        session.state.focusedID = "field-" + ProfileField.lineFocus.rawValue
        #expect(said(session.handle(.key(.right))).hasPrefix("5, 4 of 4."))
        #expect(said(session.handle(.key(.right))).hasPrefix("5, 4 of 4. That is the last."))
        #expect(said(session.handle(.key(.left))).hasPrefix("3, 3 of 4."))
        session.state.focusedID = "field-" + ProfileField.spacing.rawValue
        #expect(said(session.handle(.key(.character("w")))).hasPrefix("wide, 2 of 2."))
        session.state.focusedID = "field-" + ProfileField.syllables.rawValue
        #expect(said(session.handle(.key(.left))).hasPrefix("off, 1 of 2."), "off comes first: Left turns a switch off, Right on")
        session.state.focusedID = "save"
        let saved = session.handle(.command(.activate))
        let profile = try #require(saved.compactMap { if case .save(.saveProfile(let profile)) = $0 { profile } else { nil } }.first)
        #expect(profile.name == "Maya")
        #expect(profile.settings.aids == ReadingAids(lineFocus: .three, syllables: false, spacing: .wide))
    }

    @Test func theAidsAreSettingsAChildMayChangeInAKiosk() throws {
        var session = Session(catalog: Self.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
        session.startKiosk(KioskOptions(), now: 1000)
        _ = session.start()
        _ = session.handle(.command(.set(name: "line-focus", value: "3")))
        _ = session.handle(.command(.set(name: "syllables", value: "on")))
        _ = session.handle(.command(.set(name: "spacing", value: "wide")))
        #expect(session.state.profile.settings.aids == ReadingAids(lineFocus: .three, syllables: true, spacing: .wide))
        let refused = session.handle(.command(.set(name: "line-focus", value: "7")))
        #expect(refused.contains { if case .speak(let utterance) = $0 { utterance.text.contains("Choose off, 1, 3 or 5") } else { false } })
        #expect(Screens.settingValue(.lineFocus, session.state.profile) == "3 lines")
    }

    @Test func commandLineAidsHoldForTheRunAndAreNeverSaved() {
        var session = Session(catalog: Self.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
        session.overridePresentation(textSize: nil, theme: nil, motion: nil, lineFocus: .one, syllables: true, spacing: nil)
        _ = session.start()
        #expect(session.state.profile.settings.aids == ReadingAids(lineFocus: .one, syllables: true))
        #expect(session.state.storedProfile.settings.aids == .off)
    }
}
