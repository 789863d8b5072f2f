import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// `storyreader preview` as a user runs it: options, colour rules, motion, large-text methods.
@Suite struct PreviewCommandTests {
    /// Runs preview with a known terminal description (whatever the machine's own environment says).
    static func preview(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ProcessResult {
        // (FORCE_COLOR is left alone: even an empty one means "16 colours" to Node.)
        var base = ["TERM": "xterm", "COLORTERM": "", "CLICOLOR_FORCE": "", "ACCESSIBLE": ""]
        for (key, value) in environment { base[key] = value }
        return try StoryReaderProcess.run(["preview"] + arguments, environment: base)
    }

    @Test func plainByDefaultOnAPipe() throws {
        let result = try Self.preview(["reader", "--width", "60", "--height", "20"])
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("\u{1B}"))
        #expect(result.standardOutput.contains("^^^"))
        #expect(result.standardOutput.split(separator: "\n").count <= 21)
    }

    @Test func colourAlwaysBeatsNoColor() throws {
        let result = try Self.preview(["library", "--color", "always", "--theme", "high-contrast-light"], ["NO_COLOR": "1", "COLORTERM": "truecolor"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("48;2;255;255;255"))
        let sixteen = try Self.preview(["library", "--color", "always", "--theme", "dark"], ["NO_COLOR": "1"])
        #expect(sixteen.standardOutput.contains("\u{1B}[0;97;40m"))
        #expect(!sixteen.standardOutput.contains("38;2;"))
    }

    @Test func colourFromTheEnvironment() throws {
        // FORCE_COLOR=3 gives 24-bit colour even on a pipe and with NO_COLOR.
        let forced = try Self.preview(["library"], ["FORCE_COLOR": "3", "NO_COLOR": "1"])
        #expect(forced.standardOutput.contains("38;2;"))
        // CLICOLOR_FORCE gives colour on a pipe, unless NO_COLOR says no.
        let clicolor = try Self.preview(["library"], ["CLICOLOR_FORCE": "1", "NO_COLOR": ""])
        #expect(clicolor.standardOutput.contains("\u{1B}["))
        let both = try Self.preview(["library"], ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"])
        #expect(!both.standardOutput.contains("\u{1B}"))
        // --color never beats them all.
        let never = try Self.preview(["library", "--color", "never"], ["FORCE_COLOR": "3"])
        #expect(!never.standardOutput.contains("\u{1B}"))
    }

    @Test func saysWhatIsShown() throws {
        let blocks = try Self.preview(["reader", "--text-size", "accessibility2", "--width", "40"])
        // The footer is wrapped to the terminal's width (40 here): read it as one line.
        let footer = blocks.standardOutput.split(separator: "\n").drop { !$0.hasPrefix("— ") }.joined(separator: " ")
        #expect(footer.hasPrefix("— accessibility2, shown as block letters · theme default · 40×24"), "\(footer)")
        #expect(blocks.standardOutput.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 40 })
        let dec = try Self.preview(["reader", "--text-size", "accessibility2", "--scaling", "dec", "--color", "always"])
        #expect(dec.standardOutput.contains("accessibility2, shown at 2× (double-size lines)"))
        #expect(dec.standardOutput.contains("\u{1B}#3") && dec.standardOutput.contains("\u{1B}#4"))
        let kitty = try Self.preview(["reader", "--text-size", "accessibility4", "--scaling", "kitty", "--color", "always"])
        #expect(kitty.standardOutput.contains("accessibility4, shown at 3×"))
        #expect(kitty.standardOutput.contains("\u{1B}]66;s=3;"))
        // Without escapes (a pipe, no colour) the terminal's scaling cannot be used.
        let piped = try Self.preview(["reader", "--text-size", "accessibility2", "--scaling", "dec"])
        #expect(piped.standardOutput.contains("shown as block letters"))
        #expect(!piped.standardOutput.contains("\u{1B}"))
    }

    @Test func motion() throws {
        #expect(try Self.preview(["reader"]).standardOutput.contains("reduced motion: on, no animation"))  // auto, no TTY
        #expect(try Self.preview(["reader", "--reduce-motion"]).standardOutput.contains("reduced motion: on"))
        #expect(try Self.preview(["reader", "--no-reduce-motion"]).standardOutput.contains("reduced motion: off, a new page is revealed in"))
    }

    /// Reduced motion on the real binary: every effect is one written frame; without it, several.
    @Test(arguments: ["reveal", "turn", "celebrate", "loading"])
    func reducedMotionWritesOneFrame(_ effect: String) throws {
        func frames(_ extra: [String], _ environment: [String: String] = [:]) throws -> (count: Int, output: String) {
            let result = try Self.preview(["reader", "--story", "pip", "--effect", effect, "--width", "40"] + extra, environment)
            #expect(result.status == 0, "\(result.standardError)")
            return (result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("— frame ") }.count, result.standardOutput)
        }
        #expect(try frames(["--reduce-motion"]).count == 1)
        #expect(try frames([]).count == 1)  // automatic: no terminal
        #expect(try frames(["--no-reduce-motion"]).count > 1)
        let coloured = try frames(["--no-reduce-motion", "--color", "always"])
        #expect(!coloured.output.split(separator: "\n").contains { TerminalText.blinks(String($0)) })
        if effect == "celebrate" { #expect(try frames(["--reduce-motion"]).output.contains("★ The end! You finished “Pip and the Puddle”.")) }
        if effect == "turn" { #expect(try frames(["--reduce-motion"]).output.contains("page 2 of 6")) }
    }

    @Test func otherScreens() throws {
        let story = try Self.preview(["story", "--story", "el-dragon", "--width", "40"])
        #expect(story.status == 0)
        #expect(story.standardOutput.hasPrefix("El dragón que tenía hipo\n"))
        #expect(story.standardOutput.contains("❯[Read]"))
        let help = try Self.preview(["help"])
        // Help opens on its first meaningful element, the learn-mode button.
        #expect(help.status == 0 && help.standardOutput.hasPrefix("Help\n") && help.standardOutput.contains("Learn mode"))
        let page = try Self.preview(["reader", "--story", "pip", "--page", "2", "--word", "1"])
        #expect(page.status == 0 && page.standardOutput.contains("page 2 of"))
    }

    @Test func badValuesAreExplained() throws {
        let size = try Self.preview(["reader", "--text-size", "huge"])
        #expect(size.status == 2)
        #expect(size.standardError.contains("--text-size huge is not a text size: use one of xSmall"))
        let theme = try Self.preview(["reader", "--theme", "pink"])
        #expect(theme.status == 2 && theme.standardError.contains("high-contrast-dark"))
        let color = try Self.preview(["reader", "--color", "sometimes"])
        #expect(color.status == 2 && color.standardError.contains("auto, always or never"))
        let width = try Self.preview(["reader", "--width", "5"])
        #expect(width.status == 2)
        let page = try Self.preview(["reader", "--page", "99"])
        // One page is said in the singular: "has 1 page: choose --page 1 to 1".
        #expect(page.status == 1 && page.standardError.contains(" page: choose --page 1 to 1"), "\(page.standardError)")
        let screen = try Self.preview(["nowhere"])
        #expect(screen.status == 2)
    }

    @Test(arguments: ThemeName.allCases)
    func everyThemeRenders(_ theme: ThemeName) throws {
        let result = try Self.preview(["reader", "--theme", theme.rawValue, "--color", "always", "--width", "40"], ["COLORTERM": "truecolor"])
        #expect(result.status == 0)
        let background = Theme.named(theme).background.rgb
        #expect(result.standardOutput.contains("48;2;\(background.red);\(background.green);\(background.blue)m"))
        for line in result.standardOutput.split(separator: "\n").dropLast() {
            #expect(TerminalText.visibleWidth(String(line)) <= 40)
            #expect(!TerminalText.blinks(String(line)))
        }
    }
}
