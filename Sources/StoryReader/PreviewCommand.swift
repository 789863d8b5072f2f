import ArgumentParser
import Foundation
import StoryKit

/// `storyreader preview SCREEN`: a screen drawn exactly as the program would draw it, so layouts
/// can be checked by people and by tests.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: helpMessages.tr("Print a screen (library, reader, story, help) as it would be drawn."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "Prints the screen's lines (at most --height of them), then one line saying what is really shown: the text size and how it is drawn (for example \"accessibility2, shown as block letters\"), the theme, the size and the motion setting."
            ),
            helpMessages.tr(
                "Colour follows --color, NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR and TERM=dumb; on a pipe the lines are plain and the word being heard is marked with ^^^ on the line below. --scaling chooses how large text is drawn: auto asks the terminal (safely, with a timeout), none uses block letters, dec double-size lines, kitty OSC 66."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader preview library --width 40",
                "  storyreader preview reader --text-size accessibility3 --theme high-contrast-dark --color always"))
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

    @Argument(help: ArgumentHelp(helpMessages.tr("The screen: library, reader, story or help."), valueName: "screen"))
    var screen: ScreenName

    @Option(help: ArgumentHelp(helpMessages.tr("Columns (default: COLUMNS, else the terminal's width)."), valueName: "columns"))
    var width: Int?

    @Option(help: ArgumentHelp(helpMessages.tr("Rows (default: LINES, else the terminal's height, else 24)."), valueName: "rows"))
    var height: Int?

    @Option(
        help: ArgumentHelp(helpMessages.tr("The story for the reader and story screens (an id, a title or a unique prefix)."), valueName: "story"),
        completion: ShellCompletion.stories)
    var story: String = "the-lighthouse-cat"

    @Option(help: ArgumentHelp(helpMessages.tr("The reader's page, from 1."), valueName: "number"))
    var page: Int = 1

    @Option(help: ArgumentHelp(helpMessages.tr("The word being heard on the reader's page, from 1 (default: the middle word)."), valueName: "number"))
    var word: Int?

    @Option(help: ArgumentHelp(helpMessages.tr("The focused element's id (default: the screen's usual focus)."), valueName: "id"))
    var focus: String?

    @Option(help: ArgumentHelp(helpMessages.tr("How large text is drawn: auto, none (block letters), dec, kitty."), valueName: "method"))
    var scaling: ScalingChoice = .auto

    @Option(
        help: ArgumentHelp(
            "Play an effect instead: reveal (a new page), turn (to the next page), celebrate (a story finished), loading. With reduced motion each is one static frame.",
            valueName: "effect"))
    var effect: EffectChoice?

    func validate() throws {
        if let width, !(12...1000).contains(width) {
            throw ValidationError(helpMessages.tr("--width {value} is out of range: use 12 to 1000 columns", ["value": String(width)]))
        }
        if let height, !(4...1000).contains(height) {
            throw ValidationError(helpMessages.tr("--height {value} is out of range: use 4 to 1000 rows", ["value": String(height)]))
        }
        if page < 1 { throw ValidationError(helpMessages.tr("--page {value} is out of range: pages count from 1", ["value": String(page)])) }
        if let word, word < 1 { throw ValidationError(helpMessages.tr("--word {value} is out of range: words count from 1", ["value": String(word)])) }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let isTTY = isatty(STDOUT_FILENO) == 1
        let style = presentation.terminalStyle(environment: environment, isTTY: isTTY)
        let motion = presentation.motionPolicy(environment: environment, isTTY: isTTY)
        let capabilities: TerminalCapabilities =
            switch scaling {
            case .none: TerminalCapabilities(scaling: .none, reason: "--scaling none")
            case .dec: TerminalCapabilities(scaling: .decDoubleSize, reason: "--scaling dec")
            case .kitty: TerminalCapabilities(scaling: .kittyTextSizing, reason: "--scaling kitty")
            case .auto: TerminalCapabilities.detect(environment: environment, isTTY: isTTY)
            }
        let scalingSupport = capabilities.scaling
        let columns = width ?? TerminalIO.size().columns
        let rows = height ?? environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 24

        let library = global.loadLibrary()
        if library.entries.isEmpty { throw UserFailure(message: global.messages.tr("no stories were found: name a folder with --stories DIR")) }
        let catalog = Self.catalog(library)
        var chosen: Story?
        if screen == .reader || screen == .story {
            let story = try global.resolveStory(self.story, in: library)
            guard page <= story.pages.count else {
                throw UserFailure(
                    message: global.messages.trn(
                        "“{title}” has {count} page: choose --page 1 to {count}", "“{title}” has {count} pages: choose --page 1 to {count}",
                        story.pages.count, ["title": story.title]))
            }
            chosen = story
            Syllables.preload(story.language)
        }
        // The REPL's own screens, in a sample state.
        let built = SessionPreview.screen(
            SessionPreview.Kind(rawValue: screen.rawValue) ?? .library, catalog: catalog, story: chosen,
            page: page - 1, word: word.map { $0 - 1 }, columns: columns, rows: rows,
            language: global.messageLanguage, languages: Catalogs.languages)
        let options = RenderOptions(
            textSize: presentation.textSizePreset(), theme: presentation.themeName(), style: style, scaling: scalingSupport,
            aids: presentation.readingAids(), language: chosen?.language)
        let rendered = ScreenRenderer.render(built.screen, focus: focus ?? built.focus, options: options, width: columns, height: rows)
        if let effect {
            try play(effect, rendered: rendered, built: built, options: options, motion: motion, columns: columns, rows: rows, isTTY: isTTY)
            return
        }
        // The lines leave the theme's background set (so erasing paints it): reset before the footer.
        var output = rendered.lines.joined(separator: "\n") + (style.attributes ? "\u{1B}[0m\n" : "\n")
        let pageLines = rendered.lines.map(TerminalText.stripEscapes)
        let reveal = motion.frames(for: .pageReveal(lines: pageLines), width: columns).count
        let motionText = motion.isReducedMotion ? "reduced motion: on, no animation" : "reduced motion: off, a new page is revealed in \(reveal) frames"
        output += Self.footer(
            [
                rendered.sizeDescription, "theme \(options.theme.rawValue)", "\(columns)×\(rows)", motionText,
                "terminal: \(capabilities.reason)",
            ], width: columns)
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// What is really shown, wrapped to the terminal's width (never wider): "— accessibility3,
    /// shown at 2× (double-size lines) · theme dark · 80×24 · … · terminal: xterm (XTERM_VERSION)".
    static func footer(_ parts: [String], width: Int) -> String {
        TextWrap.wrap("— " + parts.joined(separator: " · "), width: width).map { $0.text + "\n" }.joined()
    }
}

