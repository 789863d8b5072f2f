import Foundation
import StoryKit

/// The braille display in the loop: its events are read with the other inputs, its keys become
/// the session's commands and keys (through the kiosk's rules like any key), and after every turn
/// it follows the session's state.
extension ReplShell {
    /// The child's braille code: `--braille-code`, else the profile's, else grade 1.
    var brailleCode: BrailleCode {
        presentation.brailleCode.flatMap(BrailleCode.init(loose:)) ?? session.state.profile.settings.brailleCode
    }

    /// The display's news and keys, handled on the loop's thread.
    func pumpBraille() {
        guard let braille else { return }
        for event in braille.takeEvents() {
            switch event {
            case .connected:
                break
            case .unavailable(let reason):
                // `--braille on` was asked for: say why there is none (auto stays quiet).
                if braille.mode == .on {
                    brailleNotice(session.state.tr("No braille display: {reason}. Speech goes on without it.", ["reason": reason]))
                }
            case .lost:
                brailleNotice(session.state.tr("The braille display went away. Speech goes on; braille comes back with BRLTTY."))
            case .key(let key):
                handleBrailleKey(key)
            }
        }
        followBraille()
    }

    /// The display shows what the session shows now.
    func followBraille() {
        guard let braille else { return }
        if let failed = braille.follow(session, code: brailleCode, now: monotonicNanoseconds()) { brailleNotice(tableNotice(failed)) }
    }

    /// An announcement, shown for BRLTTY's message time.
    func announceInBraille(_ text: String) {
        guard let braille else { return }
        let table = brailleCode.table(forLanguage: session.state.language)
        if let failed = braille.announce(text, table: table, now: monotonicNanoseconds()) { brailleNotice(tableNotice(failed)) }
    }

    private func tableNotice(_ table: String) -> String {
        session.state.tr("Braille: the table {table} could not be loaded (is liblouis-data installed?). Speech goes on.", ["table": table])
    }

    private func brailleNotice(_ text: String) {
        caption(text)
        speak(interfaceUtterance(text, priority: .message))
    }

    private func handleBrailleKey(_ key: BrailleKey) {
        guard let braille else { return }
        if kiosk != nil { session.noteKioskActivity() }
        let reading = session.state.route == .reader && session.state.reader != nil
        switch braille.action(for: key, reading: reading) {
        case .command(let command):
            perform(session.handle(.command(command)))
        case .key(let key):
            if interactive { handleKeys([key]) } else { perform(session.handle(.key(key))) }
        case .none:
            braille.showLine()
        }
    }
}
