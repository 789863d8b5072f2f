import ArgumentParser
import Foundation
import StoryKit

/// `storyreader preview SCREEN`: a screen drawn exactly as the program would draw it, so layouts
/// can be checked by people and by tests.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Print a screen (library, reader, story, help) as it would be drawn.",
        discussion: """
            Prints the screen's lines (at most --height of them), then one line saying what is \
            really shown: the text size and how it is drawn (for example "accessibility2, shown as \
            block letters"), the theme, the size and the motion setting.

            Colour follows --color, NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR and TERM=dumb; on a pipe \
            the lines are plain and the word being heard is marked with ^^^ on the line below. \
            --scaling chooses how large text is drawn: auto asks the terminal (safely, with a \
            timeout), none uses block letters, dec double-size lines, kitty OSC 66.

            Examples:
              storyreader preview library --width 40
              storyreader preview reader --text-size accessibility3 --theme high-contrast-dark --color always
            """
    )

    enum ScreenName: String, ExpressibleByArgument, CaseIterable {
        case library, reader, story, help
    }

    enum ScalingChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, none, dec, kitty
    }

    enum EffectChoice: String, ExpressibleByArgument, CaseIterable {
        case reveal, turn, celebrate, loading
    }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var presentation: PresentationOptions

    @Argument(help: ArgumentHelp("The screen: library, reader, story or help.", valueName: "screen"))
    var screen: ScreenName

    @Option(help: ArgumentHelp("Columns (default: COLUMNS, else the terminal's width).", valueName: "columns"))
    var width: Int?

    @Option(help: ArgumentHelp("Rows (default: LINES, else the terminal's height, else 24).", valueName: "rows"))
    var height: Int?

    @Option(help: ArgumentHelp("The story for the reader and story screens (an id, a title or a unique prefix).", valueName: "story"))
    var story: String = "the-lighthouse-cat"

    @Option(help: ArgumentHelp("The reader's page, from 1.", valueName: "number"))
    var page: Int = 1

    @Option(help: ArgumentHelp("The word being heard on the reader's page, from 1 (default: the middle word).", valueName: "number"))
    var word: Int?

    @Option(help: ArgumentHelp("The focused element's id (default: the screen's usual focus).", valueName: "id"))
    var focus: String?

    @Option(help: ArgumentHelp("How large text is drawn: auto, none (block letters), dec, kitty.", valueName: "method"))
    var scaling: ScalingChoice = .auto

    @Option(help: ArgumentHelp(
        "Play an effect instead: reveal (a new page), turn (to the next page), celebrate (a story finished), loading. With reduced motion each is one static frame.",
        valueName: "effect"))
    var effect: EffectChoice?

    func validate() throws {
        if let width, !(12...1000).contains(width) { throw ValidationError("--width \(width) is out of range: use 12 to 1000 columns") }
        if let height, !(4...1000).contains(height) { throw ValidationError("--height \(height) is out of range: use 4 to 1000 rows") }
        if page < 1 { throw ValidationError("--page \(page) is out of range: pages count from 1") }
        if let word, word < 1 { throw ValidationError("--word \(word) is out of range: words count from 1") }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let isTTY = isatty(STDOUT_FILENO) == 1
        let style = presentation.terminalStyle(environment: environment, isTTY: isTTY)
        let motion = presentation.motionPolicy(environment: environment, isTTY: isTTY)
        let capabilities: TerminalCapabilities = switch scaling {
        case .none: TerminalCapabilities(scaling: .none, reason: "--scaling none")
        case .dec: TerminalCapabilities(scaling: .decDoubleSize, reason: "--scaling dec")
        case .kitty: TerminalCapabilities(scaling: .kittyTextSizing, reason: "--scaling kitty")
        case .auto: TerminalCapabilities.detect(environment: environment, isTTY: isTTY)
        }
        let scalingSupport = capabilities.scaling
        let columns = width ?? Output.terminalWidth()
        let rows = height ?? environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 24

        let library = global.loadLibrary()
        let built: (screen: Screen, focus: String?)
        switch screen {
        case .library:
            if library.entries.isEmpty { throw UserFailure(message: "no stories were found: name a folder with --stories DIR") }
            built = PreviewScreens.library(library)
        case .reader:
            let story = try global.resolveStory(self.story, in: library)
            guard page <= story.pages.count else {
                throw UserFailure(message: "“\(story.title)” has \(story.pages.count) pages: choose --page 1 to \(story.pages.count)")
            }
            built = PreviewScreens.reader(story, page: page - 1, word: word.map { $0 - 1 })
        case .story:
            let story = try global.resolveStory(self.story, in: library)
            built = PreviewScreens.story(story)
        case .help:
            built = PreviewScreens.help()
        }
        let options = RenderOptions(textSize: presentation.textSizePreset(), theme: presentation.themeName(), style: style, scaling: scalingSupport)
        let rendered = ScreenRenderer.render(built.screen, focus: focus ?? built.focus, options: options, width: columns, height: rows)
        if let effect {
            try play(effect, rendered: rendered, built: built, options: options, motion: motion, columns: columns, rows: rows, isTTY: isTTY)
            return
        }
        var output = rendered.lines.joined(separator: "\n") + "\n"
        let pageLines = rendered.lines.map(TerminalText.stripEscapes)
        let reveal = motion.frames(for: .pageReveal(lines: pageLines), width: columns).count
        let motionText = motion.isReducedMotion ? "reduced motion: on, no animation" : "reduced motion: off, a new page is revealed in \(reveal) frames"
        output += "— \(rendered.sizeDescription) · theme \(options.theme.rawValue) · \(columns)×\(rows) · \(motionText) · terminal: \(capabilities.reason)\n"
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

extension PreviewCommand {
    /// Plays an effect's frames: on a terminal drawn in place with their delays; on a pipe each
    /// frame printed in turn, followed by a line `— frame K`, so they can be counted.
    func play(_ effect: EffectChoice, rendered: RenderedScreen, built: (screen: Screen, focus: String?), options: RenderOptions,
              motion: MotionPolicy, columns: Int, rows: Int, isTTY: Bool) throws {
        let motionEffect: MotionEffect
        switch effect {
        case .reveal:
            motionEffect = .pageReveal(lines: rendered.lines)
        case .turn:
            // From the reader's page to the next one (or the story card when there is none).
            let library = global.loadLibrary(reportProblems: false)
            let story = try global.resolveStory(self.story, in: library)
            let next = page < story.pages.count ? PreviewScreens.reader(story, page: page, word: 0) : PreviewScreens.story(story)
            let to = ScreenRenderer.render(next.screen, focus: next.focus, options: options, width: columns, height: rows).lines
            motionEffect = .pageTurn(from: rendered.lines, to: to)
        case .celebrate:
            let library = global.loadLibrary(reportProblems: false)
            motionEffect = .celebration(title: (try? global.resolveStory(self.story, in: library).title) ?? "the story")
        case .loading:
            motionEffect = .loading(label: "Loading stories")
        }
        let frames = motion.frames(for: motionEffect, width: columns)
        let interactive = isTTY && options.style.attributes
        var written = 0
        if interactive, let cursor = motion.cursorStyle { FileHandle.standardOutput.write(Data(cursor.utf8)) }
        motion.play(frames, write: { lines in
            written += 1
            let text: String
            if interactive {
                text = "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n")
            } else {
                text = lines.joined(separator: "\n") + "\n— frame \(written)\n"
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }, sleep: { milliseconds in
            if interactive { usleep(useconds_t(milliseconds) * 1000) }
        })
        if interactive { FileHandle.standardOutput.write(Data("\r\n".utf8)) }
    }
}

/// Screens for `preview`, built from the bundled stories with the real accessibility model.
/// (When the REPL's own screen builders land, preview switches to them.)
enum PreviewScreens {
    /// The library: a profile button, sections by age with story cards, settings and help.
    static func library(_ library: StoryLibrary) -> (screen: Screen, focus: String?) {
        let entries = library.entries
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "switch-profile", label: "Profile: Guest", hint: "Press Enter to change profile.", traits: .button),
        ]
        // Some states, so that the symbols show: the first story read and a favourite, one read
        // three times, one started.
        func value(_ index: Int) -> String {
            switch index {
            case 0: "read once, favourite"
            case 1: "read 3 times"
            case 2: "not read yet, started"
            default: "not read yet"
            }
        }
        let positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.id, $0) })
        let bands = Dictionary(grouping: entries) { $0.ages }
        let ordered = bands.keys.sorted { ($0?.lower ?? 99, $0?.upper ?? 99) < ($1?.lower ?? 99, $1?.upper ?? 99) }
        var firstCard: String?
        for band in ordered {
            let stories = bands[band] ?? []
            let sectionID = "ages-" + (band?.description ?? "all")
            let cards = stories.map { entry -> AccessibilityElement in
                let details = AccessibilityElement(id: "ages", label: entry.ages.map { "ages \($0.lower) to \($0.upper)" } ?? "all ages")
                let id = sectionID + "/" + entry.id
                if firstCard == nil { firstCard = id }
                return AccessibilityElement(
                    id: id, label: entry.title, value: value(positions[entry.id] ?? 99), hint: "Press Enter to open.",
                    traits: .button,
                    customActions: [CustomAction(id: "read", name: "Read"), CustomAction(id: "save", name: "Save to favourites")],
                    combinesChildren: true, children: [details])
            }
            let title = band.map { $0.lower == $0.upper ? "Age \($0.lower)" : "Ages \($0.lower) to \($0.upper)" } ?? "All ages"
            elements.append(AccessibilityElement(id: sectionID, label: title,
                                                 value: stories.count == 1 ? "contains 1 story" : "contains \(stories.count) stories",
                                                 traits: .header, children: cards))
        }
        elements.append(AccessibilityElement(id: "settings", label: "Settings", hint: "Press Enter to change voice, speed and text size.", traits: .button))
        elements.append(AccessibilityElement(id: "help", label: "Help", hint: "Press Enter to learn the keys.", traits: .button))
        let count = entries.count
        return (Screen(kind: .library, title: "Library, \(count == 1 ? "1 story" : "\(count) stories")", elements: elements), firstCard)
    }

    /// The reader on `page` of `story`, with word `word` of that page (default: the middle one) being heard.
    static func reader(_ story: Story, page pageIndex: Int, word: Int?) -> (screen: Screen, focus: String?) {
        let page = story.pages[pageIndex]
        let pageWords = page.blocks.filter { if case .picture = $0.kind { false } else { true } }.flatMap { $0.sentences.flatMap(\.words) }
        let current = pageWords.isEmpty ? nil : pageWords[min(word ?? pageWords.count / 2, pageWords.count - 1)]
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: story.title, traits: .header, sortPriority: 2),
            AccessibilityElement(id: "progress", label: "Progress", value: "page \(pageIndex + 1) of \(story.pages.count), reading",
                                 traits: [.staticText, .updatesFrequently], sortPriority: 2),
        ]
        for (index, block) in page.blocks.enumerated() {
            let highlight: TextRange? = current.flatMap { word in
                block.range.contains(word.range.start) ? word.range.shifted(by: -block.range.start) : nil
            }
            switch block.kind {
            case .heading:
                elements.append(AccessibilityElement(id: "block-\(index)", label: block.text, traits: .header,
                                                     content: .readingText(text: block.text, highlight: highlight, emphasis: [])))
            case .paragraph:
                elements.append(AccessibilityElement(id: "block-\(index)", label: block.text,
                                                     content: .readingText(text: block.text, highlight: highlight,
                                                                           emphasis: block.emphasis.map { $0.shifted(by: -block.range.start) })))
            case .picture:
                elements.append(AccessibilityElement(id: "block-\(index)", label: "Picture: " + block.text, traits: .image, content: .picture(art: nil)))
            }
        }
        let controls: [(String, String, String?)] = [
            ("play", "Pause", "Press Enter to pause."), ("stop", "Stop", "Press Enter to stop and go back."),
            ("previous-sentence", "Previous sentence", nil), ("next-sentence", "Next sentence", nil),
            ("slower", "Slower", nil), ("faster", "Faster", nil),
        ]
        for (id, label, hint) in controls {
            elements.append(AccessibilityElement(id: id, label: label, hint: hint, traits: .button, sortPriority: 1))
        }
        return (Screen(kind: .reader, title: "Reading \(story.title)", elements: elements), "play")
    }

    /// One story's card: title, author, length, summary, actions, pictures.
    static func story(_ story: Story) -> (screen: Screen, focus: String?) {
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: story.title, value: "read once", traits: .header),
        ]
        if let author = story.author { elements.append(AccessibilityElement(id: "author", label: "by \(author)")) }
        elements.append(AccessibilityElement(id: "length", label: "Length",
                                             value: "\(story.wordCount) words, \(story.pages.count == 1 ? "1 page" : "\(story.pages.count) pages")"))
        if let summary = story.summary { elements.append(AccessibilityElement(id: "summary", label: summary)) }
        elements.append(AccessibilityElement(id: "read", label: "Read", hint: "Press Enter to read from the beginning.", traits: .button))
        elements.append(AccessibilityElement(id: "save", label: "Save to favourites", hint: "Press Enter to change.", traits: .button))
        for (index, picture) in story.pictures.enumerated() {
            elements.append(AccessibilityElement(id: "picture-\(index)", label: "Picture: " + picture.text, traits: .image, content: .picture(art: nil)))
        }
        return (Screen(kind: .story, title: story.title, elements: elements), "read")
    }

    static func help() -> (screen: Screen, focus: String?) {
        let keys: [(String, String)] = [
            ("Arrows or Tab", "move between things"), ("Enter", "choose"), ("Space", "pause or go on reading"),
            ("Escape", "go back"), (":", "type a command, such as :help or :text-size accessibility2"),
        ]
        var elements: [AccessibilityElement] = [AccessibilityElement(id: "heading", label: "Keys", traits: .header)]
        for (index, key) in keys.enumerated() {
            elements.append(AccessibilityElement(id: "key-\(index)", label: key.0, value: key.1))
        }
        elements.append(AccessibilityElement(id: "back", label: "Back", hint: "Press Enter to go back.", traits: .button))
        return (Screen(kind: .help, title: "Help", elements: elements), "back")
    }
}
