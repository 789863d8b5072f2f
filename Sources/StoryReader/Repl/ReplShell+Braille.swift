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

    /// The display's news or a key (from the inbox), handled on the loop's thread.
    func receiveBraille(_ event: BrailleDisplay.Event) {
        guard let braille else { return }
        for event in braille.receive([event]) {
            switch event {
            case .connected:
                break
            case .unavailable(let failure):
                // `--braille on` was asked for: say why there is none (auto stays quiet).
                if braille.mode == .on { update(.shell(.brailleUnavailable(failure))) }
            case .lost:
                update(.shell(.brailleLost))
            case .key(let key):
                handleBrailleKey(key)
            }
        }
        followBraille()
    }

    /// The display shows what the session shows now.
    func followBraille() {
        guard let braille else { return }
        if let failed = braille.follow(session, code: brailleCode, now: monotonicNanoseconds()) { update(.shell(.brailleTableFailed(table: failed))) }
    }

    /// An announcement, shown for BRLTTY's message time.
    func announceInBraille(_ text: String) {
        guard let braille else { return }
        let table = brailleCode.table(forLanguage: session.state.language)
        if let failed = braille.announce(text, table: table, now: monotonicNanoseconds()) { update(.shell(.brailleTableFailed(table: failed))) }
    }

    private func handleBrailleKey(_ key: BrailleKey) {
        guard let braille else { return }
        if kiosk != nil { update(.activity) }
        let reading = session.state.route == .reader && session.state.reader != nil
        switch braille.action(for: key, reading: reading) {
        case .command(let command):
            update(.command(command))
        case .key(let key):
            if interactive { handleKeys([key]) } else { update(.key(key)) }
        case .none:
            braille.showLine()
        }
    }
}
