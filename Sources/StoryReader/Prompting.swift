import Foundation
import StoryKit

#if canImport(Glibc)
    import Glibc
#endif

/// Reads answers and PINs: on a terminal with a prompt (a PIN without echo, through `TerminalMode`); from
/// a pipe one line at a time, so scripts and tests can drive every question.
struct Prompter {
    /// Whether standard input is a terminal.
    var isTerminal: Bool = isatty(STDIN_FILENO) == 1

    /// Asks on standard error and reads one line; `nil` at the end of input.
    func ask(_ prompt: String) -> String? {
        if isTerminal { Self.writeError(prompt) }
        return readLine(strippingNewline: true)
    }

    /// Reads a secret: on a terminal the typed characters are not shown; from a pipe, one line.
    func askSecret(_ prompt: String) -> String? {
        guard isTerminal else { return readLine(strippingNewline: true) }
        Self.writeError(prompt)
        let line = TerminalMode.withEchoOff { readLine(strippingNewline: true) }
        Self.writeError("\n")
        return line
    }

    /// Asks a yes/no question; anything but yes (or y) is no, and so is the end of input.
    /// In another language its own yes (sí, oui, ja, or its first letter) is yes too.
    func confirm(_ question: String, messages: MessageCatalog = .english) -> Bool {
        guard let answer = ask("\(question) (\(messages.tr("yes/no"))): ") else { return false }
        let yes = messages.tr("yes").lowercased()
        return ["yes", "y", yes, String(yes.prefix(1))].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(Sanitizer.visibleLines(text).utf8))
    }
}
