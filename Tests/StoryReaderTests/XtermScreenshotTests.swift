import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// What a sighted child sees, on a real xterm (Xvfb, DejaVu Sans Mono, 80×24) whose own background
/// is magenta, a colour no theme uses: driven with real keys, photographed with `import`, and no
/// magenta pixel may show anywhere in the window (which is all text area: no inner border), on
/// the library and while reading, for every theme at accessibility1, 3 and 5.
///
/// One xterm per text size (three in all): the themes are switched live with `:set theme`, so the
/// test also sees frames drawn over a different earlier frame. The text size comes from the
/// command line and must hold after the profile is chosen on the first screen. Screenshots of a
/// failing run stay in the folder the failure names.
@Suite(.serialized) struct XtermScreenshotTests {
    static let terminalBackground = "#FF00FF"

    @Test func noCellInTheTerminalsOwnColoursAtAnySizeOrTheme() throws {
        guard let x = XServer.forTest(needing: [("xterm", "xterm")], "X tests") else { return }
        defer { x.stop() }
        let started = Date()
        let fixture = try ReplFixture(withProfiles: true)
        let shots = fixture.folder.url.appendingPathComponent("screenshots").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        var failures: [String] = []
        var counts: [String] = []
        for size in [TextSizePreset.accessibility1, .accessibility3, .accessibility5] {
            let title = "storyreader-\(size.rawValue)-\(getpid())"
            let command = [
                TestPaths.binary.path, "--no-audio", "--stories", TestPaths.stories.path, "--data-dir", fixture.data,
                "--text-size", size.rawValue, "--theme", ThemeName.allCases[0].rawValue,
            ]
            // More tries if the window does not map (a loaded machine), before calling it a failure.
            let open = { try x.xterm(title: title, background: Self.terminalBackground, command: command, environment: x.terminalEnvironment()) }
            guard let window = try x.opening(open) else {
                failures.append("\(size.rawValue): the xterm window did not appear: \(x.lastOpenFailure)")
                continue
            }
            defer { window.close() }
            Thread.sleep(forTimeInterval: 2.0)
            // The first screen: choose the first profile (Maya) with Enter.
            window.key("Return")
            Thread.sleep(forTimeInterval: 1.0)
            func photograph(_ screen: String, _ theme: ThemeName) {
                let path = "\(shots)/\(size.rawValue)-\(theme.rawValue)-\(screen).png"
                window.screenshot(path)
                let count = TerminalWindow.pixels(of: Self.terminalBackground, in: path)
                counts.append("\(size.rawValue) \(theme.rawValue) \(screen): \(count)")
                if !FileManager.default.fileExists(atPath: path) { failures.append("no screenshot \(path)") }
                if count > 0 { failures.append("\(count) pixels of the terminal's own background on \(path)") }
                // A blank or unpainted window would have no magenta either: something must be drawn
                // on the background (every pixel not of the commonest colour counts).
                let ink = TerminalWindow.pixelsOffTheBackground(in: path)
                counts[counts.count - 1] += " (\(ink) drawn)"
                if ink < 10_000 { failures.append("only \(ink) pixels drawn on \(path): is the screen blank?") }
            }
            for theme in ThemeName.allCases {
                window.command("set theme \(theme.rawValue)")
                photograph("library", theme)
            }
            window.command("read moon", settle: 1.5)
            for theme in ThemeName.allCases {
                window.command("set theme \(theme.rawValue)")
                photograph("reading", theme)
            }
        }
        print(
            "xterm screenshots: \(counts.count) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s; magenta pixels: \(counts.joined(separator: "; "))"
        )
        #expect(counts.count == 3 * 2 * ThemeName.allCases.count, "every size, theme and screen photographed")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\nScreenshots kept in \(shots)")
        if failures.isEmpty, counts.count == 3 * 2 * ThemeName.allCases.count { fixture.remove() }
    }

