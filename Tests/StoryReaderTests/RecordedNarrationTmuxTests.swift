import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// A read-along book in the real program under tmux, with real keys, judged by what is spoken
/// (`STORYREADER_SPEECH_LOG`): the book is made at test time with `export --to X.epub` (eSpeak NG
/// at a voice of its own) and imported into the fixture's data folder. Its sentences are heard from
/// the recording ("story sentence N: recording …" in the log), interface speech is eSpeak NG's
/// utterances as ever; Space pauses and resumes, Right moves a sentence, `+` quickens the
/// recording and says its tempo, `q` stops with the place kept; the child's "always the synthetic
/// voice" reads the same book with eSpeak NG.
@Suite(.serialized)
struct RecordedNarrationTmuxTests {
    static let story = """
        ---
        title: Pip the Snail
        language: en
        ---

        Pip the snail woke up early. The garden was wet and bright. She sniffed a buttercup.

        "Hello, flower," said Pip. The flower did not answer. Pip went on along the path.

        The sun came out, and Pip went home to sleep. She dreamed of buttercups all night.
        """

    /// The book exported and imported into the fixture: its stories folder.
    func importBook(_ fixture: ReplFixture) throws -> String {
        let source = fixture.folder.url.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Self.story.write(to: source.appendingPathComponent("pip-the-snail.md"), atomically: true, encoding: .utf8)
        let epub = fixture.folder.path + "/pip.epub"
        let export = try StoryReaderProcess.run(
            [
                "export", "pip", "--stories", source.path, "--to", epub, "--overlay", "sentences",
                "--voice", "en+f3", "--rate", "120",
            ], dataDirectory: fixture.data)
        #expect(export.status == 0, "\(export.standardError)")
        let imported = try StoryReaderProcess.run(["import", epub], dataDirectory: fixture.data)
        #expect(imported.status == 0, "\(imported.standardError)")
        return fixture.data + "/stories"
    }

    func start(_ tmux: TmuxSession, _ fixture: ReplFixture, stories: String) throws {
        let logging = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: logging + fixture.paneScript(extra: "--stories '\(stories)' --profile Maya"))
        try tmux.waitFor("Hello Maya.")
    }

    /// The log's lines for the story's sentences heard: "story sentence N: recording …" or ": synthesis".
    func sentences(_ log: [String]) -> [String] { log.filter { $0.hasPrefix("story sentence ") } }

    @Test func theNarratorReadsWithTheReadersKeysAndTheTempoIsKept() throws {
        guard TmuxSession.isInstalled(for: "the recorded narration's tmux test") else { return }
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        let stories = try importBook(fixture)
        try start(tmux, fixture, stories: stories)
        try tmux.command("read pip")
        // The title (sentence 1) is no part of the book's recording: eSpeak NG says it; then the narrator.
        fixture.waitForSpeechLog("the first sentence from the recording") { sentences($0).contains { $0.hasPrefix("story sentence 2: recording ") } }
        #expect(fixture.speechLog().contains("start story: Pip the Snail"))
        #expect(sentences(fixture.speechLog()).first == "story sentence 1: synthesis")

        // Space pauses (said by eSpeak NG), Space again goes on.
        try tmux.send("Space")
        try tmux.waitFor("Paused at")
        fixture.waitForSpeechLog("the pause to be said") { $0.contains { $0.hasPrefix("start message: Paused at") } }
        try tmux.send("Space")
        fixture.waitForSpeechLog("the story to go on") { $0.filter { $0 == "start story: Pip the Snail" }.count == 2 }

        // Right: the next sentence, from the recording.
        let beforeRight = sentences(fixture.speechLog()).count
        try tmux.send("Right")
        fixture.waitForSpeechLog("the next sentence") { sentences($0).count > beforeRight }

        // +: the recording's tempo, said, not the speed.
        try tmux.send("+")
        try tmux.waitFor("Recording tempo: 1.25 times its own pace.")
        fixture.waitForSpeechLog("the tempo to be said") { $0.contains { $0.hasSuffix(": Recording tempo: 1.25 times its own pace.") } }
        let log = fixture.speechLog()
        #expect(!log.contains { $0.contains("words per minute") }, "the speed did not change: \(log)")
        let story = sentences(log).filter { !$0.hasPrefix("story sentence 1:") }
        #expect(story.allSatisfy { $0.contains(": recording ") && $0.contains(".mp3 0:") }, "every sentence but the title was the recording's: \(story)")

        // q stops and keeps the place; the tempo is Maya's now.
        try tmux.send("q")
        try tmux.waitFor("❯")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let store = try fixture.openStore()
        let maya = try store.requireProfile(named: "Maya")
        #expect(maya.settings.recordingTempo == 1.25)
        let place = try store.position(profileID: try #require(maya.id), storyID: "pip-the-snail")
        #expect((place ?? 0) > 0, "the place is kept past the first sentence: \(String(describing: place))")
    }

    @Test func alwaysTheSyntheticVoiceReadsTheSameBookWithEspeak() throws {
        guard TmuxSession.isInstalled(for: "the recorded narration's tmux test") else { return }
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        let stories = try importBook(fixture)
        let edit = try StoryReaderProcess.run(["profile", "edit", "Maya", "--narration", "synthetic"], dataDirectory: fixture.data)
        #expect(edit.status == 0, "\(edit.standardError)")
        // read --events json says the source of every sentence.
        let events = try StoryReaderProcess.run(
            ["read", "pip", "--stories", stories, "--profile", "Maya", "--no-audio", "--events", "json", "--from-start"],
            dataDirectory: fixture.data)
        #expect(events.status == 0, "\(events.standardError)")
        let sources = events.standardOutput.split(separator: "\n").filter { $0.contains("\"type\":\"sentence\"") }
            .map { $0.contains("\"source\":\"synthesis\"") }
        #expect(!sources.isEmpty && sources.allSatisfy { $0 }, "\(events.standardOutput)")
        // --narration recording for one run brings the narrator back.
        let once = try StoryReaderProcess.run(
            [
                "read", "pip", "--stories", stories, "--profile", "Maya", "--no-audio", "--events", "json", "--from-start",
                "--narration", "recording",
            ], dataDirectory: fixture.data)
        #expect(once.standardOutput.contains("\"source\":\"recording\""))
        // And the REPL reads it with eSpeak NG.
        try start(tmux, fixture, stories: stories)
        try tmux.command("read pip")
        fixture.waitForSpeechLog("the first sentence") { !sentences($0).isEmpty }
        #expect(sentences(fixture.speechLog()).first == "story sentence 1: synthesis")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }
}
