import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Issue 43: every way the braille display can fail is said once, clearly, in the interface's
/// language, with what to do, and reading goes on; never once a word. A real BRLTTY (its Virtual
/// driver playing a display: the display is there, BrlAPI refuses this program) set up to ask
/// for a key, and the real binary reading a whole story with `--braille on`.
@Suite(.serialized)
struct BrailleRefusalTests {
    static let input = "profile Maya\nread tiny fox\nwait\nquit\n"

    /// A BRLTTY that accepts only the key in `folder/brlapi.key`.
    func refusingDisplay(_ fixture: ReplFixture) throws -> VirtualBrailleDisplay? {
        let key = fixture.folder.url.appendingPathComponent("brlapi.key")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: key)
        return try VirtualBrailleDisplay(cells: 40, auth: "keyfile:" + key.path)
    }

    /// Reads the story with `auth` as the program's BRLAPI_AUTH (`unprivileged`: as a user file
    /// permissions apply to); returns the captions and the speech log, having checked that the
    /// story was read to its end and nothing reached the display.
    func read(
        _ fixture: ReplFixture, _ display: VirtualBrailleDisplay, auth: String, language: String = "en", unprivileged: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (captions: String, said: [String]) {
        let log = fixture.folder.path + "/speech-\(UUID().uuidString.prefix(6)).log"
        let result = try StoryReaderProcess.run(
            fixture.arguments + ["--braille", "on", "--lang", language], input: Self.input,
            environment: ["BRLAPI_HOST": display.brlapiHost, "BRLAPI_AUTH": auth, "STORYREADER_SPEECH_LOG": log], dataDirectory: fixture.data,
            unprivileged: unprivileged)
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.contains("The fox said goodnight."), "reading went on: \(result.standardOutput)", sourceLocation: sourceLocation)
        // BRLTTY shows its own screen there; none of the story's marked words reached it.
        let story = try BrailleDisplayTests.frames(BrailleDisplayTests.firstSentence, cells: display.cells)
        #expect(!display.written.contains { story.contains($0) }, "a refused program wrote to the display", sourceLocation: sourceLocation)
        let said = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (result.standardOutput, said)
    }

    /// `text` is captioned once and said once (started once in the speech log), whatever was read.
    func saidOnce(_ text: String, _ heard: (captions: String, said: [String]), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(heard.captions.components(separatedBy: text).count == 2, "captioned once: \(heard.captions)", sourceLocation: sourceLocation)
        #expect(heard.said.filter { $0.hasPrefix("start ") && $0.contains(text) }.count == 1, "said once: \(heard.said)", sourceLocation: sourceLocation)
    }

    @Test func aMissingKeyFileIsSaidOnceWithWhatToDo() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        guard let display = try refusingDisplay(fixture) else { return }
        let missing = fixture.folder.path + "/no-such.key"
        let heard = try read(fixture, display, auth: "keyfile:" + missing)
        saidOnce("The braille display is refused: BRLTTY's key file \(missing) is missing.", heard)
        #expect(heard.captions.contains("set BRLAPI_AUTH"))
        #expect(!heard.captions.contains("Authentication failed"), "BrlAPI's English words: \(heard.captions)")
    }

    @Test func aWrongKeyIsSaidOnceInTheInterfacesLanguage() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        guard let display = try refusingDisplay(fixture) else { return }
        let wrong = try fixture.folder.write("wrong.key", "not the key BRLTTY has").path
        saidOnce("The braille display is refused: BRLTTY did not accept the key in \(wrong).", try read(fixture, display, auth: "keyfile:" + wrong))
        saidOnce(
            "La línea braille está rechazada: BRLTTY no aceptó la clave de \(wrong).", try read(fixture, display, auth: "keyfile:" + wrong, language: "es"))
    }

    /// The right key, in a file this user may not read (the walkthrough's case: a user outside
    /// the brlapi group): said as that, not as a wrong key.
    @Test(.enabled(if: Unprivileged.available, Comment(rawValue: Unprivileged.unavailable ?? "")))
    func anUnreadableKeyFileIsSaidOnceAsThat() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        guard let display = try refusingDisplay(fixture) else { return }
        let key = fixture.folder.path + "/brlapi.key"
        Unprivileged.own(fixture.folder.path)
        Unprivileged.makeUnreadable(key)
        let heard = try read(fixture, display, auth: "keyfile:" + key, unprivileged: true)
        saidOnce("The braille display is refused: this user may not read BRLTTY's key file \(key).", heard)
    }

    /// A closed port: BRLTTY is not running, said in those words (BrlAPI says "Connection refused").
    @Test func noBRLTTYIsSaidOnceAsNotRunning() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let (probe, port) = try LoopbackListener.open()
        LoopbackListener.close(probe)
        let result = try StoryReaderProcess.run(
            fixture.arguments + ["--braille", "on", "--lang", "fr"], input: Self.input,
            environment: ["BRLAPI_HOST": "127.0.0.1:\(Int(port) - 4101)", "BRLAPI_AUTH": "none"], dataDirectory: fixture.data)
        #expect(result.standardOutput.components(separatedBy: "Pas d'afficheur braille : BRLTTY ne tourne pas.").count == 2, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("The fox said goodnight."))
    }
}
