import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// How an export shares a story out: runs of about equal expected audio, cut where this process
/// has not yet begun.
@Suite struct ExportSharesTests {
    @Test func whatIsLeftIsCutIntoRunsThatCoverItInOrder() throws {
        let narration = try Narration(story: try parsedStory(threeParagraphs))
        let count = narration.items.count
        #expect(count >= 5)
        for first in 0..<count {
            for jobs in 1...4 {
                let runs = ExportShares.split(narration, sentences: first..<count, jobs: jobs)
                #expect(runs.first?.lowerBound == first && runs.last?.upperBound == count, "\(first), \(jobs): \(runs)")
                #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(runs)")
                // At most one a job: a long sentence may cross two marks.
                #expect(runs.allSatisfy { !$0.isEmpty } && runs.count <= min(jobs, count - first), "\(first), \(jobs): \(runs)")
            }
        }
        #expect(ExportShares.split(narration, sentences: count..<count, jobs: 3).isEmpty)
        #expect(ExportShares.split(narration, jobs: 2) == ExportShares.split(narration, sentences: 0..<count, jobs: 2))
    }

    @Test func theExportsOwnRunIsSmallerByWhatItAlsoJoins() throws {
        let story = try parsedStory(Array(repeating: threeParagraphs, count: 6).joined(separator: "\n\n"))
        let narration = try Narration(story: story)
        func audio(_ run: Range<Int>) -> Int { narration.items[run].map(ExportShares.expectedAudio).reduce(0, +) }
        let even = ExportShares.split(narration, sentences: 0..<narration.items.count, jobs: 2)
        let half = ExportShares.split(narration, sentences: 0..<narration.items.count, jobs: 2, firstShare: 50)
        #expect(even.count == 2 && half.count == 2)
        #expect(half[0].upperBound < even[0].upperBound)
        // Within a sentence's worth of a third of the whole.
        let third = Double(audio(half[0])) / Double(audio(0..<narration.items.count))
        #expect(abs(third - 1.0 / 3) < 0.06, "\(third)")
    }

    @Test func aCutNeverFallsBeforeASentenceAlreadyBegun() {
        let limit = SentenceLimit(end: 10)
        #expect(limit.claim(0) && limit.claim(1) && limit.claim(2))
        var offered = -1
        // Asked to end before sentence 1, which is being said: it ends after what was begun.
        #expect(
            limit.cut { first in
                offered = first
                return 1
            } == 3)
        #expect(offered == 3)
        #expect(!limit.claim(3), "the sentence after the cut is given away")
        #expect(limit.claim(2), "a sentence begun before the cut is still this reader's")
        // A later cut can only bring the end nearer, never past where it was.
        #expect(limit.cut { _ in 8 } == 3)
        #expect(limit.end == 3)
    }

    /// Cuts the story while its second sentence is being synthesised, as a worker's ready does.
    final class CuttingEngine: SpeechEngine {
        let limit: SentenceLimit
        let calls = Mutex(0)
        let cutAt = Mutex<Int?>(nil)
        init(limit: SentenceLimit) { self.limit = limit }
        func synthesize(_ utterance: SpeechUtterance, stop: StopToken?, handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision) throws
            -> SynthesisResult
        {
            if calls.withLock({
                $0 += 1
                return $0
            }) == 2 {
                cutAt.withLock { $0 = limit.cut { $0 } }
            }
            return try EspeakEngine.shared.synthesize(utterance, stop: stop, handler: handler)
        }
    }

    @Test func aPlayerWithALimitEndsWhereItIsCut() throws {
        let narration = try Narration(story: try parsedStory(threeParagraphs))
        let limit = SentenceLimit(end: narration.items.count)
        let engine = CuttingEngine(limit: limit)
        let recorder = PlayerRecorder()
        let player = NarrationPlayer(
            narration: narration, engine: engine, sink: DiscardingSink(),
            settings: SpeechSettings(rate: 300, pitch: 50, volume: 100, voice: "en"), hooks: recorder.hooks, limit: limit)
        player.start()
        #expect(player.wait() == .finished)
        // Cut during the second sentence: the story ends after it, the first not begun.
        #expect(engine.cutAt.withLock { $0 } == 2)
        let sentences = recorder.all.compactMap { if case .sentence(let index) = $0.kind { index } else { nil } }
        #expect(sentences == [0, 1])
        #expect(recorder.all.last?.kind == .end)
    }
}
