import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What every part of the program that draws on the terminal shares: whether there is a terminal
/// worth drawing on, its size, the raw-mode settings and a complete write.
enum TerminalIO {
    /// Standard input and output are a terminal, and `TERM` is not `dumb` (which, like no
    /// terminal at all, gets plain lines and no escapes).
    static func isInteractive(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        let term = environment["TERM"] ?? ""
        return isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && term != "dumb" && !term.isEmpty
    }

    /// Standard output alone is a terminal (not `TERM=dumb`): `list` draws a table there, plain
    /// lines into a pipe, whatever standard input is.
    static var outputIsTerminal: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// Columns and rows: `COLUMNS` and `LINES` first (so tests fix them), then the terminal, then 80×24.
    static func size(fd: Int32 = STDOUT_FILENO, environment: [String: String] = ProcessInfo.processInfo.environment) -> (columns: Int, rows: Int) {
        var window = winsize()
        let measured = ioctl(fd, UInt(TIOCGWINSZ), &window) == 0
        func positive(_ name: String) -> Int? { environment[name].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } }
        let columns = positive("COLUMNS") ?? (measured && window.ws_col > 0 ? Int(window.ws_col) : 80)
        let rows = positive("LINES") ?? (measured && window.ws_row > 0 ? Int(window.ws_row) : 24)
        return (columns, rows)
    }

    /// `original` in raw mode: no echo, no canonical lines, ISIG off (Ctrl-C arrives as a key),
    /// IXON off (Ctrl-S does not freeze the screen), IEXTEN off, 8-bit characters.
    ///
    /// - Parameters:
    ///   - translateNewlines: keep output processing so `\n` moves to the next line's start.
    ///   - minimumBytes: `VMIN`: 1 makes `read` wait for a key, 0 lets it return at once.
    static func rawSettings(from original: termios, translateNewlines: Bool, minimumBytes: UInt8) -> termios {
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        if translateNewlines {
            raw.c_oflag |= tcflag_t(OPOST | ONLCR)
        } else {
            raw.c_oflag &= ~tcflag_t(OPOST)
        }
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = minimumBytes
            bytes[Int(VTIME)] = 0
        }
        return raw
    }

    /// Writes all of `text` to `fd`, retrying after interruptions; gives up quietly when the
    /// terminal is gone.
    static func write(_ text: String, to fd: Int32 = STDOUT_FILENO) { _ = writeAll(text, to: fd) }

    /// Writes all of `text`; false when it cannot (a closed pipe: SIGPIPE is ignored, so EPIPE).
    static func writeAll(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                if written < 0, errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
