import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// The speech service's manners, through the real eSpeak NG on a sink whose clock the test moves
/// (no sound card, no sleeps): each `advance` plays some of what was written, each `flush` lets the
/// service act on it.
@Suite struct SpeechServiceTests {
    let settings = SpeechSettings(rate: 175, pitch: 50, volume: 100, voice: "en")

    /// A service on a manual clock, recording what it tells.
    struct Rig {
        let sink: ManualClockSink
        let recorder = SpeechEventRecorder()
        let service: SpeechService

        init(bufferMilliseconds: Int = 100) {
            sink = ManualClockSink(bufferMilliseconds: bufferMilliseconds)
            let recorder = self.recorder
            service = SpeechService(sink: sink) { recorder.record($0) }
        }

        /// Plays `milliseconds` of sound, 20 ms at a time, letting the service act after each.
        func play(_ milliseconds: Int) {
            for _ in 0..<max(1, milliseconds / 20) {
                sink.advance(milliseconds: 20)
                service.flush()
            }
        }

        /// Plays until `condition` holds on the events (at most `limit` ms of sound).
        @discardableResult
        func play(until condition: (SpeechEventRecorder) -> Bool, limit: Int = 60_000) -> Bool {
            var played = 0
            service.flush()
            while !condition(recorder), played < limit {
                sink.advance(milliseconds: 20)
                service.flush()
                played += 20
            }
            return condition(recorder)
        }
    }

    func story(_ text: String) throws -> SpeechService.StoryRequest {
        let narration = try Narration(story: try parsedStory(text))
        return SpeechService.StoryRequest(narration: narration, settings: settings, title: "The Hen")
    }

    let text = """
        The little red hen found a grain of wheat in the farmyard. She asked the lazy cat who would help her plant it.

        Not I, said the cat, and went back to sleep in the sun.
        """

    func answer(_ text: String, input: Int, priority: AnnouncementPriority = .text) -> Utterance {
        var utterance = Utterance(text, priority: priority)
        utterance.input = input
        return utterance
    }

    @Test func anAnswerPausesTheStoryAtTheWordAndTheStoryGoesOnFromThatWord() throws {
        let rig = Rig()
        rig.service.send(.narrate(try story(text)), input: 1)
        #expect(rig.play(until: { $0.words.count >= 4 }))
        let heldAt = try #require(rig.recorder.words.last)
        let whereAnswer = answer("The Hen, reading, page 1 of 1.", input: 2)
        rig.service.send(.say(whereAnswer, settings: settings), input: 2)
        rig.service.flush()
        // Said at once: the story is held, the answer starts, nothing waits behind the story.
        #expect(Array(rig.recorder.log.suffix(2)) == ["interrupt story: The Hen", "start text: The Hen, reading, page 1 of 1."])
        rig.recorder.clear()
        #expect(rig.play(until: { $0.words.count >= 2 }))
        #expect(rig.recorder.log == ["start story: The Hen"])
        // The story goes on from the word it was held at, by itself.
        #expect(rig.recorder.words.first == heldAt)
        #expect(rig.recorder.words.dropFirst().first == SpeechService.Position(sentence: heldAt.sentence, word: (heldAt.word ?? 0) + 1))
    }

    @Test func aSecondAnswerCutsTheFirstAndTheStoryStillGoesOn() throws {
        let rig = Rig()
        rig.service.send(.narrate(try story(text)), input: 1)
        #expect(rig.play(until: { $0.words.count >= 2 }))
        rig.service.send(.say(answer("Faster: 190 words per minute.", input: 2), settings: settings))
        rig.service.flush()
        rig.play(40)
        rig.service.send(.say(answer("Faster: 205 words per minute.", input: 3), settings: settings))
        rig.service.flush()
        #expect(rig.recorder.log.suffix(2) == ["interrupt text: Faster: 190 words per minute.", "start text: Faster: 205 words per minute."])
        #expect(!rig.recorder.log.contains { $0.hasPrefix("drop") })
        #expect(rig.play(until: { $0.log.last == "start story: The Hen" }))
    }

    @Test func newsWaitsForTheEndOfTheSentenceNotOfTheStory() throws {
        let rig = Rig()
        rig.service.send(.narrate(try story(text)), input: 1)
        #expect(rig.play(until: { $0.words.count >= 2 }))
        rig.service.send(.say(answer("Sync finished.", input: 1, priority: .message), settings: settings))
        rig.play(100)
        // Not yet: the sentence is being read.
        #expect(!rig.recorder.log.contains("start message: Sync finished."))
        #expect(rig.play(until: { $0.log.contains("start message: Sync finished.") }))
        // It came at the sentence's end: every word of sentence 0 was heard, none of sentence 1.
        let heard = rig.recorder.words
        #expect(heard.allSatisfy { $0.sentence == 0 })
        #expect(heard.last?.word == 11)
        rig.recorder.clear()
        #expect(rig.play(until: { !$0.words.isEmpty }))
        #expect(rig.recorder.words.first == SpeechService.Position(sentence: 1, word: 0))
    }

