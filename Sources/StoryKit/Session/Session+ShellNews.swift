/// What the shell has to tell the person but no words of its own for: it sends the news to the
/// Session as an input (`Input.shell`), and the Session answers with what is said and shown. So
/// everything said comes out of the Session, in its language, through one door.
public enum ShellNews: Sendable, Hashable {
    /// No audio device could be opened (`reason`, shown): reading goes on silently, at speaking pace.
    case noSoundDevice(reason: String)
    /// A notice worded already in the interface's language by the speech service (a voice missing,
    /// a recording's clip that cannot be played).
    case notice(String)
    /// The `:` command line opened, was cancelled, or its editor has something to say (a
    /// completion, a refusal).
    case commandLineOpened, commandLineCancelled
    case commandLineMessage(String)
    /// A key typed on the `:` line, echoed: its caption is replaced by the next one.
    case commandLineEcho(String)
    /// A profile change waits for the kiosk's site; the PIN is being checked (about a second).
    case saving, checkingPIN
    /// The PIN could not be checked at all (`problem`: the store's reason, in English as it gives it).
    case pinCheckFailed(problem: String)
    /// `--braille on` found no display (`reason`), the display went away, or a braille table
    /// could not be loaded.
    case brailleUnavailable(BrailleFailure)
    case brailleLost
    case brailleTableFailed(table: String)
}

extension Session {
    /// The news in words: said and captioned (`Effect.tell`), never on the braille display.
    mutating func tell(_ news: ShellNews) -> [Effect] {
        switch news {
        case .noSoundDevice(let reason):
            return [tell(tr("No sound device: reading silently, with the words shown at speaking pace."), .message, shown: reason)]
        case .notice(let text):
            return [tell(text, .message)]
        case .commandLineOpened:
            // The story waits while a command is typed, as it does for Help: going on under the
            // letters said, it started again at its word between each of them.
            return pauseForHelp() + [tell(tr("Command."), .text)]
        case .commandLineCancelled:
            if let kept = noteCancelled() { return kept }
            return [tell(tr("Cancelled."), .text)]
        case .commandLineMessage(let text):
            return [tell(text, .text)]
        case .commandLineEcho(let text):
            var utterance = Utterance(text, priority: .text)
            utterance.language = state.language
            return [.echo(utterance)]
        case .saving:
            return [tell(tr("Saving…"), .text)]
        case .checkingPIN:
            return [tell(tr("Checking…"), .text)]
        case .pinCheckFailed(let problem):
            return [tell(tr("Could not check the PIN: {problem}", ["problem": SpokenForm.finish(problem)]), .important)]
        case .brailleUnavailable(let failure):
            return [tell(brailleProblem(failure), .message)]
        case .brailleLost:
            return [tell(tr("The braille display went away. Speech goes on; braille comes back with BRLTTY."), .message)]
        case .brailleTableFailed(let table):
            return [
                tell(tr("Braille: the table {table} could not be loaded (is liblouis-data installed?). Speech goes on.", ["table": table]), .message)
            ]
        }
    }

    /// Why there is no braille display, and what to do, in the interface's language.
    func brailleProblem(_ failure: BrailleFailure) -> String {
        switch failure {
        case .authentication(let file):
            return tr(
                "The braille display is refused: BRLTTY did not accept the key in {file}. Speech goes on. To use the display, give this user BRLTTY's key (set BRLAPI_AUTH, or let them read the key file).",
                ["file": file])
        case .keyFileUnreadable(let path, let missing):
            return missing
                ? tr(
                    "The braille display is refused: BRLTTY's key file {file} is missing. Speech goes on. To use the display, set BRLAPI_AUTH to the key BRLTTY uses.",
                    ["file": path])
                : tr(
                    "The braille display is refused: this user may not read BRLTTY's key file {file}. Speech goes on. To use the display, let them read it (the brlapi group) or set BRLAPI_AUTH.",
                    ["file": path])
        case .notRunning:
            return tr("No braille display: BRLTTY is not running. Speech goes on without it.")
        case .noDisplay:
            return tr("No braille display: BRLTTY has no braille display plugged in. Speech goes on without it.")
        case .other(let reason):
            return tr("No braille display: {reason}. Speech goes on without it.", ["reason": reason])
        }
    }

    /// Said in the interface's language, as it is worded (no voice runs for names).
    private func tell(_ text: String, _ priority: AnnouncementPriority, shown: String? = nil) -> Effect {
        var utterance = Utterance(text, priority: priority)
        utterance.language = state.language
        return .tell(utterance, shown: shown ?? text)
    }
}