    /// What `preview` detects inside a real terminal (run through `script`, so it has a terminal
    /// and its footer can be read back).
    static func detect(in x: XServer, terminal: (String, [String: String]) throws -> TerminalWindow?, folder: URL) throws -> String? {
        let out = folder.appendingPathComponent("preview-\(UUID().uuidString.prefix(6)).txt").path
        // What the preview found is in its transcript, window or not: with the whole suite on two
        // cores the terminal once ran the preview and exited before xdotool saw its window.
        let window = try terminal(previewShell(writingTo: out), x.terminalEnvironment())
        defer { window?.close() }
        // Until the footer is written (or the terminal is gone): a loaded machine once took over
        // 15 s to start the debug build inside xterm.
        let deadline = Date().addingTimeInterval(45)
        while Date() < deadline, window?.process.isRunning == true, footer(transcript(out)).isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        Thread.sleep(forTimeInterval: 0.2)
        let text = transcript(out)
        return text.isEmpty ? nil : text
    }

    /// A shell command that runs `preview` with a terminal (through `script`) and keeps its output.
    static func previewShell(writingTo out: String) -> String {
        let preview = "\(TestPaths.binary.path) preview library --stories \(TestPaths.stories.path) --width 80 --height 24 --text-size accessibility3"
        // The window stays a few seconds after the preview: an idle machine ran it so fast that
        // xterm had exited before its window was looked for (the detection then saw no window).
        return "script -qfec '\(preview)' \(out) >/dev/null; sleep 3"
    }

    /// What `script` kept, as plain lines, without its own first and last lines ("Script started on …", "Script done …").
    static func transcript(_ out: String) -> String {
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return TerminalText.stripEscapes(text).replacingOccurrences(of: "\r", with: "")
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Script started") && !$0.hasPrefix("Script done") }
            .joined(separator: "\n")
    }