extension PreviewCommand {
    /// Plays an effect's frames: on a terminal drawn in place with their delays; on a pipe each
    /// frame printed in turn, followed by a line `— frame K`, so they can be counted.
    func play(
        _ effect: EffectChoice, rendered: RenderedScreen, built: (screen: Screen, focus: String?), options: RenderOptions,
        motion: MotionPolicy, columns: Int, rows: Int, isTTY: Bool
    ) throws {
        let motionEffect: MotionEffect
        switch effect {
        case .reveal:
            motionEffect = .pageReveal(lines: rendered.lines)
        case .turn:
            // From the reader's page to the next one (or the story card when there is none).
            let library = global.loadLibrary(reportProblems: false)
            let story = try global.resolveStory(self.story, in: library)
            let catalog = Self.catalog(library)
            Syllables.preload(story.language)
            let next =
                page < story.pages.count
                ? SessionPreview.screen(
                    .reader, catalog: catalog, story: story, page: page, word: 0, columns: columns, rows: rows,
                    language: global.messageLanguage, languages: Catalogs.languages)
                : SessionPreview.screen(
                    .story, catalog: catalog, story: story, columns: columns, rows: rows,
                    language: global.messageLanguage, languages: Catalogs.languages)
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
        motion.play(
            frames,
            write: { lines in
                written += 1
                let text: String
                if interactive {
                    text = "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n")
                } else {
                    text = lines.joined(separator: "\n") + (options.style.attributes ? "\u{1B}[0m" : "") + "\n— frame \(written)\n"
                }
                FileHandle.standardOutput.write(Data(text.utf8))
            },
            sleep: { milliseconds in
                if interactive { usleep(useconds_t(milliseconds) * 1000) }
            })
        if interactive { FileHandle.standardOutput.write(Data("\u{1B}[0m\r\n".utf8)) }
    }

    /// The library's entries with the story a preview shows when none is named (the first) read in,
    /// and its reading syllables loaded: drawing reads no file.
    private static func catalog(_ library: StoryLibrary) -> StoryCatalog {
        let first = library.entries.first.flatMap { try? library.loadStory($0) }
        if let first { Syllables.preload(first.language) }
        return StoryCatalog(entries: library.entries, stories: first.map { [$0] } ?? [])
    }
}
