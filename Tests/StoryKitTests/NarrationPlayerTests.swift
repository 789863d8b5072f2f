import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// Records what a player reports.
final class PlayerRecorder: Sendable {
    private let events = Mutex<[NarrationPlayer.Event]>([])
    private let positions = Mutex<[Int]>([])
    private let finished = Atomic<Int>(0)

    var hooks: NarrationPlayer.Hooks {
        NarrationPlayer.Hooks(
            onEvent: { event in self.events.withLock { $0.append(event) } },
            onPositionChanged: { sentence in self.positions.withLock { $0.append(sentence) } },
            onFinished: { self.finished.add(1, ordering: .relaxed) })
    }
    var all: [NarrationPlayer.Event] { events.withLock { $0 } }
    var sentencesHeard: [Int] { positions.withLock { $0 } }
    var finishedCount: Int { finished.load(ordering: .relaxed) }
    var words: [(sentence: Int, word: Int)] {
        all.compactMap { if case .word(let s, let w) = $0.kind { (s, w) } else { nil } }
    }

    /// Waits (up to `timeout`) until `condition` holds on the events so far.
    func wait(timeout: Duration = .seconds(20), until condition: ([NarrationPlayer.Event]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            usleep(2_000)
        }
        return false
    }
}

/// Records the utterances an engine is asked for.
final class RecordingEngine: SpeechEngine {
    private let recorded = Mutex<[SpeechUtterance]>([])
    var utterances: [SpeechUtterance] { recorded.withLock { $0 } }
    func synthesize(_ utterance: SpeechUtterance, stop: StopToken?, handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision) throws -> SynthesisResult {
        recorded.withLock { $0.append(utterance) }
        return try EspeakEngine.shared.synthesize(utterance, stop: stop, handler: handler)
    }
}

let threeParagraphs = """
    The little red hen found a grain of wheat in the farmyard. She asked the lazy cat who would help her plant it.

    Not I, said the cat, and went back to sleep in the sun. Not I, said the dog.

    So the little red hen planted it all by herself, and it grew tall and golden.
    """

@Suite struct NarrationPlayerTests {
    let settings = SpeechSettings(rate: 300, pitch: 55, volume: 80, voice: "en")

