import Testing

@testable import StoryKit

@Suite struct ColorSupportTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var isTTY: Bool
        var choice: ColorChoice = .auto
        var colors: ColorLevel
        var attributes: Bool
        var testDescription: String { "\(environment) tty=\(isTTY) --color \(choice.rawValue)" }
    }

    static let cases: [Case] = [
        // A terminal, nothing set: 16 colours; TERM and COLORTERM raise it.
        Case(environment: ["TERM": "xterm"], isTTY: true, colors: .ansi16, attributes: true),
        Case(environment: ["TERM": "xterm-256color"], isTTY: true, colors: .ansi256, attributes: true),
        Case(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"], isTTY: true, colors: .trueColor, attributes: true),
        Case(environment: ["TERM": "xterm", "COLORTERM": "24bit"], isTTY: true, colors: .trueColor, attributes: true),
        // No terminal, or TERM=dumb: plain lines, no escapes at all.
        Case(environment: ["TERM": "xterm-256color"], isTTY: false, colors: .none, attributes: false),
        Case(environment: ["TERM": "dumb"], isTTY: true, colors: .none, attributes: false),
        // NO_COLOR: no colour, but reverse video and underline stay on a terminal; empty means unset.
        Case(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"], isTTY: true, colors: .none, attributes: true),
        Case(environment: ["TERM": "xterm-256color", "NO_COLOR": ""], isTTY: true, colors: .ansi256, attributes: true),
        Case(environment: ["NO_COLOR": "1"], isTTY: false, colors: .none, attributes: false),
        // CLICOLOR_FORCE: colour without a terminal; "0" is not forcing; NO_COLOR beats it.
        Case(environment: ["CLICOLOR_FORCE": "1"], isTTY: false, colors: .ansi16, attributes: true),
        Case(environment: ["CLICOLOR_FORCE": "1", "COLORTERM": "truecolor"], isTTY: false, colors: .trueColor, attributes: true),
        Case(environment: ["CLICOLOR_FORCE": "0"], isTTY: false, colors: .none, attributes: false),
        Case(environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"], isTTY: false, colors: .none, attributes: false),
        // FORCE_COLOR as Node: 0 off, 1 16, 2 256, 3 24-bit; it beats NO_COLOR and TERM=dumb.
        Case(environment: ["FORCE_COLOR": "0", "TERM": "xterm-256color"], isTTY: true, colors: .none, attributes: true),
        Case(environment: ["FORCE_COLOR": "1"], isTTY: false, colors: .ansi16, attributes: true),
        Case(environment: ["FORCE_COLOR": ""], isTTY: false, colors: .ansi16, attributes: true),
        Case(environment: ["FORCE_COLOR": "true"], isTTY: false, colors: .ansi16, attributes: true),
        Case(environment: ["FORCE_COLOR": "2"], isTTY: false, colors: .ansi256, attributes: true),
        Case(environment: ["FORCE_COLOR": "3", "NO_COLOR": "1"], isTTY: false, colors: .trueColor, attributes: true),
        Case(environment: ["FORCE_COLOR": "3", "TERM": "dumb"], isTTY: true, colors: .trueColor, attributes: true),
        Case(environment: ["FORCE_COLOR": "false"], isTTY: false, colors: .none, attributes: false),
        // The flag beats every variable.
        Case(environment: ["NO_COLOR": "1"], isTTY: false, choice: .always, colors: .ansi16, attributes: true),
        Case(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"], isTTY: true, choice: .always, colors: .trueColor, attributes: true),
        Case(environment: ["FORCE_COLOR": "3", "TERM": "xterm"], isTTY: true, choice: .never, colors: .none, attributes: true),
        Case(environment: ["CLICOLOR_FORCE": "1"], isTTY: false, choice: .never, colors: .none, attributes: false),
        Case(environment: ["TERM": "dumb"], isTTY: true, choice: .never, colors: .none, attributes: false),
    ]

    @Test(arguments: cases)
    func rule(_ example: Case) {
        let style = ColorSupport.style(environment: example.environment, isTTY: example.isTTY, choice: example.choice)
        #expect(style.colors == example.colors)
        #expect(style.attributes == example.attributes)
    }

    @Test func colourImpliesEscapes() {
        #expect(TerminalStyle(colors: .ansi16, attributes: false).attributes)
        #expect(!TerminalStyle.plain.attributes)
    }
}
