import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// A tmux server of its own (a unique socket), one window (80×24 unless asked) running a shell
/// script. Shared by every suite that drives the real terminal.
struct TmuxSession {
    let socket = "storyreader-test-\(getpid())-\(UUID().uuidString.prefix(6))"
    let name = "repl"
    var columns = 80
    var rows = 24

    /// Whether tmux is installed; when not, a failure is recorded that says how to install it
    /// (`make test` does), rather than the test passing or skipping quietly.
    static func isInstalled(for what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        RequiredTool.find("tmux", package: "tmux", for: what, sourceLocation: sourceLocation) != nil
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { RequiredTool.missing([("tmux", "tmux")], for: "a terminal test") }
    }

    /// Runs tmux; `capture` reads its output (never for the command that starts the server,
    /// which would keep the pipe open for as long as the server lives).
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", socket] + arguments
        process.standardError = FileHandle.nullDevice
        guard capture else {
            // Not waited for: the server it forks inherits Foundation's exit-watching descriptor,
            // and waitUntilExit would wait for the server too. `start` polls has-session instead.
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return ""
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func start(script: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard Self.isInstalled(for: "a terminal test", sourceLocation: sourceLocation) else { throw Missing() }
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", name, "sh", "-c", script], capture: false)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(try tmux(["list-sessions", "-F", "#{session_name}"]).contains(name)) {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Types a `:` command and Enter, as a person at the keyboard does.
    func command(_ text: String) throws {
        try send(":")
        try send("-l", text)
        try send("Enter")
    }

    /// Types `text` literally, then Enter (an answer at a prompt).
    func type(_ text: String) throws {
        try send("-l", text)
        try send("Enter")
    }

    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

    /// Waits (up to `seconds`) until the screen contains `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("timed out waiting for «\(text)»; the screen was:\n\(last)")
        return last
    }

    /// Ends the pane's processes, then the server: servers started from the test runner ignore
    /// SIGHUP, so kill-server alone can leave them (and what runs in the pane) running.
    func kill() {
        let panes = (try? tmux(["list-panes", "-a", "-F", "#{pane_pid}"])) ?? ""
        for pid in panes.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { Foundation.kill(pid, SIGKILL) }
        _ = try? tmux(["kill-server"])
    }
}

extension ReplFixture {
    /// A script run in the pane: records `stty -a` before and after storyreader, its pid (in
    /// `pid`) and exit status (in `status`), then prints DONE.
    func paneScript(subcommand: [String] = [], extra: String = "") -> String {
        let dir = folder.path
        let binary = TestPaths.binary.path
        let arguments = (subcommand + self.arguments).map { "'\($0)'" }.joined(separator: " ")
        return """
            stty -a > \(dir)/before; \
            sh -c 'echo $$ > \(dir)/pid; exec \(binary) \(arguments) \(extra)'; \
            echo $? > \(dir)/status; stty -a > \(dir)/after; echo DONE; sleep 30
            """
    }

    /// A file the pane script wrote (empty when missing).
    func file(_ name: String) -> String {
        (try? String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)) ?? ""
    }

    /// The speech log's lines so far (`STORYREADER_SPEECH_LOG` pointed at `speech.log` here).
    func speechLog() -> [String] {
        file("speech.log").split(separator: "\n").map(String.init)
    }