    @Test func everyWordIsHeardInOrderAndTheEndIsReported() throws {
        let story = try parsedStory(threeParagraphs)
        let narration = try Narration(story: story)
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: DiscardingSink(), settings: settings, hooks: recorder.hooks)
        player.start()
        #expect(player.wait() == .finished)
        let expected = narration.items.enumerated().flatMap { index, item in item.words.indices.map { (index, $0) } }
        #expect(recorder.words.map { "\($0.sentence).\($0.word)" } == expected.map { "\($0.0).\($0.1)" })
        let frames = recorder.all.map(\.frame)
        #expect(frames == frames.sorted(), "events are delivered in the order they are heard")
        #expect(recorder.sentencesHeard == Array(narration.items.indices))
        #expect(recorder.finishedCount == 1)
        #expect(recorder.all.last?.kind == .end)
    }

    @Test func pauseAndResumeContinueFromTheWordBeingHeard() throws {
        let story = try parsedStory(threeParagraphs)
        let narration = try Narration(story: story)
        let recorder = PlayerRecorder()
        let engine = RecordingEngine()
        let player = NarrationPlayer(narration: narration, engine: engine, sink: PacedSilenceSink(), settings: settings, hooks: recorder.hooks)
        player.start()
        // Wait for the sixth word of the first sentence to be heard, then pause.
        #expect(recorder.wait { $0.contains { $0.kind == .word(sentence: 0, word: 5) } })
        player.send(.pause)
        #expect(recorder.wait { $0.contains { if case .paused = $0.kind { true } else { false } } })
        guard case .paused(let sentence, let word) = recorder.all.last(where: { if case .paused = $0.kind { true } else { false } })?.kind else {
            Issue.record("no pause event")
            return
        }
        let heardBeforePause = try #require(recorder.words.last)
        #expect(sentence == heardBeforePause.sentence && word == heardBeforePause.word, "paused at the word being heard")
        #expect(word >= 5)
        #expect(player.state == .paused)
        let wordsWhilePaused = recorder.words.count
        usleep(300_000)
        #expect(recorder.words.count == wordsWhilePaused, "nothing is heard while paused")
        player.send(.resume)
        #expect(recorder.wait { $0.contains { $0.kind == .sentence(1) } })
        // After the resume, the first word heard is the one the pause stopped at…
        let afterResume = Array(recorder.words.dropFirst(wordsWhilePaused))
        #expect(afterResume.first.map { "\($0.sentence).\($0.word)" } == "\(sentence).\(word)")
        // …and the engine was asked for the sentence from that word on.
        let resumed = try #require(engine.utterances.dropFirst().first)
        let expectedStart = narration.utterance(sentence: sentence, fromWord: word, settings: settings).utterance.text
        #expect(resumed.text == expectedStart)
        player.send(.stop)
        #expect(player.wait() == .stopped)
    }

    @Test func stopSilencesWithinOneBuffer() throws {
        let story = try parsedStory(threeParagraphs)
        let narration = try Narration(story: story)
        let sink = CountingSink(PacedSilenceSink(bufferMilliseconds: 100))
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: sink, settings: settings, hooks: recorder.hooks)
        player.start()
        #expect(recorder.wait { $0.contains { $0.kind == .word(sentence: 0, word: 3) } })
        let acceptedAtRequest = sink.framesAccepted
        let playedAtRequest = sink.framesPlayed
        player.send(.stop)
        #expect(player.wait() == .stopped)
        let acceptedAfter = sink.framesAccepted - acceptedAtRequest
        let playedAfter = sink.framesPlayed - playedAtRequest
        // Synthesis stops: at most the chunk in flight is queued after the request (eSpeak's chunks
        // are up to a few of its 20 ms buffers), and the queued audio is dropped: what is heard after
        // the request is under one device buffer.
        #expect(acceptedAfter <= sink.bufferFrames, "\(acceptedAfter) frames queued after stop")
        #expect(playedAfter <= sink.bufferFrames, "\(playedAfter) frames heard after stop (buffer \(sink.bufferFrames))")
        usleep(200_000)
        #expect(sink.framesPlayed - playedAtRequest <= sink.bufferFrames, "the clock stopped")
        #expect(recorder.all.last?.kind == .stopped)
        #expect(recorder.finishedCount == 0)
    }

    @Test func rateChangesApplyFromTheNextSentence() throws {
        let story = try parsedStory(threeParagraphs)
        let narration = try Narration(story: story)
        let engine = RecordingEngine()
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: engine, sink: PacedSilenceSink(), settings: settings, hooks: recorder.hooks)
        player.start()
        #expect(recorder.wait { $0.contains { $0.kind == .word(sentence: 0, word: 1) } })
        player.send(.settings(settings.slower()))
        #expect(recorder.wait { $0.contains { $0.kind == .word(sentence: 1, word: 0) } })
        player.send(.stop)
        player.wait()
        let rates = engine.utterances.map(\.settings.rate)
        #expect(rates.count >= 2)
        #expect(rates[0] == 300, "the sentence being read is not cut off or changed")
        #expect(rates[1] == settings.slower().rate)
        // The first sentence was heard whole (no restart).
        #expect(recorder.words.filter { $0.sentence == 0 }.count == narration.items[0].words.count)
    }

    @Test func stepModeReadsOneSentenceAndWaits() throws {
        let story = try parsedStory(threeParagraphs)
        let narration = try Narration(story: story)
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: DiscardingSink(), settings: settings, hooks: recorder.hooks)
        player.start(stepMode: .sentence)
        let deadline = ContinuousClock.now + .seconds(10)
        while player.state != .waitingForStep && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(player.state == .waitingForStep)
        #expect(Set(recorder.words.map(\.sentence)) == [0])
        player.send(.resume)
        #expect(recorder.wait { $0.contains { $0.kind == .sentence(1) } })
        while player.state != .waitingForStep && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(Set(recorder.words.map(\.sentence)) == [0, 1])
        player.send(.setStepMode(.off))
        #expect(player.wait() == .finished)
        #expect(recorder.finishedCount == 1)
    }

    @Test func stepModeByPageWaitsAtTheEndOfEachPage() throws {
        let story = try StoryParser.parse(
            text: """
                ---
                title: Pages
                ---
                One fish swam. Two fish swam.

                ---

                Three fish swam. Four fish swam.
                """, path: "pages.md"
        ).story
        let narration = try Narration(story: story)
        #expect(narration.items.map(\.pageIndex) == [0, 0, 1, 1])
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: DiscardingSink(), settings: settings, hooks: recorder.hooks)
        player.start(stepMode: .page)
        let deadline = ContinuousClock.now + .seconds(10)
        while player.state != .waitingForStep && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(player.state == .waitingForStep)
        #expect(Set(recorder.words.map(\.sentence)) == [0, 1], "the whole first page, then a wait")
        player.send(.resume)
        #expect(recorder.wait { $0.contains { $0.kind == .sentence(3) } })
        while player.state != .waitingForStep && player.state != .finished && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(player.state == .waitingForStep, "waits at the end of the last page too")
        player.send(.resume)
        #expect(player.wait() == .finished)
    }

    @Test func startingFromASentenceSkipsTheOnesBefore() throws {
        let narration = try Narration(story: try parsedStory(threeParagraphs))
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: DiscardingSink(), settings: settings, hooks: recorder.hooks)
        player.start(sentence: 3)
        #expect(player.wait() == .finished)
        #expect(recorder.sentencesHeard == Array(3..<narration.items.count))
    }
}
