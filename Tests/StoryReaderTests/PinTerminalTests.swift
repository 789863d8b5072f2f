import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The PIN and the profile form on a real terminal, under tmux: the PIN is not echoed, and
/// `profile edit`'s form asks field by field with label, hint and constraint.
@Suite(.serialized) struct PinTerminalTests {
    func command(_ arguments: String, folder: TemporaryFolder) -> String {
        "\(TestPaths.binary.path) \(arguments) --data-dir \(folder.path); echo EXIT=$?; sleep 10"
    }

    @Test func aPINTypedOnATerminalIsNotShown() throws {
        let folder = try TemporaryFolder("pin-tty")
        defer { folder.remove() }
        let session = TmuxSession(columns: 160, rows: 40)
        defer { session.kill() }
        try session.start(script: command("pin set", folder: folder))
        try session.waitFor("New PIN (4 to 8 digits):")
        try session.type("97531")
        try session.waitFor("Type the new PIN again:")
        try session.type("97531")
        let screen = try session.waitFor("EXIT=")
        #expect(screen.contains("The parental PIN is set"))
        #expect(screen.contains("EXIT=0"))
        #expect(!screen.contains("97531"))
        #expect(try StoryStore(dataDirectory: folder.url, pinCost: .testing).isPINSet())
    }

    /// `profile edit` asks field by field (`profile add` opens the REPL's spoken form there:
    /// `ProfileAddTerminalTests`).
    @Test func theFormOnATerminalAsksFieldByFieldAndExplainsMistakes() throws {
        let folder = try TemporaryFolder("form-tty")
        defer { folder.remove() }
        let store = try StoryStore(dataDirectory: folder.url, pinCost: .testing)
        try store.addProfile(ChildProfile(name: "Sam", age: 9), authorization: try store.authorize(pin: nil))
        let session = TmuxSession(columns: 160, rows: 40)
        defer { session.kill() }
        try session.start(script: command("profile edit Sam", folder: folder))
        try session.waitFor("Name, the name shown and spoken to your child (1 to 40 characters, not used by another profile) [Sam]:")
        try session.type("reader")
        try session.waitFor("Name: a profile named \"Reader\" already exists")
        try session.type("Ada")
        try session.waitFor("Age, your child's age in years")
        try session.type("6.5")
        try session.waitFor("Age: \"6.5\" is not a whole number: type a whole number of years from 2 to 12")
        try session.type("8")
        try session.waitFor("Interests,")
        try session.type("space, robots")
        for label in [
            "Voice,", "Speed,", "Pitch,", "Volume,", "Text size,", "Reduced motion,", "Theme,", "Hints,", "Step mode,", "Line focus,", "Syllables,", "Spacing,",
            "Language,", "Braille,",
            "Narration,", "Recording tempo,", "Bedtime,", "Coach waits,",
        ] {
            try session.waitFor(label)
            try session.type("")
        }
        try session.waitFor("Save or Cancel?")
        try session.type("save")
        let screen = try session.waitFor("EXIT=")
        #expect(screen.contains("Saved Ada."))
        let ada = try StoryStore(dataDirectory: folder.url, pinCost: .testing).requireProfile(named: "ada")
        #expect(ada.age == 8)
        #expect(ada.interests == ["space", "robots"])
        #expect(ada.settings == .default)
    }

    @Test func cancellingTheFormWithChangesAsksFirst() throws {
        let folder = try TemporaryFolder("form-tty")
        defer { folder.remove() }
        let session = TmuxSession(columns: 160, rows: 40)
        defer { session.kill() }
        try session.start(script: command("profile edit Reader", folder: folder))
        try session.waitFor("Name,")
        try session.type("")
        try session.waitFor("Age,")
        try session.type("9")
        for label in [
            "Interests,", "Voice,", "Speed,", "Pitch,", "Volume,", "Text size,", "Reduced motion,", "Theme,", "Hints,", "Step mode,", "Line focus,",
            "Syllables,", "Spacing,", "Language,", "Braille,",
            "Narration,", "Recording tempo,", "Bedtime,", "Coach waits,",
        ] {
            try session.waitFor(label)
            try session.type("")
        }
        try session.waitFor("Save or Cancel?")
        try session.type("cancel")
        try session.waitFor("Discard the changes to this profile?")
        try session.type("yes")
        let screen = try session.waitFor("EXIT=")
        #expect(screen.contains("Cancelled: Reader was not changed."))
        #expect(try StoryStore(dataDirectory: folder.url, pinCost: .testing).requireProfile(named: "Reader").age == 6)
    }
}
