import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one terminal guard: the terminal's settings as they were, restored on every way out
/// (normal exit, error, signals, a crash: `CrashGuard`), for the REPL, the kiosk, `read` and the PIN prompts alike.
///
/// Raw mode here: no echo, no canonical lines, ISIG off (Ctrl-C arrives as a key and quits
/// cleanly), IXON off (Ctrl-S does not freeze the screen), IEXTEN off. Signals that end the
/// program (SIGTERM, SIGHUP, SIGINT, SIGQUIT) and SIGWINCH are written to a pipe that the main
/// loop watches ("self-pipe"). A prompt blocked in a read has no loop, so while echo is off for a
/// PIN those signals restore the terminal and exit at once instead.
enum TerminalMode {
    /// The settings before they were changed (a global because a signal handler must reach it).
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var isRaw = false
    /// Whether leaving also leaves the alternate screen (not after a prompt, which never entered it).
    nonisolated(unsafe) static var leavesScreen = false
    nonisolated(unsafe) static var signalPipe: (read: Int32, write: Int32) = (-1, -1)
    /// What to write when leaving (show the cursor, leave the alternate screen).
    static let leaveSequence = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l"

    /// Whether standard input and output are a terminal worth drawing on (`TERM=dumb` is not).
    static func isInteractive() -> Bool { TerminalIO.isInteractive() }

    /// Enters raw mode and the alternate screen.
    static func enterRaw() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw UserFailure(message: "cannot read the terminal's settings") }
        var raw = TerminalIO.rawSettings(from: saved, translateNewlines: false, minimumBytes: 1)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw UserFailure(message: "cannot put the terminal in raw mode") }
        isRaw = true
        leavesScreen = true
        atexit { TerminalMode.restore() }
        CrashGuard.install()
        write(enterSequence)
    }

    /// Restores the terminal (async-signal-safe: only write and tcsetattr).
    static func restore() {
        guard isRaw else { return }
        isRaw = false
        if leavesScreen {
            leaveSequence.withUnsafeBufferPointer { _ = Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    /// Runs `body` (a blocking read of a PIN) with echo off, and puts the settings back after it or
    /// on a signal that ends the program.
    static func withEchoOff<T>(_ body: () -> T) -> T {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return body() }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else { return body() }
        isRaw = true
        leavesScreen = false
        CrashGuard.install()
        let exiting: @convention(c) (Int32) -> Void = { signal in
            TerminalMode.restore()
            _exit(128 + signal)
        }
        let ending = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        for signal in ending { _ = Glibc.signal(signal, exiting) }
        defer {
            restore()
            for signal in ending { _ = Glibc.signal(signal, SIG_DFL) }
        }
        return body()
    }

    static func write(_ text: String) { TerminalIO.write(text) }

    /// Sends SIGTERM, SIGHUP, SIGINT, SIGQUIT and SIGWINCH to the self-pipe (made once a process).
    static func installSignalHandlers() {
        guard signalPipe.read < 0 else { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        signalPipe = (fds[0], fds[1])
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let handler: @convention(c) (Int32) -> Void = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = Glibc.write(TerminalMode.signalPipe.write, &byte, 1)
        }
        // A parent may start us with these blocked (Foundation's Process does): a blocked SIGINT
        // would never reach the handler, and Ctrl-C or `kill -INT` would not stop a story.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGWINCH] { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGWINCH] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// What `onStopSignal` calls: the job running now (an export, timed events). One watcher
    /// thread for the process, however many jobs come and go.
    private static let stopHandler = Mutex<(@Sendable () -> Void)?>(nil)
    nonisolated(unsafe) private static var watcherStarted = false

    /// Calls `stop` once, on the watcher thread, when SIGINT, SIGTERM or SIGHUP arrives (not a
    /// resize): how a long job without a screen (an export, timed events) is stopped. Installs the
    /// handlers; a later call replaces `stop` (the job before it is over).
    static func onStopSignal(_ stop: @escaping @Sendable () -> Void) {
        installSignalHandlers()
        stopHandler.withLock { $0 = stop }
        guard !watcherStarted else { return }
        watcherStarted = true
        let watcher = Thread {
            var fds = [pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0)]
            while poll(&fds, 1, -1) >= 0 {
                if pendingSignals().contains(where: { $0 != SIGWINCH }) {
                    let handler = stopHandler.withLock { handler -> (@Sendable () -> Void)? in
                        defer { handler = nil }
                        return handler
                    }
                    handler?()
                }
            }
        }
        watcher.name = "storyreader.signals"
        watcher.start()
    }

    /// Signals received since last asked.
    static func pendingSignals() -> [Int32] {
        var signals: [Int32] = []
        var byte: UInt8 = 0
        while signalPipe.read >= 0, read(signalPipe.read, &byte, 1) == 1 { signals.append(Int32(byte)) }
        return signals
    }

    /// Columns and rows (`COLUMNS`/`LINES` first), at least 20×5 so a screen can be drawn.
    static func size() -> (columns: Int, rows: Int) {
        let size = TerminalIO.size()
        return (max(size.columns, 20), max(size.rows, 5))
    }
}
