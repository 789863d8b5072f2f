import Foundation
import StoryKit

/// The terminal in raw mode: single keys without echo, a hidden cursor, the alternate screen, and
/// the original state restored on every way out (normal return, thrown error, `exit`, SIGINT,
/// SIGTERM, SIGHUP). One at a time per process.
///
/// Ctrl-C arrives as a key (byte 03) while raw; a SIGINT sent from outside still restores the
/// terminal before the process ends.
final class RawTerminal {
    let input: Int32
    let output: Int32
    private var signalSources: [any DispatchSourceSignal] = []
    private var resizeSource: (any DispatchSourceSignal)?
    private var decoder = KeyDecoder()
    private var pendingKeys: [Key] = []

    /// True when standard input and output are a terminal worth drawing on (`TERM=dumb` is not).
    static var isInteractive: Bool { TerminalIO.isInteractive() }

    /// Enters raw mode. `onSignal` runs (on a background queue) before the process exits on SIGINT,
    /// SIGTERM or SIGHUP, after the terminal was restored: stop the audio there.
    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, alternateScreen: Bool = true,
         onSignal: @escaping @Sendable (Int32) -> Void = { _ in }, onResize: @escaping @Sendable () -> Void = {}) throws {
        self.input = input
        self.output = output
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw TerminalError.notATerminal }
        TerminalRestore.save(original, fd: input, output: output, alternateScreen: alternateScreen)
        var raw = TerminalIO.rawSettings(from: original, translateNewlines: true, minimumBytes: 0)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw TerminalError.notATerminal }
        atexit { TerminalRestore.restore() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                TerminalRestore.restore()
                onSignal(signalNumber)
                exit(128 + signalNumber)
            }
            source.resume()
            signalSources.append(source)
        }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { onResize() }
        resize.resume()
        resizeSource = resize
        write((alternateScreen ? "\u{1B}[?1049h" : "") + "\u{1B}[?25l")
    }

    deinit { restore() }

    /// Leaves raw mode and puts everything back; safe to call more than once.
    func restore() {
        TerminalRestore.restore()
        for source in signalSources { source.cancel() }
        signalSources.removeAll()
        resizeSource?.cancel()
        resizeSource = nil
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { signal(signalNumber, SIG_DFL) }
    }

    func write(_ text: String) { TerminalIO.write(text, to: output) }

    /// What came from the keyboard.
    enum Input: Equatable {
        case key(Key)
        /// Standard input closed (the pipe ended, or the terminal went away).
        case closed
    }

    /// The next key, waiting at most `timeoutMilliseconds`; nil on timeout. Keys are decoded by
    /// the REPL's `KeyDecoder` (a lone ESC told apart from an arrow's sequence by a short wait).
    func readKey(timeoutMilliseconds: Int32) -> Input? {
        if !pendingKeys.isEmpty { return .key(pendingKeys.removeFirst()) }
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        guard ready > 0 else {
            pendingKeys = decoder.flush()
            return pendingKeys.isEmpty ? nil : .key(pendingKeys.removeFirst())
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(input, &buffer, buffer.count)
        if count == 0 { return .closed }
        if count < 0 { return nil }
        var keys = decoder.feed(Array(buffer[0..<count]))
        if decoder.hasPending {
            // A lone ESC, or the start of a sequence: wait briefly for the rest.
            var more = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            if poll(&more, 1, KeyDecoder.escapeDelayMilliseconds) > 0 {
                let extra = read(input, &buffer, buffer.count)
                if extra > 0 { keys += decoder.feed(Array(buffer[0..<extra])) }
            }
            if decoder.hasPending { keys += decoder.flush() }
        }
        guard !keys.isEmpty else { return nil }
        pendingKeys = Array(keys.dropFirst())
        return .key(keys[0])
    }
}

enum TerminalError: Error, CustomStringConvertible {
    case notATerminal
    var description: String { "standard input is not a terminal" }
}

/// The saved terminal state, global so that a capture-less `atexit` handler and signal handlers can
/// reach it. Only written before raw mode starts.
enum TerminalRestore {
    private struct Saved: @unchecked Sendable {
        var original: termios
        var input: Int32
        var output: Int32
        var alternateScreen: Bool
    }
    nonisolated(unsafe) private static var saved: Saved?
    private static let lock = NSLock()

    static func save(_ original: termios, fd: Int32, output: Int32, alternateScreen: Bool) {
        lock.lock()
        saved = Saved(original: original, input: fd, output: output, alternateScreen: alternateScreen)
        lock.unlock()
    }

    static func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard var state = saved else { return }
        saved = nil
        let reset = "\u{1B}[0m\u{1B}[?25h" + (state.alternateScreen ? "\u{1B}[?1049l" : "")
        _ = reset.withCString { Foundation.write(state.output, $0, strlen($0)) }
        tcsetattr(state.input, TCSAFLUSH, &state.original)
    }
}
