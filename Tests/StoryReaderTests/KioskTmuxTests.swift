import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `storyreader kiosk` on a real terminal, under tmux: what a child can press, what a parent can do,
/// and that the terminal comes back as it was.
@Suite(.serialized)
struct KioskTmuxTests {
    static let pin = "2468"

    /// A fixture with Maya (5) and Sam (9), and a parental PIN.
    func fixture(pin: Bool = true) throws -> ReplFixture {
        let fixture = try ReplFixture(withProfiles: true)
        if pin {
            let store = try StoryStore(dataDirectory: URL(fileURLWithPath: fixture.data), pinCost: .testing)
            try store.setPIN(Self.pin)
        }
        return fixture
    }

    func start(_ tmux: TmuxSession, _ fixture: ReplFixture, _ extra: String = "") throws {
        try tmux.start(script: fixture.paneScript(subcommand: ["kiosk"], extra: "--profile Maya " + extra))
        try tmux.waitFor("Hello Maya.")
    }

    func status(_ fixture: ReplFixture) -> String { fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) }

    func pid(_ fixture: ReplFixture) throws -> Int32 {
        try #require(Int32(fixture.file("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func isRunning(_ pid: Int32) -> Bool { Foundation.kill(pid, 0) == 0 }

    /// F12, the PIN, Enter: the parent menu.
    func unlock(_ tmux: TmuxSession) throws {
        try tmux.send("F12")
        try tmux.waitFor("For grown-ups.")
        try tmux.send("-l", Self.pin)
        try tmux.waitFor("4 digits entered")
        #expect(try !tmux.screen().contains(Self.pin), "the PIN's digits are drawn")
        try tmux.send("Enter")
        try tmux.waitFor("PIN accepted. Parent menu.")
    }

    /// Leaves from the parent menu (its first button) and checks exit 0 and the terminal.
    func leave(_ tmux: TmuxSession, _ fixture: ReplFixture) throws {
        try unlock(tmux)
        try tmux.send("Enter")
        try tmux.waitFor("DONE")
        #expect(status(fixture) == "0")
        #expect(!fixture.file("before").isEmpty)
        #expect(fixture.file("before") == fixture.file("after"))
    }

    /// Maya's saved place in The Tiny Fox, from the database.
    func savedSentence(_ fixture: ReplFixture) throws -> Int? {
        let store = try StoryStore(dataDirectory: URL(fileURLWithPath: fixture.data), pinCost: .testing)
        let maya = try #require(try store.profile(named: "Maya"))
        return try store.position(profileID: try #require(maya.id), storyID: "tiny-fox")
    }

    func history(_ fixture: ReplFixture) throws -> [[String: Any]] {
        let result = try StoryReaderProcess.run(["history", "--kiosk", "--json", "--data-dir", fixture.data])
        #expect(result.status == 0, "\(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
    }

    @Test func noKeyAChildPressesGetsOutAndThePINLeavesWithTheTerminalAsItWas() throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture)
        let pid = try pid(fixture)
        for key in ["C-c", "C-z", "C-\\", "C-d", "C-s", "C-q"] {
            try tmux.send(key)
            Thread.sleep(forTimeInterval: 0.15)
            #expect(isRunning(pid), "\(key) ended the kiosk")
        }
        try tmux.waitFor("That key does nothing here.")
        for line in [":quit", ":!sh", ":exit", ":q"] {
            try tmux.send("-l", line)
            try tmux.send("Enter")
            Thread.sleep(forTimeInterval: 0.15)
        }
        try tmux.send("-l", "exit")
        try tmux.send("Enter")
        // A burst of random bytes (not Enter or Ctrl-], which would type PINs and spend tries).
        // A new burst every run; KIOSK_BURST_SEED replays one that failed (its seed is in every
        // failure below).
        var generator = SystemRandomNumberGenerator()
        let seed =
            ProcessInfo.processInfo.environment["KIOSK_BURST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max, using: &generator)
        var random = SeededGenerator(seed: seed)
        let bytes = (0..<300).map { _ in UInt8(random.next() % 0x7E + 1) }.filter { ![0x0A, 0x0D, 0x1D].contains($0) }
        for chunk in stride(from: 0, to: bytes.count, by: 30) {
            try tmux.tmux(["send-keys", "-t", tmux.name, "-H"] + bytes[chunk..<min(chunk + 30, bytes.count)].map { String(format: "%02x", $0) })
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(isRunning(pid), "random keys (seed \(seed)) ended the kiosk")
        // It still answers: back out of whatever the burst opened, one Escape a layer (learn mode,
        // a search typed ahead, help or the command line, the reader: a burst can stack four),
        // until "where am I" answers from a screen (the reader's own answer is its page).
        var escapes = 0
        var answered = false
        while !answered, escapes < 6 {
            try tmux.send("Escape")
            escapes += 1
            Thread.sleep(forTimeInterval: 0.1)
            try tmux.send("C-w")
            let deadline = Date().addingTimeInterval(3)
            while !answered, Date() < deadline {
                answered = try tmux.screen().contains("You are on")
                if !answered { Thread.sleep(forTimeInterval: 0.1) }
            }
        }
        try tmux.send("Home")
        let home = try tmux.waitFor("Library").contains("Library")
        #expect(
            answered && home,
            "after the burst of seed \(seed) (KIOSK_BURST_SEED=\(seed) replays it) and \(escapes) Escapes: \(bytes.map { String(format: "%02x", $0) }.joined(separator: " "))"
        )
        // Sending signals a keyboard could send, were ISIG on: ignored.
        for signal in [SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU] { #expect(Foundation.kill(pid, signal) == 0) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(isRunning(pid))
        try leave(tmux, fixture)
        let sessions = try history(fixture)
        #expect(sessions.count == 1)
        #expect(sessions.first?["profiles"] as? [String] == ["Maya"])
        #expect((sessions.first?["blockedKeyPresses"] as? Int ?? 0) >= 10, "\(sessions)")
        #expect(sessions.first?["endReason"] as? String == "pin")
        #expect(sessions.first?["endedAt"] != nil)
        let text = try StoryReaderProcess.run(["history", "--data-dir", fixture.data])
        #expect(text.standardOutput.contains("Kiosk sessions:"))
        #expect(text.standardOutput.contains("Maya"))
    }

    @Test func fiveWrongPINsLockWithTheWaitShownAndKept() throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture)
        try tmux.send("C-]")
        try tmux.waitFor("For grown-ups.")
        for attempt in 1...5 {
            try tmux.send("-l", "1357")
            try tmux.send("Enter")
            if attempt < 5 {
                try tmux.waitFor("That PIN is not right.")
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        let screen = try tmux.waitFor("The PIN is locked: try again in 30 seconds")
        #expect(screen.contains("Problem: Too many tries"))
        // Counting down on the screen.
        try tmux.waitFor("try again in 2", seconds: 5)
        // Even the right PIN waits.
        try tmux.send("-l", Self.pin)
        try tmux.send("Enter")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try !tmux.screen().contains("Parent menu"))
        let store = try StoryStore(dataDirectory: URL(fileURLWithPath: fixture.data), pinCost: .testing)
        let lockout = try store.pinLockout()
        #expect(lockout.failedAttempts == 5)
        #expect(lockout.remaining(at: Date()) > 20)
        #expect(Foundation.kill(try pid(fixture), SIGTERM) == 0)
        try tmux.waitFor("DONE")
        #expect(fixture.file("before") == fixture.file("after"))
    }

    @Test func idleResetStopsKeepsThePlaceAndReturnsToTheLibrary() throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, "--idle-timeout 2")
        try tmux.command("read tiny fox")
        try tmux.waitFor("❯[Pause]")
        try tmux.send("Space")
        try tmux.waitFor("Paused at")
        let screen = try tmux.waitFor("Nobody pressed a key for a while", seconds: 8)
        #expect(screen.contains("Library"))
        #expect((try savedSentence(fixture)) != nil)
        try leave(tmux, fixture)
    }

    @Test func theTimeLimitWarnsShowsTimeUpAndOnlyThePINLeavesIt() throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, "--time-limit 0.1 --add-time-seconds 30")
        try tmux.send("t")
        try tmux.waitFor("seconds left.")
        #expect(try tmux.screen().contains("Time left:"))
        try tmux.waitFor("Time is up. Your place", seconds: 12)
        for key in ["Escape", "Enter", "Home", "h", "C-q"] { try tmux.send(key) }
        try tmux.command("home")
        let screen = try tmux.waitFor("Time is up. F12 is for a grown-up.")
        #expect(!screen.contains("Library,"), "left the time-up screen without the PIN")
        try unlock(tmux)
        try tmux.send("Down", "Down")
        try tmux.waitFor("❯[Add 30 seconds")
        try tmux.send("Enter")
        try tmux.waitFor("Added 30 seconds.")
        try tmux.waitFor("Library,")
        try leave(tmux, fixture)
    }

    @Test(arguments: ["TERM", "HUP"])
    func aSignalSavesAndRestoresTheTerminal(signal: String) throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture)
        try tmux.command("read tiny fox")
        try tmux.waitFor("❯[Pause]")
        #expect(Foundation.kill(try pid(fixture), signal == "TERM" ? SIGTERM : SIGHUP) == 0)
        try tmux.waitFor("DONE")
        #expect(status(fixture) == (signal == "TERM" ? "143" : "129"))
        #expect(!fixture.file("before").isEmpty)
        #expect(fixture.file("before") == fixture.file("after"))
        #expect((try savedSentence(fixture)) != nil)
        #expect(try history(fixture).first?["endReason"] as? String == "signal \(signal == "TERM" ? SIGTERM : SIGHUP)")
    }

    @Test(arguments: [SIGSEGV, SIGABRT])
    func aCrashRestoresTheTerminal(signal: Int32) throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        // Without the runtime's interactive backtracer, the crash ends at once with its signal.
        try tmux.start(script: "export SWIFT_BACKTRACE=enable=no; " + fixture.paneScript(subcommand: ["kiosk"], extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.")
        #expect(Foundation.kill(try pid(fixture), signal) == 0)
        try tmux.waitFor("DONE")
        #expect(status(fixture) == "\(128 + signal)")
        #expect(!fixture.file("before").isEmpty)
        #expect(fixture.file("before") == fixture.file("after"))
    }

    @Test func closedInputEndsTheKioskWithoutSpinning() throws {
        let fixture = try fixture()
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        // The pane's terminal goes away under the kiosk: its reads fail, and it must end.
        try start(tmux, fixture)
        let pid = try pid(fixture)
        let panes = try tmux.tmux(["list-panes", "-a", "-F", "#{pane_pid}"])
        for pane in panes.split(separator: "\n").compactMap({ Int32($0) }) { Foundation.kill(pane, SIGKILL) }
        _ = try? tmux.tmux(["kill-server"])
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, isRunning(pid) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!isRunning(pid), "the kiosk outlived its terminal")
        if isRunning(pid) { Foundation.kill(pid, SIGKILL) }
    }

    @Test func refusesWithoutAPINOrWithoutATerminal() throws {
        let fixture = try fixture(pin: false)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: fixture.paneScript(subcommand: ["kiosk"]))
        let screen = try tmux.waitFor("DONE")
        #expect(screen.contains("no parental PIN is set"))
        #expect(screen.contains("storyreader pin set"))
        #expect(status(fixture) == "1")
        let piped = try StoryReaderProcess.run(["kiosk", "--data-dir", fixture.data], input: "")
        #expect(piped.status == 1)
        #expect(piped.standardError.contains("kiosk mode needs a terminal"))
    }
}
