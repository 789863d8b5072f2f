import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Each child's choice for a book's recording (issue 29): the book's recording (the default) or
/// always the synthetic voice, and the recording's tempo. Stored (migration v10), synced as two
/// fields of their own and validated by the form's rules on both sides; `+`/`-` step the tempo,
/// not the speed, while a recording reads, and keep it for the child.
@Suite struct RecordedNarrationSettingsTests {
    @Test func theTempoStepsByAQuarterWithinItsRange() {
        #expect(RecordingTempo.stepped(1, up: true) == 1.25)
        #expect(RecordingTempo.stepped(1, up: false) == 0.75)
        #expect(RecordingTempo.stepped(2, up: true) == 2, "the fastest stays")
        #expect(RecordingTempo.stepped(0.5, up: false) == 0.5, "the slowest stays")
        #expect(RecordingTempo.stepped(0.9, up: true) == 1, "between steps: the next step up")
        #expect(RecordingTempo.stepped(0.9, up: false) == 0.75, "between steps: the next step down")
        #expect(RecordingTempo.steps.map(RecordingTempo.text) == ["0.5", "0.75", "1", "1.25", "1.5", "1.75", "2"])
        #expect(RecordingTempo.parse("1,5") == 1.5)
        #expect(RecordingTempo.parse("1.25x") == 1.25)
        for bad in ["", "0.4", "2.01", "fast", "nan", "inf", "-1"] {
            #expect(RecordingTempo.parse(bad) == nil, "\(bad)")
        }
        #expect(RecordingTempo.spoken(1, .english) == "its own pace")
        #expect(RecordingTempo.spoken(1.25, .english) == "1.25 times its own pace")
    }

