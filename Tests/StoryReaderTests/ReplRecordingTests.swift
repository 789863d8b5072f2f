import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

@testable import StoryReader

/// A book's recording in the REPL's own parts (the Session, and the speech service behind the
/// shell's `ServiceSpeech` on a sink whose clock the test moves), driven with the calls the shell
/// makes for each effect: a pause inside a clip and the resume that follows go on at the sample
/// where it stopped (the Session narrates again from its word; the recording must not start that
/// word or sentence over); the child's "always the synthetic voice" is obeyed.
@Suite(.serialized)
struct ReplRecordingTests {
    struct Reader {
        let folder: TemporaryFolder
        let tone: [Int16]
        let sink = ManualClockSink()
        let speech: ServiceSpeech
        var session: Session

        /// One sentence over the whole 3-second clip, or (`twoSentences`) two of 1.5 s each.
        init(narration: NarrationSource, twoSentences: Bool = false) throws {
            folder = try TemporaryFolder("repl-clip")
            try folder.write(
                "stories/pip.md",
                """
                ---
                title: Pip the Snail
                recording: pip.clips
                ---

                \(twoSentences ? "Pip woke up early. The garden was wet." : "Pip woke up early and went out into the wet garden.")
                """)
            tone = try Chirp.write(folder.path + "/stories/tone.wav")
            try folder.write("stories/pip.clips", twoSentences ? "1\t0-18\ttone.wav\t0\t1.5s\n1\t19-38\ttone.wav\t1.5s\t3s\n" : "1\t*\ttone.wav\t0\t3s\n")
            try EspeakEngine.shared.start()
            speech = ServiceSpeech(sink: sink)
            speech.prepareVoices(["en"])
            var settings = ReadingSettings()
            settings.narration = narration
            session = Session(
                catalog: StoryCatalog(library: StoryLibrary.load(folders: [folder.path + "/stories"])),
                snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Ada", age: 6, settings: settings)]), profile: "Ada")
            _ = session.start()
        }

        /// The Session's effects on the story carried out as the shell does.
        mutating func handle(_ input: Input) {
            for effect in session.handle(input) { _ = speech.perform(narration: effect, of: session, input: 1) }
        }

        /// The clock moves on by `milliseconds`, the Session told what was heard.
        mutating func play(milliseconds: Int) {
            for _ in 0..<(milliseconds / 20) {
                sink.advance(milliseconds: 20)
                speech.service.flush()
                for event in speech.tick(now: monotonicNanoseconds()) { _ = session.handle(.narration(event)) }
            }
        }
    }

    @Test func pausedInsideAClipTheReaderGoesOnAtTheSample() throws {
        var reader = try Reader(narration: .recording)
        defer { reader.folder.remove() }
        reader.handle(.command(.read("pip")))
        reader.play(milliseconds: 700)
        #expect(reader.session.state.reader?.status == .playing)
        let pausedAt = reader.sink.framesPlayed
        reader.handle(.command(.pause))
        reader.speech.service.flush()
        #expect(reader.session.state.reader?.status == .paused)
        let before = reader.sink.samplesWritten
        reader.handle(.command(.resume))
        reader.speech.service.flush()
        let resumed = reader.sink.samples(from: before).prefix(2048)
        #expect(resumed.count == 2048)
        let at = try #require(Chirp.place(of: resumed, in: reader.tone), "what was heard after the resume is the recording")
        let rate = SpeechAudioFormat.sampleRate
        let gap = abs(at - pausedAt) * 1000 / rate
        print("REPL: paused at \(pausedAt * 1000 / rate) ms, resumed at \(at * 1000 / rate) ms of the clip: \(gap) ms apart")
        #expect(gap <= 50)
        // And it reads on to the end of the story.
        reader.play(milliseconds: 3000)
        #expect(reader.session.state.reader?.status == .finished)
    }

    /// A move while paused is a new place: the clip starts there, not where the pause was.
    @Test func aMoveWhilePausedStartsTheClipAgain() throws {
        var reader = try Reader(narration: .recording)
        defer { reader.folder.remove() }
        reader.handle(.command(.read("pip")))
        reader.play(milliseconds: 700)
        reader.handle(.command(.pause))
        reader.speech.service.flush()
        let before = reader.sink.samplesWritten
        reader.handle(.command(.beginning))
        reader.handle(.command(.resume))
        reader.speech.service.flush()
        let heard = reader.sink.samples(from: before).prefix(2048)
        #expect(Chirp.place(of: heard, in: reader.tone) == 0)
    }

    /// `+` while the recording plays: the next sentence is played 1.25 times faster (its clip of
    /// 1.5 s lasts 1.2 s), and the first is not cut.
    @Test func plusQuickensTheRecordingFromTheNextSentence() throws {
        var reader = try Reader(narration: .recording, twoSentences: true)
        defer { reader.folder.remove() }
        reader.handle(.command(.read("pip")))
        reader.play(milliseconds: 200)
        reader.handle(.command(.faster))
        #expect(reader.session.state.profile.settings.recordingTempo == 1.25)
        reader.play(milliseconds: 4000)
        #expect(reader.session.state.reader?.status == .finished)
        let rate = Double(SpeechAudioFormat.sampleRate)
        let heard = Double(reader.sink.samplesWritten) / rate
        print("1.5 s at 1x then 1.5 s at 1.25x: \(String(format: "%.3f", heard)) s heard")
        #expect(abs(heard - (1.5 + 1.5 / 1.25)) <= 0.05)
        // The first sentence is the recording at its own pace, sample for sample.
        #expect(Array(reader.sink.samples(from: 0).prefix(Int(rate))) == Array(reader.tone.prefix(Int(rate))))
    }

    /// "Always the synthetic voice": the same story is synthesised, not played from its recording.
    @Test func theSyntheticVoiceChoiceReadsWithEspeak() throws {
        var reader = try Reader(narration: .synthetic)
        defer { reader.folder.remove() }
        reader.handle(.command(.read("pip")))
        reader.play(milliseconds: 400)
        let heard = reader.sink.samples(from: 0).prefix(2048)
        #expect(heard.count == 2048)
        #expect(Chirp.place(of: heard, in: reader.tone) == nil, "eSpeak NG, not the recording")
    }
}
