import Foundation
import StoryKit
#if canImport(Glibc)
import Glibc
#endif

/// What the shell needs for kiosk mode: the clock that feeds `Input.tick`, the PIN check against
/// the store (with its lockout), and the process-level hardening.
struct KioskHooks {
    var clock: any KioskClock
    /// Answers `Effect.checkPIN`: `.pinChecked(true)` or `.pinRejected(…)`.
    var checkPIN: (String) -> Input
}

enum KioskGuard {
    /// Signals a child could send from the keyboard (were ISIG on) or a job-control shell could
    /// send: ignored. SIGTERM and SIGHUP keep their handlers (save, restore, exit).
    static let ignoredSignals: [Int32] = [SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU]

    /// Signals of a crash: the terminal is restored before the default action (a core, a message).
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    /// The crash handlers that were there before (the Swift runtime's backtracer), put back after
    /// the terminal is restored.
    nonisolated(unsafe) static var previous: [Glibc.sigaction] = Array(repeating: Glibc.sigaction(), count: 65)

    /// Ignores the keyboard and job-control signals; restores the terminal on a crash.
    static func harden() {
        for signal in ignoredSignals { _ = Glibc.signal(signal, SIG_IGN) }
        let handler: @convention(c) (Int32) -> Void = { signal in
            TerminalMode.restore()
            // The previous handler (or the default action) then does what it would have done.
            sigaction(signal, &KioskGuard.previous[Int(signal)], nil)
            raise(signal)
        }
        for signal in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, &previous[Int(signal)])
        }
    }

    /// The store's answer to a typed PIN, as the session's input.
    static func check(_ pin: String, with store: StoryStore) -> Input {
        do {
            try store.verifyPIN(pin)
            return .pinChecked(true)
        } catch {
            switch error {
            case .wrongPIN(let left, let lockedFor):
                return .pinRejected(triesLeft: left, lockedSeconds: lockedFor.map { Int($0.rounded(.up)) })
            case .pinLocked(let remaining):
                return .pinRejected(triesLeft: nil, lockedSeconds: max(1, Int(remaining.rounded(.up))))
            default:
                return .pinRejected(triesLeft: nil, lockedSeconds: nil)
            }
        }
    }
}
