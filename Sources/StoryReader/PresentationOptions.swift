import ArgumentParser
import Foundation
import StoryKit

/// `--text-size`, `--theme`, `--reduce-motion` and `--color`: how screens are drawn. Shared by
/// every command that draws a screen (the REPL and `preview`).
struct PresentationOptions: ParsableArguments {
    @Option(
        name: .customLong("text-size"),
        help: ArgumentHelp(
            helpMessages.tr(
                "Text size: {choices}. Default: the profile's, else large.", ["choices": TextSizePreset.allCases.map(\.rawValue).joined(separator: ", ")]),
            valueName: "preset"))
    var textSize: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Colour theme: {choices}. Default: the profile's, else default.", ["choices": ThemeName.allCases.map(\.rawValue).joined(separator: ", ")]),
            valueName: "theme"))
    var theme: String?

    @Flag(
        name: .customLong("reduce-motion"), inversion: .prefixedNo,
        help: ArgumentHelp(
            helpMessages.tr(
                "Reduced motion: no animation, a steady cursor. Default: the profile's, else automatic (on without a terminal, with TERM=dumb, or when ACCESSIBLE is set)."
            )))
    var reduceMotion: Bool?

    @Option(
        name: .customLong("line-focus"),
        help: ArgumentHelp(
            helpMessages.tr(
                "Line focus: show only this many lines around the word being read in full, the others dimmed: off, 1, 3 or 5. Default: the profile's, else off."
            ),
            valueName: "lines"))
    var lineFocus: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            helpMessages.tr("Show words split into syllables with a middle dot (but·ter·fly); the voice is unchanged. Default: the profile's, else off.")))
    var syllables: Bool?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Spacing: normal, or wide (more space between words, a blank line between lines). Default: the profile's, else normal."),
            valueName: "spacing"))
    var spacing: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "The terminal's cursor, which sits on the focused item or the word being heard (for a braille display or your own screen reader): visible, hidden or auto (visible on the Linux console and when BRLTTY runs, else hidden)."
            ),
            valueName: "when"))
    var cursor: String = "auto"

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("A braille display through BRLTTY: auto (used when BRLTTY runs), on (also says when there is none) or off."),
            valueName: "when"))
    var braille: String = "auto"

    @Option(
        name: .customLong("braille-code"),
        help: ArgumentHelp(
            helpMessages.tr(
                "Braille code on the display: computer, grade-1 (uncontracted) or grade-2 (contracted), in the story's language. Default: the profile's, else grade-1."
            ),
            valueName: "code"))
    var brailleCode: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "A story with its own recording: recording (the book's narrator) or synthetic (always eSpeak NG). Default: the profile's, else recording."),
            valueName: "who"))
    var narration: String?

    @Option(
        name: [.customLong("recording-tempo"), .customLong("tempo")],
        help: ArgumentHelp(
            helpMessages.tr(
                "The tempo of a book's recording, 0.5–2 (1 is its own pace; the pitch is kept; + and - step it by 0.25 while it plays). Synthetic speech uses the rate. Default: the profile's, else 1."
            ),
            valueName: "x"))
    var recordingTempo: Double?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(helpMessages.tr("On the : command line, say each letter typed and deleted, as a screen reader does.")))
    var keyEcho = true

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Colour: auto (NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR and TERM=dumb are honoured), always or never. The flag beats the variables."),
            valueName: "when"))
    var color: String = "auto"

    func validate() throws {
        if let textSize, TextSizePreset(name: textSize) == nil {
            throw ValidationError(
                helpMessages.tr(
                    "--text-size {value} is not a text size: use one of {choices}",
                    [
                        "value": textSize, "choices": TextSizePreset.allCases.map(\.rawValue).joined(separator: ", "),
                    ]))
        }
        if let theme, ThemeName(rawValue: theme.lowercased()) == nil {
            throw ValidationError(
                helpMessages.tr(
                    "--theme {value} is not a theme: use one of {choices}",
                    [
                        "value": theme, "choices": ThemeName.allCases.map(\.rawValue).joined(separator: ", "),
                    ]))
        }
        if let lineFocus, LineFocus(name: lineFocus) == nil {
            throw ValidationError(helpMessages.tr("--line-focus {value} is not a choice: use off, 1, 3 or 5", ["value": lineFocus]))
        }
        if let spacing, TextSpacing(rawValue: spacing.lowercased()) == nil {
            throw ValidationError(helpMessages.tr("--spacing {value} is not a choice: use normal or wide", ["value": spacing]))
        }
        if !["auto", "visible", "hidden"].contains(cursor.lowercased()) {
            throw ValidationError(helpMessages.tr("--cursor {value} is not a choice: use visible, hidden or auto", ["value": cursor]))
        }
        if BrailleMode(rawValue: braille.lowercased()) == nil {
            throw ValidationError(helpMessages.tr("--braille {value} is not a choice: use auto, on or off", ["value": braille]))
        }
        if let brailleCode, BrailleCode(loose: brailleCode) == nil {
            throw ValidationError(helpMessages.tr("--braille-code {value} is not a braille code: use computer, grade-1 or grade-2", ["value": brailleCode]))
        }
        if let narration, NarrationSource(loose: narration) == nil {
            throw ValidationError(helpMessages.tr("--narration {value} is not a choice: use recording or synthetic", ["value": narration]))
        }
        if let recordingTempo, !RecordingTempo.range.contains(recordingTempo) {
            throw ValidationError(helpMessages.tr("--recording-tempo {value} is out of range: use a value from 0.5 to 2", ["value": String(recordingTempo)]))
        }
        if ColorChoice(rawValue: color.lowercased()) == nil {
            throw ValidationError(helpMessages.tr("--color {value} is not a choice: use auto, always or never", ["value": color]))
        }
    }

    /// The preset asked for, else `fallback` (the profile's).
    func textSizePreset(default fallback: TextSizePreset = .default) -> TextSizePreset {
        textSize.flatMap(TextSizePreset.init(name:)) ?? fallback
    }

    func themeName(default fallback: ThemeName = .default) -> ThemeName {
        theme.flatMap { ThemeName(rawValue: $0.lowercased()) } ?? fallback
    }

    /// The motion preference: the flag, else `fallback` (the profile's, else auto).
    func motionPreference(default fallback: MotionPreference = .auto) -> MotionPreference {
        reduceMotion.map { $0 ? .on : .off } ?? fallback
    }

    /// The braille display for this run (`--braille`), taking every key of the display in a kiosk.
    /// Its events go to `inbox`, the loop's.
    /// The braille display (nil: `--braille off`); its tables, every code in `languages`, are
    /// compiled as it connects.
    func brailleDisplay(kiosk: Bool, inbox: Inbox<LoopMessage>, languages: Set<String> = []) -> ReplBraille? {
        let mode = BrailleMode(rawValue: braille.lowercased()) ?? .auto
        guard mode != .off else { return nil }
        let tables = Set(BrailleCode.allCases.flatMap { code in languages.map { code.table(forLanguage: $0) } })
        return ReplBraille(mode: mode, takesEveryKey: kiosk, tables: tables.sorted(), post: { inbox.send(.braille($0)) })
    }

    func colorChoice() -> ColorChoice { ColorChoice(rawValue: color.lowercased()) ?? .auto }

    /// Colour and escapes for standard output.
    func terminalStyle(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isTTY: Bool = isatty(STDOUT_FILENO) == 1
    ) -> TerminalStyle {
        ColorSupport.style(environment: environment, isTTY: isTTY, choice: colorChoice())
    }

    func motionPolicy(
        default fallback: MotionPreference = .auto,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isTTY: Bool = isatty(STDOUT_FILENO) == 1
    ) -> MotionPolicy {
        MotionPolicy.resolve(motionPreference(default: fallback), environment: environment, isTTY: isTTY)
    }
}

