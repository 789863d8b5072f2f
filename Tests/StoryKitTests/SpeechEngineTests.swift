import Foundation
import Synchronization
import Testing

@testable import StoryKit

@Suite struct SpeechEngineTests {
    let settings = SpeechSettings(rate: 175, pitch: 50, volume: 100, voice: "en")

    @Test func eventsCarryUnicodeScalarOffsetsAndSamplesInOrder() async throws {
        // é is one scalar, 🐰 one, the family emoji five: positions count scalars, not bytes.
        let text = "café 🐰 👨‍👩‍👧 dog runs."
        let collected = Mutex<[SpeechEvent]>([])
        let result = try await EspeakEngine.shared.synthesize(SpeechUtterance(text: text, settings: settings)) { chunk in
            collected.withLock { $0 += chunk.events }
            return .proceed
        }
        let events = collected.withLock { $0 }
        let scalars = Array(text.unicodeScalars)
        let dog = scalars.firstIndex(of: "d")!
        let wordOffsets = events.compactMap { if case .wordStart = $0.kind { $0.textOffset } else { nil } }
        #expect(wordOffsets.first == 0)
        #expect(wordOffsets.contains(dog), "word offsets \(wordOffsets), dog at \(dog)")
        let samples = events.map(\.sample)
        #expect(samples == samples.sorted())
        #expect(result.sampleCount > 22050 / 2)
        #expect(!result.wasStopped)
    }

    @Test func theHandlerStopsSynthesisWithinOneChunk() async throws {
        let long = String(repeating: "The cat sat on the mat and looked at the moon. ", count: 40)
        let calls = Atomic<Int>(0)
        let result = try await EspeakEngine.shared.synthesize(SpeechUtterance(text: long, settings: settings)) { chunk in
            calls.add(1, ordering: .relaxed).newValue == 3 ? .stop : .proceed
        }
        #expect(result.wasStopped)
        #expect(calls.load(ordering: .relaxed) == 3, "no chunk after the stop")
        #expect(result.sampleCount < 22050, "stopped early: \(result.sampleCount) samples")
        // The engine is fine afterwards.
        let after = try await EspeakEngine.shared.synthesize(SpeechUtterance(text: "Hello.", settings: settings)) { _ in .proceed }
        #expect(!after.wasStopped && after.sampleCount > 0)
    }

    /// A name in another language is a `<voice>` inside SSML: stopping such an utterance ends it
    /// too (the interface voice waits for the stop before the next utterance starts).
    @Test func theHandlerStopsAnUtteranceInSeveralLanguages() async throws {
        let runs = (0..<20).flatMap { _ in
            [
                SpeechRun(text: "Historia: ", language: "es"), SpeechRun(text: "The Moon Who Lost Her Hum", language: "en"),
                SpeechRun(text: ", aún sin leer, botón. Pulsa Intro para abrir. ", language: "es"),
            ]
        }
        let ssml = try #require(SpeechRun.ssml(runs, voice: "es"))
        let calls = Atomic<Int>(0)
        let result = try await EspeakEngine.shared.synthesize(SpeechUtterance(text: ssml, settings: SpeechSettings(voice: "es"), encoding: .ssml)) { _ in
            calls.add(1, ordering: .relaxed).newValue == 3 ? .stop : .proceed
        }
        #expect(result.wasStopped)
        #expect(calls.load(ordering: .relaxed) == 3, "no chunk after the stop")
        #expect(result.sampleCount < 22050, "stopped early: \(result.sampleCount) samples")
    }

    @Test func aStopTokenFromAnotherThreadStopsSynthesis() throws {
        let long = String(repeating: "The cat sat on the mat and looked at the moon. ", count: 40)
        let token = StopToken()
        let chunks = Atomic<Int>(0)
        let result = try EspeakEngine.shared.synthesize(SpeechUtterance(text: long, settings: settings), stop: token) { _ in
            if chunks.add(1, ordering: .relaxed).newValue == 5 {
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    token.stop()
                    done.signal()
                }
                done.wait()
            }
            return .proceed
        }
        #expect(result.wasStopped)
        #expect(chunks.load(ordering: .relaxed) == 5)
    }

    @Test func anUnknownVoiceIsAnError() throws {
        #expect(throws: SpeechEngineError.voiceNotFound("zz-nothing")) {
            try EspeakEngine.shared.synthesize(SpeechUtterance(text: "Hi.", settings: SpeechSettings(voice: "zz-nothing")), stop: nil) { _ in .proceed }
        }
    }

    /// Many callers at once share the one eSpeak instance: each gets its own, ungarbled output.
    @Test func concurrentCallersAreSerialised() async throws {
        let texts = ["The fox ran.", "Le renard court vite dans la forêt.", "Der Fuchs läuft.", "El zorro corre por el bosque."]
        let voices = ["en", "fr", "de", "es"]
        var alone: [Int] = []
        for (text, voice) in zip(texts, voices) {
            alone.append(
                try await EspeakEngine.shared.synthesize(SpeechUtterance(text: text, settings: SpeechSettings(voice: voice))) { _ in .proceed }.sampleCount)
        }
        let together = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for round in 0..<16 {
                let index = round % texts.count
                group.addTask {
                    let count = try await EspeakEngine.shared.synthesize(
                        SpeechUtterance(text: texts[index], settings: SpeechSettings(voice: voices[index]))
                    ) { _ in .proceed }.sampleCount
                    return (index, count)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.count == 16)
        for (index, count) in together {
            // eSpeak's length varies by up to a few percent with the voice used before (measured 2.3 %
            // for en after es); two texts mixed into one stream would be far longer.
            #expect(abs(Double(count) / Double(alone[index]) - 1) < 0.05, "\(voices[index]): \(count) vs \(alone[index])")
        }
    }

    @Test func voicesAreListedAndResolved() throws {
        let catalog = try EspeakEngine.shared.voices()
        #expect(catalog.hasLanguage("en") && catalog.hasLanguage("fr") && catalog.hasLanguage("de") && catalog.hasLanguage("es"))
        #expect(catalog.hasVariant("f3"))
        #expect(catalog.resolve("en+f3") == .init(voice: "en+f3", notice: nil))
        #expect(catalog.resolve("fr").notice == nil)
        let missing = catalog.resolve("xx")
        #expect(missing.voice == "en")
        #expect(missing.notice?.contains("no voice for language 'xx'") == true)
        let child = catalog.resolve("en+child")
        #expect(child.voice == "en" && child.notice != nil, "eSpeak would accept an unknown variant silently; we say so")
    }
}