    /// Waits (up to `seconds`) until the speech log meets `condition`; records an issue if it never does.
    func waitForSpeechLog(_ what: String, seconds: Double = 20, _ condition: ([String]) -> Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(speechLog()) {
            if Date() > deadline {
                Issue.record("timed out waiting for \(what); speech log: \(speechLog())")
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

@Suite(.serialized)
struct ReplTmuxTests {
    /// A script run in the pane: records `stty -a` before and after storyreader, and its pid and status.
    func script(_ fixture: ReplFixture, extra: String = "") -> String { fixture.paneScript(extra: extra) }

    func file(_ fixture: ReplFixture, _ name: String) -> String { fixture.file(name) }

    @Test func pickAProfileReadPauseResumeWithRealKeysAndQuit() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture))
        var screen = try tmux.waitFor("Who is reading?")
        #expect(screen.contains("❯[Maya"))
        try tmux.send("Down")
        try tmux.waitFor("❯[Reader")
        try tmux.send("Down")
        try tmux.waitFor("❯[Sam")
        try tmux.send("Up", "Up")
        try tmux.waitFor("❯[Maya")
        try tmux.send("Enter")
        screen = try tmux.waitFor("Hello Maya.")
        #expect(screen.contains("Animals — contains 2 stories"))
        try tmux.send("h")
        try tmux.waitFor("❯ Animals")
        try tmux.send("Tab")
        try tmux.send("Tab")
        try tmux.waitFor("❯ Story: The Tiny Fox")
        try tmux.send("Enter")
        try tmux.waitFor("❯[Read]")
        // Slow enough to pause in the middle: 80 words a minute.
        try tmux.command("set rate 80")
        try tmux.waitFor("Speed: 80 words per minute.")
        try tmux.send("Enter")
        screen = try tmux.waitFor("❯[Pause]")
        #expect(screen.contains("Progress: page 1 of 1, ▶ reading"))
        try tmux.send("Space")
        screen = try tmux.waitFor("Paused at ‘")
        #expect(screen.contains("❯[Play]"))
        #expect(screen.contains("’, sentence "), "the pause says the word and the sentence:\n\(screen)")
        #expect(screen.contains("Space pause · ←→ sentence"), "the reading keys are on the screen:\n\(screen)")
        try tmux.command("set rate 450")
        try tmux.send("Enter")
        try tmux.waitFor("you have read The Tiny Fox once", seconds: 15)
        try tmux.send("Escape")
        try tmux.waitFor("❯[Read]")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        #expect(file(fixture, "status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(!file(fixture, "before").isEmpty)
        #expect(file(fixture, "before") == file(fixture, "after"))
    }

    /// A text size given on the command line holds for the whole run however the profile is
    /// chosen: Maya's own size is the default, yet after Enter on her name the story is drawn in
    /// block letters (tmux shows no double-size lines) and Settings say the size is for this run.
    @Test func aTextSizeFromTheCommandLineHoldsAfterAProfileIsChosenOnTheFirstScreen() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--text-size accessibility5"))
        try tmux.waitFor("Who is reading?")
        try tmux.send("Enter")
        try tmux.command("set rate 80")
        try tmux.command("read tiny fox")
        let screen = try tmux.waitFor("█")
        let blockRows = screen.split(separator: "\n").filter { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }
        #expect(blockRows.count >= 4, "the sentence is drawn in block letters after choosing Maya:\n\(screen)")
        try tmux.send("q")
        try tmux.waitFor("» Stopped.")
        try tmux.command("settings")
        let settings = try tmux.waitFor("(for this run)")
        #expect(settings.contains("accessibility5") || settings.contains("Accessibility 5") || settings.contains("AX5"), "\(settings)")
    }