extension PresentationOptions {
    /// The flags hold for this run over any profile chosen, and are never saved.
    /// Whether the cursor is shown: `auto` shows it where something follows it (the Linux
    /// console, where Speakup and BRLTTY read; a running BRLTTY, which sets `BRLTTY`… variables).
    func showsCursor(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch cursor.lowercased() {
        case "visible": return true
        case "hidden": return false
        default: return environment["TERM"] == "linux" || environment.keys.contains { $0.hasPrefix("BRLTTY") }
        }
    }

    func apply(to session: inout Session) {
        session.overridePresentation(
            textSize: textSize.flatMap(TextSizePreset.init(name:)),
            theme: theme.flatMap { ThemeName(rawValue: $0.lowercased()) },
            motion: reduceMotion.map { $0 ? .on : .off },
            lineFocus: lineFocus.flatMap(LineFocus.init(name:)),
            syllables: syllables,
            spacing: spacing.flatMap { TextSpacing(rawValue: $0.lowercased()) })
        session.overrideNarration(narration.flatMap(NarrationSource.init(loose:)), tempo: recordingTempo.map { ($0 * 100).rounded() / 100 })
    }

    /// The reading aids asked for, over `fallback` (the profile's).
    func readingAids(default fallback: ReadingAids = .off) -> ReadingAids {
        var aids = fallback
        if let focus = lineFocus.flatMap(LineFocus.init(name:)) { aids.lineFocus = focus }
        if let syllables { aids.syllables = syllables }
        if let spacing = spacing.flatMap({ TextSpacing(rawValue: $0.lowercased()) }) { aids.spacing = spacing }
        return aids
    }
}