    @Test func everyTypedLetterIsSaidOrCutNeverDroppedSilently() throws {
        let rig = Rig()
        var said: [String] = []
        for (index, letter) in "animals".enumerated() {
            rig.service.send(.say(answer(String(letter), input: index + 1), settings: settings))
            rig.service.flush()
            said.append(String(letter))
            rig.play(20)
        }
        let log = rig.recorder.log
        for letter in said { #expect(log.contains("start text: \(letter)")) }
        #expect(!log.contains { $0.hasPrefix("drop") })
    }

    @Test func goingOnCutsThePauseAnnouncementAtOnce() throws {
        let rig = Rig()
        let paused = answer("Paused at ‘grain’, sentence 1 of 3.", input: 4, priority: .message)
        rig.service.send(.say(paused, settings: settings))
        rig.service.flush()
        #expect(rig.recorder.log == ["start message: Paused at ‘grain’, sentence 1 of 3."])
        rig.play(60)
        // Space: the story from the word, at once.
        rig.service.send(.narrate(try story(text)), input: 5)
        rig.service.flush()
        #expect(Array(rig.recorder.log.suffix(2)) == ["interrupt message: Paused at ‘grain’, sentence 1 of 3.", "start story: The Hen"])
    }

    @Test func aMessageOfTheSameMomentIsNotCutByItsOwnAnswer() throws {
        let rig = Rig()
        rig.service.send(.say(answer("Name: Mia.", input: 3, priority: .message), settings: settings))
        rig.service.send(.say(answer("Age, text field, empty.", input: 3), settings: settings))
        rig.service.flush()
        #expect(rig.recorder.log == ["start message: Name: Mia."])
        #expect(rig.play(until: { $0.log.count == 2 }))
        #expect(rig.recorder.log.last == "start text: Age, text field, empty.")
    }

    @Test func pauseAndResumeByThePersonGoOnFromTheWord() throws {
        let rig = Rig()
        rig.service.send(.narrate(try story(text)))
        #expect(rig.play(until: { $0.words.count >= 5 }))
        let at = try #require(rig.recorder.words.last)
        rig.service.send(.pause)
        rig.service.flush()
        #expect(rig.recorder.storyKinds.last == .paused(sentence: at.sentence, word: at.word ?? 0))
        let written = rig.sink.samplesWritten
        rig.play(500)
        #expect(rig.sink.samplesWritten == written, "nothing is synthesised while paused")
        rig.recorder.clear()
        rig.service.send(.resume)
        #expect(rig.play(until: { !$0.words.isEmpty }))
        #expect(rig.recorder.words.first == at)
    }

    @Test func stepModeWaitsAfterEachSentence() throws {
        let rig = Rig()
        var request = try story(text)
        request.stepMode = .sentence
        rig.service.send(.narrate(request))
        #expect(rig.play(until: { $0.storyKinds.contains(.waitingForStep(0)) }))
        let written = rig.sink.samplesWritten
        rig.play(400)
        #expect(rig.sink.samplesWritten == written)
        rig.service.send(.resume)
        #expect(rig.play(until: { $0.words.contains(SpeechService.Position(sentence: 1, word: 0)) }))
    }

    /// Every request stops what is being synthesised, but one that leaves it be (the story
    /// queued behind "Reading …", a message that waits for the sentence's end) must not make it
    /// start over: the sound already written was heard ("Re— Reading …" on a busy machine).
    @Test func aRequestThatLeavesTheUtteranceBeDoesNotMakeItStartOver() throws {
        let request = try story(text)
        let opening = answer("Reading The Hen.", input: 1, priority: .message)
        // The story asked for while the opening's first sound is being written.
        let rig = Rig()
        let service = rig.service
        rig.sink.whenWritten(past: 0) { service.send(.narrate(request), input: 1) }
        rig.service.send(.say(opening, settings: settings), input: 1)
        #expect(rig.play(until: { $0.storyKinds.contains(.end) }))
        #expect(rig.sink.drops == 0, "nothing was cut (and so nothing written twice)")
        #expect(rig.recorder.log == ["start message: Reading The Hen.", "start story: The Hen"])
        #expect(rig.recorder.words.count == 12 + 11 + 13)
    }

    @Test func aMessageAskedForMidSentenceDoesNotMakeTheSentenceStartOver() throws {
        let request = try story(text)
        let news = answer("Sync finished.", input: 1, priority: .message)
        // The news comes while the sentence that takes the sound past 4 s is being synthesised:
        // it waits for that sentence's end, and the sentence is written once. (A device buffer as
        // long as the story: every sample is written as it is synthesised.)
        let rig = Rig(bufferMilliseconds: 60_000)
        let service = rig.service
        rig.sink.whenWritten(past: SpeechAudioFormat.sampleRate * 4) { service.send(.say(news, settings: settings), input: 1) }
        rig.service.send(.narrate(request), input: 1)
        #expect(rig.play(until: { $0.storyKinds.contains(.end) && !service.isBusy }))
        #expect(rig.sink.drops == 1, "one cut: where the story yields to the news, at the sentence's end")
        #expect(rig.recorder.words.count == 12 + 11 + 13)
        #expect(rig.recorder.words == rig.recorder.words.sorted { ($0.sentence, $0.word ?? 0) < ($1.sentence, $1.word ?? 0) })
        #expect(rig.recorder.log.contains("start message: Sync finished."))
    }

    @Test func theWholeStoryIsHeardToItsEndOnce() throws {
        let rig = Rig()
        rig.service.send(.narrate(try story(text)))
        #expect(rig.play(until: { $0.storyKinds.contains(.end) }))
        let words = rig.recorder.words
        #expect(words.count == 12 + 11 + 13)
        #expect(words == words.sorted { ($0.sentence, $0.word ?? 0) < ($1.sentence, $1.word ?? 0) })
        #expect(rig.recorder.storyKinds.filter { $0 == .end }.count == 1)
        #expect(!rig.service.isBusy)
    }

    /// A bookmark's tone is heard right before its word, inside the sentence (not before the
    /// sentence), and the words after it are heard that much later.
    @Test func aBookmarksToneIsHeardAtItsWord() throws {
        let rig = Rig()
        var request = try story(text)
        request.tones = [SpeechService.Tone(item: 0, word: 6, label: "bookmark 1 at word 7")]
        rig.service.send(.narrate(request))
        #expect(rig.play(until: { $0.storyKinds.contains(.end) }))
        let events = rig.recorder.all.compactMap { event -> SpeechService.StoryEvent? in if case .story(let heard) = event { heard } else { nil } }
        let tone = try #require(events.first { $0.kind == .tone("bookmark 1 at word 7") })
        let word = try #require(events.first { $0.kind == .word(sentence: 0, word: 6) })
        let before = try #require(events.first { $0.kind == .word(sentence: 0, word: 5) })
        #expect(before.frame < tone.frame)
        #expect(word.frame == tone.frame + BookmarkTone.samples.count)
        // What is written there is the tone itself, once.
        #expect(Array(rig.sink.samples(from: tone.frame).prefix(BookmarkTone.samples.count)) == BookmarkTone.samples)
        #expect(rig.recorder.storyKinds.filter { if case .tone = $0 { true } else { false } }.count == 1)
        #expect(rig.recorder.words.count == 12 + 11 + 13)
        // The events come in the order they are heard.
        #expect(events.map(\.frame) == events.map(\.frame).sorted())
    }

    @Test func aFailingSinkEndsTheStoryWithItsReasonInsteadOfLooping() throws {
        let rig = Rig()
        rig.sink.failWrites(with: AudioError.fileFailed(path: "/full/pip.wav", reason: "No space left on device"))
        rig.service.send(.narrate(try story(text)))
        rig.service.flush()
        rig.play(200)
        let failures = rig.recorder.all.compactMap { event -> String? in
            if case .storyFailed(let error) = event { return "\(error)" } else { return nil }
        }
        #expect(failures == ["cannot write /full/pip.wav: No space left on device"])
        #expect(!rig.service.isBusy)
    }

    @Test func theEngineRunsInlineOnTheSpeechThreadAndWaitsItsTurnElsewhere() throws {
        // Off the thread: the call waits its turn. On it (a service's step): at once, no deadlock.
        let voices = try EspeakEngine.shared.voices()
        let inline = try SpeechThread.shared.run {
            (SpeechThread.shared.isCurrent, try EspeakEngine.shared.voices().languages.count)
        }
        #expect(inline.0)
        #expect(inline.1 == voices.languages.count)
        #expect(!SpeechThread.shared.isCurrent)
    }
}