    /// Word mode with real keys: while paused, Right and Left move word by word and say the word
    /// (a caption each), and e spells the word.
    @Test func whilePausedTheArrowKeysMoveWordByWord() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture))
        try tmux.waitFor("Who is reading?")
        try tmux.send("Enter")
        try tmux.command("set rate 80")
        try tmux.command("read tiny fox")
        try tmux.waitFor("The tiny fox woke up.")
        try tmux.waitFor("She looked", seconds: 15)
        try tmux.send("Space")
        let paused = try tmux.waitFor("Paused at ‘")
        let word = try #require(paused.firstMatch(of: /Paused at ‘(\w+)’/)?.1)
        let words = ["The", "tiny", "fox", "woke", "up", "She", "looked", "for", "the", "moon"]
        let index = try #require(words.firstIndex(of: String(word)))
        try tmux.send("Right")
        try tmux.waitFor("» \(words[index + 1])\n")
        try tmux.send("Right")
        try tmux.waitFor("» \(words[index + 2])\n")
        try tmux.send("Left")
        let back = try tmux.waitFor("» \(words[index + 1])\n» \(words[index + 2])\n» \(words[index + 1])")
        #expect(back.contains("Paused at ‘\(word)’"))
        try tmux.send("e")
        let spelled = words[index + 1].lowercased().map(String.init).joined(separator: ", ") + "."
        try tmux.waitFor(spelled)
    }

    /// After the terminal is resized, bigger and then smaller, the screen is drawn again at the
    /// new size and every cell carries the theme's background: none is left in the terminal's own.
    @Test func afterAResizeEveryCellIsPaintedByTheTheme() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--theme high-contrast-dark --color always"))
        try tmux.waitFor("Who is reading?")
        try tmux.send("Enter")
        try tmux.waitFor("Hello Maya.")
        for (columns, rows, screen) in [(100, 30, "library"), (60, 20, "reader")] {
            if screen == "reader" {
                try tmux.command("read tiny fox")
                try tmux.waitFor("Reading The Tiny Fox")
            }
            try tmux.tmux(["resize-window", "-t", tmux.name, "-x", String(columns), "-y", String(rows)])
            let divider = String(repeating: "─", count: columns)
            try tmux.waitFor(divider)
            Thread.sleep(forTimeInterval: 0.3)
            let cells = try tmux.tmux(["capture-pane", "-e", "-N", "-p", "-t", tmux.name])
            let unpainted = Self.cellsWithoutBackground(cells)
            #expect(cells.split(separator: "\n", omittingEmptySubsequences: false).count >= rows)
            #expect(unpainted == 0, "\(screen) at \(columns)×\(rows): \(unpainted) cells in the terminal's own background")
        }
    }

    /// Cells of a `capture-pane -e -N` dump printed with no background colour set (SGR state is
    /// carried from cell to cell and line to line, as tmux writes it).
    static func cellsWithoutBackground(_ dump: String) -> Int {
        var hasBackground = false
        var unpainted = 0
        var scalars = dump.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            if scalar == "\u{1B}", scalars.first == "[" {
                let body = scalars.dropFirst().prefix { !("@"..."~").contains($0) }
                scalars = scalars.dropFirst(body.count + 2)
                let parameters = String(String.UnicodeScalarView(body)).split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                var index = 0
                while index < parameters.count {
                    switch parameters[index] {
                    case 0, 49: hasBackground = false
                    case 40...47, 100...107: hasBackground = true
                    case 48:
                        hasBackground = true
                        index += parameters[safe: index + 1] == 5 ? 2 : 4
                    case 38: index += parameters[safe: index + 1] == 5 ? 2 : 4
                    default: break
                    }
                    index += 1
                }
            } else if scalar != "\n", !hasBackground {
                unpainted += 1
            }
        }
        return unpainted
    }

    @Test func theWordBeingHeardIsHighlighted() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.command("set rate 80")
        try tmux.command("read tiny fox")
        try tmux.waitFor("❯[Pause]")
        Thread.sleep(forTimeInterval: 1.2)
        let styled = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.name])
        // The word being heard is underlined (with the theme's highlight colours) in the text.
        let underlined = styled.components(separatedBy: "\u{1B}[").filter {
            $0.hasPrefix("4m") || $0.hasPrefix("4;") || $0.contains(";4m") || $0.contains(";4;")
        }
        #expect(!underlined.isEmpty, "no underlined word in:\n\(styled)")
        try tmux.send("C-c")
        try tmux.waitFor("DONE")
        #expect(file(fixture, "before") == file(fixture, "after"))
    }

    @Test func createAProfileWithRealKeys() throws {
        let fixture = try ReplFixture(withProfiles: false)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture))
        // The default profile comes first; New profile after the profiles.
        try tmux.waitFor("❯[Reader")
        try tmux.send("Down")
        try tmux.waitFor("❯[New profile]")
        try tmux.send("Enter")
        try tmux.waitFor("❯ Name:")
        try tmux.send("-l", "Ada")
        // Enter on a field checks it and moves to the next.
        try tmux.send("Enter")
        try tmux.waitFor("❯ Age:")
        try tmux.send("-l", "40")
        // Age → interests, voice, rate, pitch, volume, text size, reduced motion, theme, hints, step mode,
        // line focus, syllables, spacing, language, braille, narration, recording tempo, bedtime, coach waits → Save.
        for _ in 0..<20 { try tmux.send("Tab") }
        try tmux.waitFor("❯[Save]")
        try tmux.send("Enter")
        var screen = try tmux.waitFor("Age: 40 is out of range")
        // The problem is captioned under the form (the form is taller than 24 rows: its warning
        // line at the top has scrolled away to keep the focused field in view).
        #expect(screen.contains("» Age: 40 is out of range: type a whole number of years from 2 to 12."))
        #expect(screen.contains("❯ Age: 40"))
        // Enter on the field says its problem once and keeps the focus there.
        try tmux.send("Enter")
        screen = try tmux.waitFor("❯ Age: 40")
        try tmux.send("BSpace", "BSpace")
        try tmux.send("-l", "6")
        // Put right, Enter says the new value and moves on.
        try tmux.send("Enter")
        try tmux.waitFor("» Age: 6. That is right now.")
        try tmux.waitFor("❯ Interests:")
        // Text size is a picker: Right says the next size and its place in the list.
        for _ in 0..<5 { try tmux.send("Tab") }
        try tmux.waitFor("❯ ◀ Text size: large, 4 of 12")
        try tmux.send("Right")
        try tmux.waitFor("» xLarge, 5 of 12.")
        for _ in 0..<14 { try tmux.send("Tab") }
        try tmux.waitFor("❯[Save]")
        try tmux.send("Enter")
        screen = try tmux.waitFor("Profile Ada saved.")
        #expect(screen.contains("Profile: Ada"))
        try tmux.send("Escape")
        try tmux.send("?")
        // Help opens on its first key, to be read down; the learn-mode button is last.
        let help = try tmux.waitFor("❯ ? (question mark)")
        #expect(help.contains("Help"))
        #expect(!help.contains("✓ read"), "a command name drawn as a state badge")
        try tmux.command("learn")
        try tmux.waitFor("Learn mode. Press any key")
        try tmux.send("Down")
        try tmux.waitFor("Down arrow: next item.")
        try tmux.send("Escape")
        try tmux.waitFor("Learn mode off.")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        #expect(file(fixture, "before") == file(fixture, "after"))
        #expect(try fixture.openStore().requireProfile(named: "Ada").age == 6)
        #expect(try fixture.openStore().requireProfile(named: "Ada").settings.textSize == .xLarge)
        #expect(!FileManager.default.fileExists(atPath: fixture.data + "/session.json"))
    }

    @Test func theStoreChecksThePINTypedWithRealKeys() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try fixture.openStore().setPIN("2468")
        try tmux.start(script: script(fixture, extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.command("settings")
        try tmux.waitFor("Type the PIN, then press Enter.")
        try tmux.send("-l", "1357")
        try tmux.send("Enter")
        var screen = try tmux.waitFor("That PIN is not right. Try again.")
        #expect(!screen.contains("1357"), "the PIN is never shown")
        try tmux.send("-l", "2468")
        try tmux.waitFor("4 digits entered")
        try tmux.send("Enter")
        screen = try tmux.waitFor("Settings for Maya")
        #expect(!screen.contains("2468"))
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        #expect(file(fixture, "before") == file(fixture, "after"))
    }

    @Test(arguments: ["TERM", "HUP"])
    func theTerminalIsRestoredAfterASignal(signal: String) throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.send("h")
        try tmux.waitFor("❯ Animals")
        let pid = try #require(Int32(file(fixture, "pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Foundation.kill(pid, signal == "TERM" ? SIGTERM : SIGHUP) == 0)
        try tmux.waitFor("DONE")
        #expect(file(fixture, "status").trimmingCharacters(in: .whitespacesAndNewlines) == (signal == "TERM" ? "143" : "129"))
        #expect(!file(fixture, "before").isEmpty)
        #expect(file(fixture, "before") == file(fixture, "after"))
    }

    @Test func aLoneEscapeIsToldApartFromAnArrow() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.send("h", "Down", "Down", "Enter")
        try tmux.waitFor("❯[Read]")
        try tmux.send("Escape")
        try tmux.waitFor("❯ Story: The Tiny Fox")
        try tmux.send("Down")
        let screen = try tmux.waitFor("❯ More stories")
        #expect(screen.contains("Library"))
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }

    /// Where the terminal's cursor is (column, row, shown), as tmux reports it.
    func cursor(_ tmux: TmuxSession) throws -> (x: Int, y: Int, shown: Bool) {
        let parts = try tmux.tmux(["display", "-p", "-t", tmux.name, "#{cursor_x},#{cursor_y},#{cursor_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        return parts.count == 3 ? (parts[0], parts[1], parts[2] == 1) : (-1, -1, false)
    }

    /// The text of the pane from a place on (an ASCII-safe slice: the screens here are ASCII
    /// around the focus).
    func text(_ screen: String, at place: (x: Int, y: Int, shown: Bool)) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard place.y >= 0, place.y < lines.count, place.x <= lines[place.y].count else { return "" }
        return String(lines[place.y][place.x...])
    }

    /// A braille display or the user's own screen reader follows the cursor: it sits on the
    /// focused item (just after the ❯ marker), on the word being heard, and at the end of a typed
    /// command; hidden by default, shown with --cursor visible.
    @Test func theCursorSitsOnTheFocusTheWordAndTheCommandLine() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: script(fixture, extra: "--profile Maya --cursor visible"))
        try tmux.waitFor("Hello Maya.")
        for key in ["Down", "Down", "Tab"] {
            try tmux.send(key)
            Thread.sleep(forTimeInterval: 0.4)
            let screen = try tmux.screen()
            let place = try cursor(tmux)
            #expect(place.shown)
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let focused = try #require(lines.firstIndex { $0.contains("❯") }, "\(screen)")
            #expect(place.y == focused, "the cursor is on the focused row after \(key): \(place) in\n\(screen)")
            let marker = try #require(lines[focused].firstIndex(of: "❯"))
            let column = lines[focused].distance(from: lines[focused].startIndex, to: marker)
            #expect(place.x == column + 1 || place.x == column + 2, "just after the marker: \(place), marker at \(column)")
            #expect(!text(screen, at: place).hasPrefix(" "))
        }
        try tmux.send(":")
        try tmux.send("-l", "rea")
        // Drawn when the three letters are read: polled, as a loaded machine may take longer than
        // a fixed wait (the cursor was then still after “:re”).
        var typing = try cursor(tmux)
        let deadline = Date().addingTimeInterval(10)
        while !(typing.y == 23 && typing.x == 4), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            typing = try cursor(tmux)
        }
        #expect(typing.y == 23 && typing.x == 4, "on the ▏ after “:rea”: \(typing)")
        try tmux.send("BSpace", "BSpace", "BSpace")
        try tmux.send("-l", "set rate 80")
        try tmux.send("Enter")
        try tmux.command("read tiny fox")
        try tmux.waitFor("❯[Pause]")
        Thread.sleep(forTimeInterval: 2.5)
        let reading = try cursor(tmux)
        let word = text(try tmux.screen(), at: reading).prefix { $0.isLetter }
        #expect(
            ["The", "tiny", "fox", "woke", "up", "She", "looked", "for", "the", "moon"].contains(String(word)),
            "the cursor is on a word of the story being heard: «\(word)» at \(reading)")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }
}

