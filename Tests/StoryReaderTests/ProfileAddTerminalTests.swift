import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Issue 43: `storyreader profile add` on a terminal, without flags, is the REPL's profile form,
/// spoken (it used to print plain prompts and say nothing). Read from the speech log, under tmux.
@Suite(.serialized)
struct ProfileAddTerminalTests {
    /// `profile add` in a pane (audio on ALSA's null device), with `stty -a` before and after.
    func start(_ tmux: TmuxSession, _ fixture: ReplFixture) throws {
        let dir = fixture.folder.path
        let arguments = ["profile", "add", "--stories", fixture.stories, "--data-dir", fixture.data].map { "'\($0)'" }.joined(separator: " ")
        try tmux.start(
            script: """
                stty -a > \(dir)/before; \
                env STORYREADER_AUDIO_DEVICE=null STORYREADER_SPEECH_LOG=\(dir)/speech.log \(TestPaths.binary.path) \(arguments); \
                echo $? > \(dir)/status; stty -a > \(dir)/after; echo DONE; sleep 30
                """)
    }

    func ended(_ fixture: ReplFixture, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0", sourceLocation: sourceLocation)
        #expect(!fixture.file("before").isEmpty && fixture.file("before") == fixture.file("after"), sourceLocation: sourceLocation)
    }

    @Test func theFormIsSpokenAndSavingEndsIt() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let tmux = TmuxSession(columns: 100, rows: 30)
        defer { tmux.kill() }
        try start(tmux, fixture)
        fixture.waitForSpeechLog("the form's first field") { $0.contains { $0.hasPrefix("start text: New profile. Name, empty, text field.") } }
        try tmux.type("Lia")
        fixture.waitForSpeechLog("the name said back") { $0.contains("start message: Name: Lia.") }
        try tmux.type("7")
        fixture.waitForSpeechLog("the age said back") { $0.contains("start message: Age: 7.") }
        try tmux.send("C-s")
        let screen = try tmux.waitFor("DONE")
        #expect(fixture.speechLog().contains("start message: Profile Lia saved."), "\(fixture.speechLog())")
        #expect(screen.contains("Added Lia, age 7."), "the outcome stays on the normal screen: \(screen)")
        ended(fixture)
        let saved = try fixture.openStore().profiles().first { $0.name == "Lia" }
        #expect(saved?.age == 7)
    }

    /// While a PIN is set the REPL's PIN prompt comes first, spoken; Escape there adds nothing and ends.
    @Test func escapeAtThePINPromptAddsNothing() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        try fixture.openStore().setPIN("4321")
        let profiles = try fixture.openStore().profiles().map(\.name)
        let tmux = TmuxSession(columns: 100, rows: 30)
        defer { tmux.kill() }
        try start(tmux, fixture)
        fixture.waitForSpeechLog("the PIN prompt") { $0.contains { $0.hasPrefix("start text: Parental PIN.") } }
        try tmux.send("Escape")
        let screen = try tmux.waitFor("DONE")
        #expect(fixture.speechLog().contains("start message: Cancelled: no profile was added."), "\(fixture.speechLog())")
        #expect(screen.contains("Cancelled: no profile was added."))
        ended(fixture)
        #expect(try fixture.openStore().profiles().map(\.name) == profiles)
    }
}
