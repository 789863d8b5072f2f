import Foundation
import StoryKit
#if canImport(Glibc)
import Glibc
#endif

/// What the shell needs for kiosk mode: the clock that feeds `Input.tick`. (The PIN is checked
/// by the store as in the REPL, with its lockout.)
struct KioskHooks {
    var clock: any KioskClock
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

}
