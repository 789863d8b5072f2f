import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// What a blind child or parent hears, read from the speech log (`STORYREADER_SPEECH_LOG`) of the
/// real program on a real terminal (tmux): answers while a story plays, Help and learn mode over a
/// story, typing in a form; and how every mode ends (signals, crashes, the end of a script).
@Suite(.serialized)
struct SpeechMannersTests {
    /// The speech log's lines so far.
    func log(_ fixture: ReplFixture) -> [String] { fixture.speechLog() }

    func waitForLog(_ fixture: ReplFixture, _ what: String, seconds: Double = 20, _ condition: ([String]) -> Bool) {
        fixture.waitForSpeechLog(what, seconds: seconds, condition)
    }

    /// The REPL on tmux, speaking (paced silence: no sound card here) into the speech log.
    func start(_ tmux: TmuxSession, _ fixture: ReplFixture, extra: String = "") throws {
        let logging = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: logging + fixture.paneScript(extra: extra))
    }

    @Test func helpAndLearnModePauseTheStoryAndTeachTheReadingKeys() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, extra: "--profile Maya")
        try tmux.waitFor("Hello Maya.")
        try tmux.command("set rate 80")
        try tmux.command("read tiny fox")
        waitForLog(fixture, "the story to start") { $0.contains("start story: The Tiny Fox") }
        try tmux.send("?")
        // Help over the reader opens on the reading keys, and the story waits, paused.
        let help = try tmux.waitFor("❯ While reading")
        #expect(help.contains("Help"))
        waitForLog(fixture, "Help to be said") { $0.contains { $0.hasPrefix("start text: Help") } }
        let atHelp = log(fixture).count
        try tmux.command("learn")
        try tmux.waitFor("Learn mode. Press any key")
        try tmux.send("w")
        // The reader's `w`, not the help screen's letter jump.
        let learned = try tmux.waitFor("W: says the story, page and sentence you are at")
        #expect(!learned.contains("jumps to the next item"))
        try tmux.send("Right")
        try tmux.waitFor("Right arrow: next word")
        waitForLog(fixture, "the key to be told") { $0.contains { $0.contains("Right arrow: next word") } }
        let duringHelp = log(fixture)[atHelp...]
        #expect(!duringHelp.contains("start story: The Tiny Fox"), "the story stayed paused: \(duringHelp)")
        #expect(!duringHelp.contains { $0.hasPrefix("drop ") }, "every key was told: \(duringHelp)")
        try tmux.send("Escape")
        try tmux.waitFor("Learn mode off.")
        try tmux.send("Escape")
        try tmux.waitFor("paused")
        try tmux.send("Space")
        waitForLog(fixture, "the story to go on") { $0.filter { $0 == "start story: The Tiny Fox" }.count == 2 }
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        #expect(fixture.file("before") == fixture.file("after"))
    }

    @Test func everyLetterTypedInTheFormIsSaidAndEnterReadsTheValueBack() throws {
        let fixture = try ReplFixture(withProfiles: false)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture)
        try tmux.waitFor("❯[Reader")
        try tmux.send("Down")
        try tmux.waitFor("❯[New profile]")
        try tmux.send("Enter")
        try tmux.waitFor("❯ Name:")
        let before = log(fixture).count
        for letter in ["M", "i", "a"] {
            try tmux.send("-l", letter)
            Thread.sleep(forTimeInterval: 0.3)
        }
        try tmux.send("BSpace")
        try tmux.send("-l", "a")
        try tmux.send("Enter")
        try tmux.waitFor("❯ Age:")
        waitForLog(fixture, "the name read back") { $0.contains("start message: Name: Mia.") }
        let typed = Array(log(fixture)[before...])
        for echo in ["start text: M", "start text: i", "start text: a", "start text: a deleted"] {
            #expect(typed.contains(echo), "\(echo) in \(typed)")
        }
        #expect(!typed.contains { $0.hasPrefix("drop ") }, "no letter dropped: \(typed)")
        try tmux.send("-l", "6")
        try tmux.send("Enter")
        waitForLog(fixture, "the age read back") { $0.contains("start message: Age: 6.") }
        // Unsaved changes: Control Q asks first; Enter discards them, and Control Q then leaves.
        try tmux.send("C-q")
        try tmux.waitFor("Discard the changes to this profile?")
        try tmux.send("Enter")
        try tmux.waitFor("Changes discarded.")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }

    /// A crash (a segmentation fault, an abort) leaves the terminal as it was, in the REPL and in
    /// `read` (the kiosk's own test is in KioskTmuxTests).
    @Test(arguments: [(["read", "tiny-fox"], SIGSEGV), (["read", "tiny-fox"], SIGABRT), ([String](), SIGSEGV), ([String](), SIGABRT)])
    func aCrashRestoresTheTerminal(subcommand: [String], signal: Int32) throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        // Without the runtime's interactive backtracer, the crash ends at once with its signal.
        try tmux.start(script: "export SWIFT_BACKTRACE=enable=no; " + fixture.paneScript(subcommand: subcommand, extra: "--profile Maya"))
        try tmux.waitFor(subcommand.isEmpty ? "Hello Maya." : "The Tiny Fox")
        let pid = try #require(Int32(fixture.file("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Foundation.kill(pid, signal) == 0)
        try tmux.waitFor("DONE")
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "\(128 + signal)")
        #expect(!fixture.file("before").isEmpty)
        #expect(fixture.file("before") == fixture.file("after"), "stty -a differs after the crash")
    }

    /// SIGTERM while a story is heard: the program ends (status 143), the terminal is as it was,
    /// and the place is kept.
    @Test(arguments: [["read", "tiny-fox"], [String]()])
    func sigtermWhileReadingKeepsThePlace(subcommand: [String]) throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: fixture.paneScript(subcommand: subcommand, extra: "--profile Maya" + (subcommand.isEmpty ? "" : " --rate 80")))
        if subcommand.isEmpty {
            try tmux.waitFor("Hello Maya.")
            try tmux.command("set rate 80")
            try tmux.command("read tiny fox")
        }
        // The caption of the second sentence: it is being heard.
        try tmux.waitFor("» She looked for the moon.", seconds: 20)
        let pid = try #require(Int32(fixture.file("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Foundation.kill(pid, SIGTERM) == 0)
        try tmux.waitFor("DONE")
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "143")
        #expect(fixture.file("before") == fixture.file("after"))
        let store = try fixture.openStore()
        let maya = try store.requireProfile(named: "Maya")
        let id = try #require(maya.id)
        let place = try #require(try store.position(profileID: id, storyID: "tiny-fox"))
        #expect(place >= 1, "the place is the sentence being heard, not the start")
    }

    /// A kiosk joined to a site whose server takes connections and never answers: saving a new
    /// profile asks it (for seconds, until its deadline), and meanwhile the loop keeps answering keys.
    @Test func theLoopKeepsAnsweringWhileTheSiteIsAskedAndNeverAnswers() throws {
        let fixture = try ReplFixture(withProfiles: false)
        let tmux = TmuxSession()
        let silent = try SilentServer()
        defer {
            tmux.kill()
            fixture.remove()
            silent.stop()
        }
        try fixture.openStore().markJoined()
        try SyncClient.save(
            SyncSettings(url: "http://127.0.0.1:\(silent.port)", site: "library", token: "kiosk-token"),
            in: URL(fileURLWithPath: fixture.data))
        try start(tmux, fixture)
        try tmux.waitFor("❯[Reader")
        try tmux.send("Down")
        try tmux.waitFor("❯[New profile]")
        try tmux.send("Enter")
        try tmux.waitFor("❯ Name:")
        try tmux.type("Zed")
        try tmux.waitFor("❯ Age:")
        try tmux.type("6")
        try tmux.waitFor("❯ Interests:")
        // Interests … language, braille, narration, recording tempo, bedtime, coach waits → Save.
        for _ in 0..<19 { try tmux.send("Tab") }
        try tmux.waitFor("❯[Save]")
        try tmux.send("Enter")
        try tmux.waitFor("Saving…", seconds: 2)
        // The site is being asked (for up to 4 s): keys are still answered, at once.
        try tmux.send("C-w")
        let answered = try tmux.waitFor("Item ", seconds: 2)
        #expect(!answered.contains("cannot be reached"), "the key was answered only after the site's deadline")
        let refused = try tmux.waitFor("cannot be reached now", seconds: 20)
        #expect(refused.contains("nothing was changed"))
        #expect(try fixture.openStore().profile(named: "Zed") == nil)
        // Unsaved changes: Control Q asks first; Enter discards them, and Control Q then leaves.
        try tmux.send("C-q")
        try tmux.waitFor("Discard the changes to this profile?")
        try tmux.send("Enter")
        try tmux.waitFor("Changes discarded.")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }

    /// `learn` explains `quit` instead of quitting: the end of a script still ends the program.
    @Test func aPipedLearnEndsAtTheEndOfItsInput() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let result = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "learn\n", timeout: 60)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Learn mode. Press any key"))
        let explained = result.standardOutput.components(separatedBy: "quit: ").count - 1
        #expect(explained <= 1, "quit explained \(explained) times")
    }
}

/// A server on loopback that takes connections and never says a word (until `stop`).
final class SilentServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let clients = LockedValue<[Int32]>([])

    init() throws {
        (listener, port) = try LoopbackListener.open(backlog: 16)
        let clients = self.clients
        LoopbackListener.acceptEach(on: listener) { client in clients.withLock { $0.append(client) } }
    }

    func stop() {
        LoopbackListener.close(listener)
        for client in clients.take(leaving: []) { close(client) }
    }
}
