import Foundation
import StoryKit

/// What the terminal can do beyond plain text, found safely.
///
/// The order (shared/design/TERMINAL.md): not a terminal or `TERM=dumb` → nothing, no escapes;
/// `$TMUX` or `$STY` → neither DEC double-size lines nor kitty text sizing (tmux strips the first
/// and swallows the second); then hints from the environment (`KITTY_WINDOW_ID`, `TERM_PROGRAM`,
/// `VTE_VERSION`, `WT_SESSION`, …); then, only when the hints say nothing, queries on `/dev/tty`:
/// XTVERSION (`CSI > 0 q`), DA2 (`CSI > c`) and DA1 (`CSI c`, which every terminal answers, so it
/// ends the wait), with a timeout, the terminal's modes restored afterwards. kitty's OSC 66 is used
/// only after a positive probe (the cursor must move as OSC 66 says).
struct TerminalCapabilities: Sendable, Hashable {
    var scaling: TextScaling
    /// Why: "tmux (no double-size lines or text sizing)", "xterm (XTVERSION)", …
    var reason: String

    static let none = TerminalCapabilities(scaling: .none, reason: "not a terminal")

    /// Detects, asking the terminal only when the environment does not say.
    static func detect(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isTTY: Bool = isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1,
        timeoutMilliseconds: Int = 250
    ) -> TerminalCapabilities {
        switch fromEnvironment(environment, isTTY: isTTY) {
        case .decided(let capabilities):
            return capabilities
        case .kittyCandidate(let reason):
            let moved = Probe.kittyTextSizingWorks(timeoutMilliseconds: timeoutMilliseconds)
            return moved
                ? TerminalCapabilities(scaling: .kittyTextSizing, reason: reason + ", OSC 66 probe passed")
                : TerminalCapabilities(scaling: .none, reason: reason + ", OSC 66 probe failed")
        case .ask:
            guard let replies = Probe.query(timeoutMilliseconds: timeoutMilliseconds) else {
                return TerminalCapabilities(scaling: .none, reason: "no answer from the terminal within \(timeoutMilliseconds) ms")
            }
            let fromReplies = fromReplies(xtversion: replies.xtversion, da2: replies.da2)
            if fromReplies.scaling.contains(.kittyTextSizing) {
                let moved = Probe.kittyTextSizingWorks(timeoutMilliseconds: timeoutMilliseconds)
                return moved ? fromReplies : TerminalCapabilities(scaling: .none, reason: fromReplies.reason + ", OSC 66 probe failed")
            }
            return fromReplies
        }
    }

    enum EnvironmentAnswer: Equatable {
        case decided(TerminalCapabilities)
        case kittyCandidate(String)
        case ask
    }