extension ReplTmuxTests {
    /// The `:` command line speaks: "Command." when it opens, each letter typed and deleted (key
    /// echo, which --no-key-echo turns off, captioned like everything said), and Tab says the
    /// completion or how many choices and which, without the command again; story titles complete
    /// after `read ` by any word of them, as `read` finds them.
    @Test func theCommandLineSaysWhatIsTypedAndCompletesStoryTitles() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        let log = fixture.folder.url.appendingPathComponent("speech.log").path
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: "export STORYREADER_SPEECH_LOG=\(log); " + script(fixture, extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.send(":")
        try tmux.waitFor("» Command.")
        try tmux.send("-l", "read tx")
        try tmux.send("BSpace")
        try tmux.send("-l", "i")
        try tmux.send("Tab")
        let screen = try tmux.waitFor(":read The Tiny Fox")
        #expect(screen.contains("» read The Tiny Fox"), "the completion (a title, matched by its second word) is said and shown:\n\(screen)")
        try tmux.send("C-u")
        try tmux.send("-l", "read the")
        try tmux.send("Tab")
        let choices = try tmux.waitFor("» 2 matches: ")
        #expect(choices.contains("2 matches: The Big Owl, The Tiny Fox. Tab goes through them."), "\(choices)")
        try tmux.send("Escape")
        try tmux.waitFor("» Cancelled.")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        for echo in ["r", "e", "a", "d", "space", "t", "x", "x deleted", "i"] {
            #expect(said.contains(": \(echo)\n"), "«\(echo)» was said:\n\(said)")
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
