import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Issue 43: a crash while a story is read, in the real binary on a real terminal (tmux), with
/// Swift's backtracer (the default) and without it (`SWIFT_BACKTRACE=enable=no`). Each crash must
/// leave the terminal as it was (`stty -a` before and after), say what happened and how to report
/// it, end the program with the signal's own status (no backtracer prompt waiting for a key), and
/// keep the place: the next start goes on from the sentence being heard.
///
/// The crash is real where it can be: `STORYREADER_TEST_CRASH=SIGSEGV:N` (a test-only switch,
/// README "Testing a crash") writes to address 16 as sentence N is heard, SIGABRT calls `abort()`,
/// SIGILL is Swift's `fatalError` trap; SIGBUS and SIGFPE are raised (Swift code cannot fault that
/// way on purpose); and `kill -SEGV` comes from outside, as in the walkthrough.
@Suite(.serialized)
struct CrashTmuxTests {
    /// Twelve short sentences: the place is a number that says itself.
    static let story = """
        ---
        title: Counting Sheep
        ages: 3-6
        tags: bedtime
        summary: Sheep jump a fence, one by one.
        ---

        One sheep jumps. Two sheep jump. Three sheep jump. Four sheep jump. Five sheep jump. Six sheep jump.

        Seven sheep jump. Eight sheep jump. Nine sheep jump. Ten sheep jump. Eleven sheep jump. Twelve sheep jump.
        """

    func fixture() throws -> ReplFixture {
        let fixture = try ReplFixture(withProfiles: true)
        _ = try fixture.folder.write("stories/counting-sheep.md", Self.story)
        return fixture
    }

    /// The text of sentence `index` as the parser splits the story (what `read` says there).
    func sentence(_ index: Int, _ fixture: ReplFixture) throws -> String {
        let library = StoryLibrary.load(folders: [fixture.stories])
        let entry = try #require(library.entries.first { $0.id == "counting-sheep" })
        let story = try library.loadStory(entry)
        return story.sentences[index].text
    }

    /// Runs `read counting-sheep` as Maya in a pane with `environment`, waits for the program to
    /// end (the crash), and checks what every crash must leave: the terminal as it was, the
    /// message, the signal's exit status. Returns the screen.
    @discardableResult
    func crash(
        _ fixture: ReplFixture, environment: String, status: Int32, during: ((TmuxSession) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let tmux = TmuxSession(columns: 100, rows: 40)
        defer { tmux.kill() }
        let dir = fixture.folder.path
        let binary = TestPaths.binary.path
        let arguments = (["read", "counting-sheep", "--profile", "Maya"] + fixture.arguments).map { "'\($0)'" }.joined(separator: " ")
        try tmux.start(
            script: """
                stty -a > \(dir)/before; \
                sh -c 'echo $$ > \(dir)/pid; exec env STORYREADER_PENDING_DIR=\(dir)/pending \
                STORYREADER_SPEECH_LOG=\(dir)/speech.log \(environment) \(binary) \(arguments)'; \
                echo $? > \(dir)/status; stty -a > \(dir)/after; echo DONE; sleep 60
                """)
        try during?(tmux)
        // The backtracer's own prompt would wait 30 s for a key: the program ends well before.
        try tmux.waitFor("DONE", seconds: 25)
        // The whole pane with its history (the backtrace scrolls the message up), lines joined.
        let screen = try tmux.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", tmux.name])
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == String(128 + status), "\(screen)", sourceLocation: sourceLocation)
        let before = fixture.file("before")
        let after = fixture.file("after")
        #expect(!before.isEmpty && before == after, "the terminal's settings are not back:\n\(before)\n\(after)", sourceLocation: sourceLocation)
        #expect(after.contains(" icanon") && after.contains(" echo ") && !after.contains("-icanon"), "\(after)", sourceLocation: sourceLocation)
        #expect(screen.contains("Storyreader stopped because of a fault in the program (SIG"), "\(screen)", sourceLocation: sourceLocation)
        #expect(screen.contains("Your place in the story is kept"), "\(screen)", sourceLocation: sourceLocation)
        #expect(screen.contains("To report it"), "\(screen)", sourceLocation: sourceLocation)
        #expect(!screen.contains("Press space to interact"), "the backtracer waits for a key: \(screen)", sourceLocation: sourceLocation)
        return screen
    }

    /// The sentence the next start goes on from: what it says after "Going on with…".
    func nextStart(_ fixture: ReplFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let result = try ExternalProcess.run(
            TestPaths.binary, ["read", "counting-sheep", "--profile", "Maya"] + fixture.arguments,
            environment: ["STORYREADER_PENDING_DIR": fixture.folder.path + "/pending", "PATH": "/usr/bin:/bin"], input: "")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let going = try #require(lines.firstIndex { $0.hasPrefix("Going on with Counting Sheep") }, "\(lines)", sourceLocation: sourceLocation)
        return lines.dropFirst(going + 1).first
    }

    /// The real fault, under Swift's backtracer: its backtrace is printed below the message (what
    /// a report needs), and the program ends without waiting for a key.
    @Test func aFaultWhileReadingKeepsItsSentenceRestoresTheTerminalAndEnds() throws {
        let fixture = try fixture()
        defer { fixture.remove() }
        let screen = try crash(fixture, environment: "STORYREADER_TEST_CRASH=SIGSEGV:4", status: SIGSEGV)
        #expect(screen.contains("(SIGSEGV)"))
        #expect(try nextStart(fixture) == sentence(4, fixture))
        // The kept place was applied and forgotten: a third start does not apply it again.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: fixture.folder.path + "/pending")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    /// `kill -SEGV` from outside (the walkthrough's crash), without the backtracer.
    @Test func aSegvSentWithoutTheBacktracerKeepsThePlace() throws {
        let fixture = try fixture()
        defer { fixture.remove() }
        try crash(fixture, environment: "SWIFT_BACKTRACE=enable=no", status: SIGSEGV) { _ in
            fixture.waitForSpeechLog("the third sentence") { $0.contains { $0.hasPrefix("story sentence 3") } }
            let pid = try #require(Int32(fixture.file("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
            kill(pid, SIGSEGV)
        }
        let heard = fixture.speechLog().filter { $0.hasPrefix("story sentence ") }.count
        let first = try #require(try nextStart(fixture))
        // The sentence being heard when the signal came: one of those the log says were started.
        let candidates = try (0...heard).map { try sentence($0, fixture) }
        let opening = try sentence(0, fixture)
        #expect(candidates.contains(first) && first != opening, "\(first) after \(heard) sentences")
    }

    /// The other crashes, without the backtracer (abort, a trap, and the raised ones).
    @Test(arguments: [("SIGABRT", SIGABRT), ("SIGILL", SIGILL), ("SIGBUS", SIGBUS), ("SIGFPE", SIGFPE)])
    func everyCrashSignalKeepsThePlace(_ name: String, _ signal: Int32) throws {
        let fixture = try fixture()
        defer { fixture.remove() }
        let screen = try crash(fixture, environment: "SWIFT_BACKTRACE=enable=no STORYREADER_TEST_CRASH=\(name):2", status: signal)
        #expect(screen.contains("(\(name))"))
        #expect(try nextStart(fixture) == sentence(2, fixture))
    }
}
