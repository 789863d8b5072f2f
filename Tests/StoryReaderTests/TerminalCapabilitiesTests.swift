import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit
@testable import StoryReader

@Suite struct TerminalCapabilitiesTests {
    typealias Answer = TerminalCapabilities.EnvironmentAnswer

    static func scaling(_ answer: Answer) -> TextScaling? {
        if case .decided(let capabilities) = answer { return capabilities.scaling }
        return nil
    }

    @Test func orderOfDetection() {
        // Not a terminal, or TERM=dumb: nothing, before anything else is looked at.
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm", "KITTY_WINDOW_ID": "1"], isTTY: false)) == TextScaling.none)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "dumb", "TERM_PROGRAM": "WezTerm"], isTTY: true)) == TextScaling.none)
        // tmux and screen: neither, whatever the outer terminal is.
        #expect(
            Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1", "TMUX": "/tmp/tmux-0/default,1,0"], isTTY: true))
                == TextScaling.none)
        #expect(
            Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm", "TERM_PROGRAM": "WezTerm", "STY": "1.pts-0"], isTTY: true)) == TextScaling.none)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "screen-256color"], isTTY: true)) == TextScaling.none)
        // Hints.
        #expect(
            TerminalCapabilities.fromEnvironment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "3"], isTTY: true) == .kittyCandidate("kitty (KITTY_WINDOW_ID)"))
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], isTTY: true)) == .decDoubleSize)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm-256color", "VTE_VERSION": "7600"], isTTY: true)) == TextScaling.none)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm-256color", "WT_SESSION": "abc"], isTTY: true)) == .decDoubleSize)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "xterm-256color", "TERM_PROGRAM": "vscode"], isTTY: true)) == TextScaling.none)
        #expect(Self.scaling(TerminalCapabilities.fromEnvironment(["TERM": "linux"], isTTY: true)) == TextScaling.none)
        // Nothing known: ask the terminal.
        #expect(TerminalCapabilities.fromEnvironment(["TERM": "xterm-256color"], isTTY: true) == .ask)
    }

    @Test func replies() {
        #expect(TerminalCapabilities.fromReplies(xtversion: "XTerm(390)", da2: "41;390;0").scaling == .decDoubleSize)
        #expect(TerminalCapabilities.fromReplies(xtversion: "kitty(0.41.1)", da2: nil).scaling == .kittyTextSizing)
        #expect(TerminalCapabilities.fromReplies(xtversion: "kitty(0.39.0)", da2: nil).scaling == TextScaling.none)
        #expect(TerminalCapabilities.fromReplies(xtversion: "tmux 3.3a", da2: "84;0;0").scaling == TextScaling.none)
        #expect(TerminalCapabilities.fromReplies(xtversion: "foot(1.16.2)", da2: nil).scaling == TextScaling.none)
        #expect(TerminalCapabilities.fromReplies(xtversion: nil, da2: "41;372;0").scaling == .decDoubleSize)
        #expect(TerminalCapabilities.fromReplies(xtversion: nil, da2: "65;6800;1").scaling == TextScaling.none)
        #expect(TerminalCapabilities.fromReplies(xtversion: nil, da2: nil).scaling == TextScaling.none)
    }

    @Test func parsingReplies() {
        let bytes = Array("\u{1B}P>|XTerm(390)\u{1B}\\\u{1B}[>41;390;0c\u{1B}[?64;1;2;6;9;15;18;21;22c".utf8)
        let parsed = TerminalCapabilities.parseReplies(bytes)
        #expect(parsed.xtversion == "XTerm(390)")
        #expect(parsed.da2 == "41;390;0")
        #expect(parsed.sawDA1)
        let partial = TerminalCapabilities.parseReplies(Array("\u{1B}[>1;10;0c".utf8))
        #expect(partial.xtversion == nil && partial.da2 == "1;10;0" && !partial.sawDA1)
    }

    /// The real probe, in a real terminal: tmux answers XTVERSION, DA2 and DA1 as itself, so with
    /// $TMUX hidden the queries run, get tmux's answers, and tmux is recognised (no scaling).
    @Test func probeInsideTmux() throws {
        guard TmuxSession.isInstalled(for: "the terminal probe under tmux") else { return }
        let folder = try TemporaryFolder("probe")
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("out.txt").path
        let socket = "storyreader-probe-\(UUID().uuidString.prefix(8))"
        // The preview writes to the pane (a terminal), so it asks the terminal what it is.
        let command =
            "env -u TMUX -u STY -u TERM_PROGRAM -u VTE_VERSION -u KITTY_WINDOW_ID -u WT_SESSION TERM=xterm-256color NO_COLOR=1 "
            + "STORYREADER_DATA_DIR=\(folder.path) \(TestPaths.binary.path) preview help --width 60 --height 6; "
            + "stty -a > \(output).stty; touch \(output).done; sleep 30"
        let tmux = Process()
        tmux.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        tmux.arguments = ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "sh", "-c", command]
        // Never a pipe for the command that starts the server: the server would hold it open.
        tmux.standardOutput = FileHandle.nullDevice
        tmux.standardError = FileHandle.nullDevice
        try tmux.run()
        // Not waited for: Foundation's wait on Linux outlives the client while the server it
        // forked runs. The done file says when the pane's command has finished.
        defer {
            let kill = Process()
            kill.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            kill.arguments = ["-L", socket, "kill-server"]
            kill.standardError = FileHandle.nullDevice
            try? kill.run()
            kill.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: output + ".done"), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let capture = Process()
        let pipe = Pipe()
        capture.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        capture.arguments = ["-L", socket, "capture-pane", "-p", "-J"]
        capture.standardOutput = pipe
        try capture.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        capture.waitUntilExit()
        #expect(text.contains("terminal: tmux"), "\(text)")
        #expect(text.contains("theme default"))
        // The terminal was given back as it was: canonical mode and echo on.
        let stty = (try? String(contentsOfFile: output + ".stty", encoding: .utf8)) ?? ""
        #expect(stty.contains(" icanon") && stty.contains(" echo "), "\(stty)")
    }
}