    /// The decision the environment alone allows (pure: tested without a terminal).
    static func fromEnvironment(_ environment: [String: String], isTTY: Bool) -> EnvironmentAnswer {
        func set(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        let term = environment["TERM"] ?? ""
        if !isTTY { return .decided(TerminalCapabilities(scaling: .none, reason: "not a terminal")) }
        if term == "dumb" || term.isEmpty { return .decided(TerminalCapabilities(scaling: .none, reason: "TERM=\(term.isEmpty ? "(unset)" : term)")) }
        if set("TMUX") || set("STY") || term.hasPrefix("screen") || term.hasPrefix("tmux") {
            return .decided(TerminalCapabilities(scaling: .none, reason: "tmux or screen (they strip double-size lines and swallow text sizing)"))
        }
        if set("KITTY_WINDOW_ID") || term == "xterm-kitty" { return .kittyCandidate("kitty (KITTY_WINDOW_ID)") }
        if set("VTE_VERSION") { return .decided(TerminalCapabilities(scaling: .none, reason: "VTE (GNOME Terminal and friends) has no double-size lines")) }
        if set("ALACRITTY_WINDOW_ID") || term == "alacritty" || term.contains("ghostty") || term == "linux" || term == "foot" {
            return .decided(TerminalCapabilities(scaling: .none, reason: "\(term) has no double-size lines"))
        }
        switch environment["TERM_PROGRAM"] ?? "" {
        case "WezTerm": return .decided(TerminalCapabilities(scaling: .decDoubleSize, reason: "WezTerm (TERM_PROGRAM)"))
        case "Apple_Terminal": return .decided(TerminalCapabilities(scaling: .decDoubleSize, reason: "Terminal.app (TERM_PROGRAM)"))
        case "vscode", "ghostty", "Hyper", "tabby":
            return .decided(TerminalCapabilities(scaling: .none, reason: "\(environment["TERM_PROGRAM"]!) has no double-size lines"))
        case "tmux": return .decided(TerminalCapabilities(scaling: .none, reason: "tmux (TERM_PROGRAM)"))
        default: break
        }
        if set("WT_SESSION") { return .decided(TerminalCapabilities(scaling: .decDoubleSize, reason: "Windows Terminal (WT_SESSION)")) }
        if set("KONSOLE_VERSION") { return .decided(TerminalCapabilities(scaling: .decDoubleSize, reason: "Konsole (KONSOLE_VERSION)")) }
        if set("XTERM_VERSION") { return .decided(TerminalCapabilities(scaling: .decDoubleSize, reason: "xterm (XTERM_VERSION)")) }
        return .ask
    }

    /// The decision from the terminal's answers (pure).
    static func fromReplies(xtversion: String?, da2: String?) -> TerminalCapabilities {
        if let xtversion {
            let name = xtversion.lowercased()
            if name.hasPrefix("kitty") {
                if let version = versionNumbers(xtversion), version.lexicographicallyPrecedes([0, 40]) == false {
                    return TerminalCapabilities(scaling: .kittyTextSizing, reason: "\(xtversion) (XTVERSION)")
                }
                return TerminalCapabilities(scaling: .none, reason: "\(xtversion) is older than kitty 0.40 (XTVERSION)")
            }
            for known in ["xterm", "wezterm", "konsole", "contour", "putty"] where name.hasPrefix(known) {
                return TerminalCapabilities(scaling: .decDoubleSize, reason: "\(xtversion) (XTVERSION)")
            }
            if name.hasPrefix("tmux") { return TerminalCapabilities(scaling: .none, reason: "\(xtversion) (XTVERSION)") }
            return TerminalCapabilities(scaling: .none, reason: "\(xtversion) is not known to draw double-size lines")
        }
        // DA2 "CSI > 41 ; version ; 0 c" is xterm; other answers are too vague to trust.
        if let da2, da2.split(separator: ";").first == "41" {
            return TerminalCapabilities(scaling: .decDoubleSize, reason: "xterm (DA2)")
        }
        return TerminalCapabilities(scaling: .none, reason: "terminal not identified")
    }

    private static func versionNumbers(_ text: String) -> [Int]? {
        guard let open = text.firstIndex(where: { $0 == "(" || $0 == " " }) else { return nil }
        let numbers = text[text.index(after: open)...].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.isEmpty ? nil : numbers
    }

    /// Parses what the terminal sent back: XTVERSION `DCS > | text ST`, DA2 `CSI > params c`,
    /// and whether DA1 `CSI ? params c` (the sentinel) arrived.
    static func parseReplies(_ bytes: [UInt8]) -> (xtversion: String?, da2: String?, sawDA1: Bool) {
        let text = String(decoding: bytes, as: UTF8.self)
        var xtversion: String?
        var da2: String?
        var sawDA1 = false
        if let start = text.range(of: "\u{1B}P>|") {
            let rest = text[start.upperBound...]
            let end = rest.range(of: "\u{1B}\\")?.lowerBound ?? rest.firstIndex(of: "\u{07}") ?? rest.endIndex
            xtversion = String(rest[..<end])
        }
        if let start = text.range(of: "\u{1B}[>") {
            let rest = text[start.upperBound...]
            if let end = rest.firstIndex(of: "c") { da2 = String(rest[..<end]) }
        }
        if let start = text.range(of: "\u{1B}[?") {
            sawDA1 = text[start.upperBound...].contains("c")
        }
        return (xtversion, da2, sawDA1)
    }

    /// Talking to the terminal: raw mode on `/dev/tty`, a deadline, the old modes restored.
    enum Probe {
        struct Replies {
            var xtversion: String?
            var da2: String?
        }

        static func query(timeoutMilliseconds: Int) -> Replies? {
            exchange("\u{1B}[>0q\u{1B}[>c\u{1B}[c", timeoutMilliseconds: timeoutMilliseconds, done: { parseReplies($0).sawDA1 }).map {
                let parsed = parseReplies($0)
                return Replies(xtversion: parsed.xtversion, da2: parsed.da2)
            }
        }

        /// Writes a space with OSC 66 width 2 at column 1 and asks where the cursor went: kitty moves it two columns.
        static func kittyTextSizingWorks(timeoutMilliseconds: Int) -> Bool {
            let request = "\r\u{1B}]66;w=2; \u{07}\u{1B}[6n"
            guard
                let reply = exchange(
                    request, timeoutMilliseconds: timeoutMilliseconds, done: { String(decoding: $0, as: UTF8.self).contains("R") }, cleanup: "\r\u{1B}[K")
            else {
                return false
            }
            let text = String(decoding: reply, as: UTF8.self)
            guard let start = text.range(of: "\u{1B}["), let end = text.firstIndex(of: "R") else { return false }
            let parts = text[start.upperBound..<end].split(separator: ";")
            return parts.count == 2 && Int(parts[1]) == 3
        }

        /// Sends `request` to /dev/tty and collects the answer until `done` or the deadline.
        static func exchange(_ request: String, timeoutMilliseconds: Int, done: ([UInt8]) -> Bool, cleanup: String? = nil) -> [UInt8]? {
            let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var saved = termios()
            guard tcgetattr(fd, &saved) == 0 else { return nil }
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
            defer {
                if let cleanup { _ = cleanup.withCString { write(fd, $0, strlen($0)) } }
                var restore = saved
                tcsetattr(fd, TCSAFLUSH, &restore)
            }
            _ = request.withCString { write(fd, $0, strlen($0)) }
            var collected: [UInt8] = []
            let deadline = monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
            var buffer = [UInt8](repeating: 0, count: 256)
            while monotonicNanoseconds() < deadline {
                let left = Int32(max(1, (deadline - monotonicNanoseconds()) / 1_000_000))
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, left)
                if ready <= 0 { continue }
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                collected += buffer[0..<count]
                if done(collected) { return collected }
            }
            return collected.isEmpty ? nil : (done(collected) ? collected : nil)
        }
    }
}