    /// The footer's lines (from "— "), joined back into one.
    static func footer(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.lastIndex(where: { $0.hasPrefix("— ") }) else { return "" }
        return lines[start...].joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func xtermIsDetectedAsDrawingDoubleSizeLinesAndTheFooterFits() throws {
        guard let x = XServer.forTest(needing: [("xterm", "xterm")], "X tests") else { return }
        defer { x.stop() }
        let folder = try TemporaryFolder("xterm-detect")
        defer { folder.remove() }
        let xterm: (String, [String: String]) throws -> TerminalWindow? = { shell, environment in
            try x.xterm(title: "detect-\(getpid())", background: "#FF00FF", command: ["sh", "-c", shell], environment: environment)
        }
        let text = try Self.detect(in: x, terminal: xterm, folder: folder.url) ?? Self.detect(in: x, terminal: xterm, folder: folder.url)
        let footer = Self.footer(try #require(text))
        #expect(footer.contains("shown at 2× (double-size lines)"), "xterm: \(footer)")
        #expect(footer.contains("terminal: xterm"), "xterm: \(footer)")
        for line in (text ?? "").split(separator: "\n") { #expect(DisplayWidth.of(String(line)) <= 80, "wider than 80: «\(line)»") }

        // TERM=linux (what the Linux console sets): no double-size lines, block letters instead.
        // One more try if no window came (on a loaded machine one once took over 40 s to map).
        let linuxTerminal: (String, [String: String]) throws -> TerminalWindow? = { shell, environment in
            var environment = environment
            environment["TERM"] = "linux"
            return try x.xterm(
                title: "detect-linux-\(getpid())", background: "#FF00FF", command: ["sh", "-c", "TERM=linux; export TERM; " + shell], environment: environment)
        }
        let linux =
            try Self.detect(in: x, terminal: linuxTerminal, folder: folder.url)
            ?? Self.detect(in: x, terminal: linuxTerminal, folder: folder.url)
        let linuxFooter = Self.footer(try #require(linux))
        #expect(linuxFooter.contains("shown as block letters") && linuxFooter.contains("linux has no double-size lines"), "TERM=linux: \(linuxFooter)")
    }

    @Test func kitty026FailsTheTextSizingProbeAndGetsBlockLetters() throws {
        guard let x = XServer.forTest(needing: [("kitty", "kitty")], "kitty test") else { return }
        defer { x.stop() }
        let folder = try TemporaryFolder("kitty-detect")
        defer { folder.remove() }
        let title = "kitty-detect-\(getpid())"
        let text = try Self.detect(
            in: x,
            terminal: { shell, environment in
                try x.open(
                    ["/usr/bin/kitty", "--config", "NONE", "-o", "background=#ff00ff", "--title", title, "sh", "-c", shell], title: title,
                    environment: environment)
            }, folder: folder.url)
        guard let text else {
            print("kitty test skipped: kitty did not open a window under Xvfb (it needs OpenGL 3.3; Mesa's software renderer provides it)")
            return
        }
        let footer = Self.footer(text)
        #expect(footer.contains("OSC 66 probe failed") && footer.contains("shown as block letters"), "kitty: \(footer)")
    }

    /// GNOME Terminal 3.46 on VTE 0.70 (Debian 12): no double-size lines, so block letters. Its
    /// windows belong to a server started over D-Bus, so it runs in a D-Bus session of its own and
    /// `--wait` keeps the launcher until the preview has ended.
    @Test func gnomeTerminalIsVTEAndGetsBlockLetters() throws {
        guard let x = XServer.forTest(needing: [("gnome-terminal", "gnome-terminal"), ("dbus-run-session", "dbus-daemon")], "GNOME Terminal test") else {
            return
        }
        defer { x.stop() }
        let folder = try TemporaryFolder("gnome-detect")
        defer { folder.remove() }
        let out = folder.url.appendingPathComponent("preview.txt").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
        process.arguments = ["--", "/usr/bin/gnome-terminal", "--wait", "--", "sh", "-c", Self.previewShell(writingTo: out)]
        process.environment = x.terminalEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        XServer.watch(process, seconds: 60)
        process.waitUntilExit()
        let footer = Self.footer(Self.transcript(out))
        #expect(
            footer.contains("VTE (GNOME Terminal and friends) has no double-size lines") && footer.contains("shown as block letters"),
            "GNOME Terminal: «\(footer)»")
    }

    @Test func tmuxGetsNeitherDoubleSizeLinesNorTextSizing() throws {
        guard TmuxSession.isInstalled(for: "the tmux text-size test") else { return }
        let tmux = TmuxSession()
        defer { tmux.kill() }
        try tmux.start(script: "\(TestPaths.binary.path) preview library --stories \(TestPaths.stories.path) --height 20 --text-size accessibility3; sleep 30")
        let screen = try tmux.waitFor("terminal:")
        let footer = Self.footer(screen.replacingOccurrences(of: "\r", with: ""))
        #expect(footer.contains("tmux or screen") && footer.contains("shown as block letters"), "tmux: \(footer)")
    }

    /// A line that fills the row keeps its last character in a real xterm: the rule above the
    /// captions spans all 80 columns, so the last column of cells has ink. (Clearing after a full
    /// line once erased it there: "Appuie" was drawn "Appui", the rule one cell short; tmux, which
    /// the other tests drive, never showed it.)
    @Test func aLineThatFillsTheRowKeepsItsLastCharacter() throws {
        guard let x = XServer.forTest(needing: [("xterm", "xterm")], "X tests") else { return }
        defer { x.stop() }
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let title = "storyreader-last-column-\(getpid())"
        let command = [TestPaths.binary.path, "--no-audio", "--stories", TestPaths.stories.path, "--data-dir", fixture.data]
        let open = { try x.xterm(title: title, background: Self.terminalBackground, command: command, environment: x.terminalEnvironment()) }
        let window = try #require(try x.opening(open), "the xterm window did not appear: \(x.lastOpenFailure)")
        defer { window.close() }
        Thread.sleep(forTimeInterval: 2.0)
        let path = fixture.folder.url.appendingPathComponent("last-column.png").path
        window.screenshot(path)
        let size = x.run("/usr/bin/identify", ["-format", "%w %h", path]).split(separator: " ").compactMap { Int($0) }
        try #require(size.count == 2 && size[0] >= 80, "no screenshot: \(size)")
        let cell = size[0] / 80
        func ink(column: Int) -> Int {
            let crop = path + "-\(column).png"
            _ = x.run("/usr/bin/convert", [path, "-crop", "\(cell)x\(size[1])+\(column * cell)+0", "+repage", crop])
            return TerminalWindow.pixelsOffTheBackground(in: crop)
        }
        let last = ink(column: 79)
        let beforeLast = ink(column: 78)
        #expect(beforeLast > 0, "nothing drawn in column 79: is the screen blank?")
        #expect(last > 0, "the last column has no ink: a full line lost its last character (column 79: \(beforeLast) pixels)")
    }
}
