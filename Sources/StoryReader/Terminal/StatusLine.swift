import Foundation
import StoryKit

/// One line of progress on standard error, redrawn in place ("Exporting …: 42 %"), for a
/// person at a terminal: callers show it only when standard error is one. Cut to the
/// terminal's width, so it never wraps into lines the next redraw cannot clear.
enum StatusLine {
    static var isShown: Bool { isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb" }

    /// Draws `text` over the line; an empty text clears it.
    static func show(_ text: String) {
        var size = winsize()
        let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 1 ? Int(size.ws_col) - 1 : 79
        var line = ""
        var width = 0
        for character in Sanitizer.sanitizeLine(text) {
            let characterWidth = DisplayWidth.of(character)
            if width + characterWidth > columns { break }
            line.append(character)
            width += characterWidth
        }
        TerminalIO.write("\r\u{1B}[K" + line, to: STDERR_FILENO)
    }
}