    @Test func theChoiceIsStoredSyncedAndValidated() throws {
        let kiosk = try TemporaryDatabase("narration-a")
        let other = try TemporaryDatabase("narration-b")
        defer {
            kiosk.remove()
            other.remove()
        }
        let store = try kiosk.open()
        let parent = try store.authorize(pin: nil)
        var mia = ChildProfile(name: "Mia", age: 7)
        mia.settings.narration = .synthetic
        mia.settings.recordingTempo = 1.25
        _ = try store.addProfile(mia, authorization: parent)
        let stored = try store.requireProfile(named: "Mia")
        #expect(stored.settings.narration == .synthetic)
        #expect(stored.settings.recordingTempo == 1.25)
        let reader = try store.requireProfile(named: "Reader")
        #expect(reader.settings.narration == .recording, "the default: the book's recording")
        #expect(reader.settings.recordingTempo == 1, "the default: its own pace")

        // Queued for the site as two fields, each passing the validator the server and kiosks share.
        try store.markJoined()
        let changes = try store.pendingChanges().map(\.change)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for change in changes { #expect(SyncValidation.problem(with: change, nowMillis: now) == nil, "\(change)") }
        let fields = changes.compactMap { change -> (String, String?)? in
            if case .profileField(_, let field, let value) = change.body, ["narration", "recordingTempo"].contains(field) { return (field, value) }
            return nil
        }
        #expect(fields.contains { $0.0 == "narration" && $0.1 == "synthetic" })
        #expect(fields.contains { $0.0 == "recordingTempo" && $0.1.flatMap(Double.init) == 1.25 })
        // Another kiosk of the site gets them.
        let elsewhere = try other.open()
        _ = try elsewhere.applyPulled(changes, cursor: Int64(changes.count))
        let arrived = try elsewhere.requireProfile(named: "Mia")
        #expect(arrived.settings.narration == .synthetic)
        #expect(arrived.settings.recordingTempo == 1.25)

        #expect(SyncValidation.profileFieldProblem("narration", "loud")?.contains("not one of its choices") == true)
        #expect(SyncValidation.profileFieldProblem("recordingTempo", "2.5")?.contains("not a recording tempo") == true)
        #expect(SyncValidation.profileFieldProblem("recordingTempo", "0.75") == nil)
        #expect(SyncValidation.profileFieldProblem("recordingTempo", nil) != nil)

        var form = ProfileForm(editing: stored)
        form.setText("recording", for: .narration)
        form.setText("0.75", for: .recordingTempo)
        let edited = try form.profile()
        #expect(edited.settings.narration == .recording)
        #expect(edited.settings.recordingTempo == 0.75)
        form.setText("3", for: .recordingTempo)
        #expect(form.problem(of: .recordingTempo)?.message.contains("not a recording tempo") == true)
        form.setText("1", for: .recordingTempo)
        form.setText("nobody", for: .narration)
        #expect(form.problem(of: .narration)?.message.contains("not a narration") == true)
    }

    /// config.toml's `[reading]`: the two settings as `--narration` and `--recording-tempo` take
    /// them; a narration that is none is refused with its line.
    @Test func configTomlHasAReadingSection() throws {
        let file = try ConfigFile.parse("[reading]\nnarration = \"Synthetic\"\nrecording-tempo = 0.75\n", path: "/c/config.toml", home: "/home/ana")
        #expect(file.values.map(\.setting.option) == ["--narration", "--recording-tempo"])
        #expect(file.values.map(\.value) == [.string("synthetic"), .number(0.75)])
        #expect(throws: ConfigError.self) { try ConfigFile.parse("[reading]\n\nnarration = \"loud\"\n", path: "/c/config.toml", home: "/home/ana") }
        do {
            _ = try ConfigFile.parse("[reading]\n\nnarration = \"loud\"\n", path: "/c/config.toml", home: "/home/ana")
        } catch {
            #expect(error.message.contains("'loud' is not a narration"), "\(error.message)")
            #expect(error.line == 3)
        }
    }

    /// A child whose story has a recording: a catalog of one story naming a clip list (the
    /// Session never opens it; the shell does).
    func session(narration: NarrationSource, folder: TemporaryFolder) throws -> Session {
        _ = try folder.write(
            "stories/pip.md",
            """
            ---
            title: Pip the Snail
            recording: pip.clips
            ---

            Pip the snail woke up early. The garden was wet and bright.
            """)
        var settings = ReadingSettings()
        settings.narration = narration
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, settings: settings)])
        var session = Session(catalog: StoryCatalog(library: StoryLibrary.load(folders: [folder.path + "/stories"])), snapshot: snapshot, profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        return session
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    @Test func plusAndMinusStepTheRecordingsTempoAndTheChildKeepsIt() throws {
        let folder = try TemporaryFolder("tempo-keys")
        defer { folder.remove() }
        var session = try session(narration: .recording, folder: folder)
        #expect(session.state.reader?.status == .playing)
        let rate = session.state.profile.speech.rate
        let faster = session.handle(.command(.faster))
        #expect(spoken(faster) == ["Recording tempo: 1.25 times its own pace."])
        #expect(faster.contains(.changeTempo(1.25)))
        #expect(faster.contains { if case .save(.saveSettings(let profile)) = $0 { profile.settings.recordingTempo == 1.25 } else { false } })
        #expect(session.state.profile.speech.rate == rate, "the speed is for the synthetic voice")
        #expect(!faster.contains { if case .changeSpeech = $0 { true } else { false } })
        for _ in 0..<6 { _ = session.handle(.command(.faster)) }
        #expect(spoken(session.handle(.command(.faster))) == ["This is the fastest recording tempo: 2 times its own pace."])
        for _ in 0..<6 { _ = session.handle(.command(.slower)) }
        #expect(session.state.profile.settings.recordingTempo == 0.5)
        #expect(spoken(session.handle(.command(.slower))) == ["This is the slowest recording tempo: 0.5 times its own pace."])
    }

    @Test func withTheSyntheticVoicePlusAndMinusStepTheSpeed() throws {
        let folder = try TemporaryFolder("tempo-synthetic")
        defer { folder.remove() }
        var session = try session(narration: .synthetic, folder: folder)
        let rate = session.state.profile.speech.rate
        let faster = session.handle(.command(.faster))
        #expect(session.state.profile.speech.rate > rate)
        #expect(session.state.profile.settings.recordingTempo == 1)
        #expect(!faster.contains(.changeTempo(1.25)))
    }

    /// `set narration` and `set recording-tempo`, as typed on the : line and in Settings.
    @Test func settingsSetBoth() throws {
        let folder = try TemporaryFolder("tempo-set")
        defer { folder.remove() }
        var session = try session(narration: .recording, folder: folder)
        let set = session.handle(.command(.set(name: "narration", value: "synthetic")))
        #expect(session.state.profile.settings.narration == .synthetic)
        #expect(spoken(set).first == "Narration: synthetic.")
        _ = session.handle(.command(.set(name: "recording-tempo", value: "0.75")))
        #expect(session.state.profile.settings.recordingTempo == 0.75)
        #expect(spoken(session.handle(.command(.set(name: "tempo", value: "7")))).first?.contains("a number from 0.5 to 2") == true)
        #expect(session.state.profile.settings.recordingTempo == 0.75)
    }
}
