import Foundation
import StoryKit

#if canImport(Glibc)
    import Glibc
#endif

/// What the shell needs for kiosk mode: the clock that feeds `Input.tick`. (The PIN is checked
/// by the store as in the REPL, with its lockout.)
struct KioskHooks {
    var clock: any MonotonicClock
}

enum KioskGuard {
    /// Signals a child could send from the keyboard (were ISIG on) or a job-control shell could
    /// send: ignored. SIGTERM and SIGHUP keep their handlers (save, restore, exit).
    static let ignoredSignals: [Int32] = [SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU]

    /// Ignores the keyboard and job-control signals (a crash restores the terminal in every mode:
    /// `CrashGuard`).
    static func harden() {
        for signal in ignoredSignals { _ = Glibc.signal(signal, SIG_IGN) }
    }

}
