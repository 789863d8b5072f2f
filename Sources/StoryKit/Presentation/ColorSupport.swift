/// How many colours the output can show.
public enum ColorLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    case none = 0
    case ansi16, ansi256, trueColor

    public static func < (lhs: ColorLevel, rhs: ColorLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The `--color` flag.
public enum ColorChoice: String, Sendable, Hashable, CaseIterable {
    case auto, always, never
}

/// What the renderer may write: colours, and whether any escape sequence at all (bold, reverse
/// video, underline) is allowed.
public struct TerminalStyle: Sendable, Hashable {
    public var colors: ColorLevel
    /// False for plain appended lines: no TTY, `TERM=dumb`, a pipe, a braille display's log.
    public var attributes: Bool

    public init(colors: ColorLevel, attributes: Bool) {
        self.colors = colors
        self.attributes = attributes || colors != .none
    }

    /// No escape sequences at all.
    public static let plain = TerminalStyle(colors: .none, attributes: false)
    /// Bold, underline and reverse video, no colour (`NO_COLOR` on a terminal).
    public static let monochrome = TerminalStyle(colors: .none, attributes: true)
    public static let trueColor = TerminalStyle(colors: .trueColor, attributes: true)
}

/// Decides colour from the environment, whether output is a terminal, and the `--color` flag.
///
/// The order, first match wins:
/// 1. `--color always` / `--color never` (a flag beats every variable);
/// 2. `FORCE_COLOR` as Node defines it: `0`/`false` no colour, `1`/`true`/empty 16 colours, `2` 256,
///    `3` 24-bit (Node lets it beat `NO_COLOR`);
/// 3. `NO_COLOR` non-empty: no colour (bold, underline and reverse video stay on a terminal);
/// 4. `CLICOLOR_FORCE` non-empty and not `0`: colour even without a terminal;
/// 5. no terminal, or `TERM=dumb`: plain lines, no escapes;
/// 6. otherwise `COLORTERM=truecolor|24bit` → 24-bit, `TERM` with `256color` → 256, else 16.
public enum ColorSupport {
    public static func style(environment: [String: String], isTTY: Bool, choice: ColorChoice = .auto) -> TerminalStyle {
        let term = environment["TERM"] ?? ""
        let escapesWork = isTTY && term != "dumb"
        switch choice {
        case .always:
            return TerminalStyle(colors: max(.ansi16, detectedLevel(environment)), attributes: true)
        case .never:
            return TerminalStyle(colors: .none, attributes: escapesWork)
        case .auto:
            break
        }
        if let force = environment["FORCE_COLOR"] {
            switch force.lowercased() {
            case "0", "false": return TerminalStyle(colors: .none, attributes: escapesWork)
            case "2": return TerminalStyle(colors: .ansi256, attributes: true)
            case "3": return TerminalStyle(colors: .trueColor, attributes: true)
            case "", "1", "true": return TerminalStyle(colors: .ansi16, attributes: true)
            default: break  // an unknown value is ignored, as Node does
            }
        }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty {
            return TerminalStyle(colors: .none, attributes: escapesWork)
        }
        if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" {
            return TerminalStyle(colors: max(.ansi16, detectedLevel(environment)), attributes: true)
        }
        guard escapesWork else { return .plain }
        return TerminalStyle(colors: max(.ansi16, detectedLevel(environment)), attributes: true)
    }

    /// What `COLORTERM` and `TERM` say the terminal can show.
    static func detectedLevel(_ environment: [String: String]) -> ColorLevel {
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .trueColor }
        let term = environment["TERM"] ?? ""
        if term.contains("256color") || term.contains("direct") { return .ansi256 }
        return .ansi16
    }
}
