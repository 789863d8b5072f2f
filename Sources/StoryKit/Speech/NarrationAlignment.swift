import Foundation
import Synchronization

/// Measures how well the narration's word times follow the speech: for every word, whether it gets a
/// time, in order, and where that time comes from.
///
/// A word is *on time* when its time is eSpeak's own word event inside the word's text (the sample
/// where eSpeak starts the word), or, for a word eSpeak gives no event (the "a" of "of a", numbers,
/// words inside curly quotes), its mark lies after the previous word's start and no later than the
/// next word's start.
public struct NarrationAlignment: Sendable, Hashable, CustomStringConvertible {
    public var words = 0
    /// Words timed by eSpeak's own word event.
    public var byWordEvent = 0
    /// Words timed by their mark alone, or estimated after a word eSpeak joined them to, in order
    /// between their neighbours.
    public var byMark = 0
    /// Words with no time, or a time out of order.
    public var missed = 0
    /// |word event − mark| in milliseconds, where a word has both (how early marks come).
    public var markLeadMilliseconds: [Double] = []
    /// Samples of audio produced.
    public var samples = 0

    public init() {}

    /// Share of words highlighted in order at the time they are heard.
    public var onTimeShare: Double { words == 0 ? 1 : Double(byWordEvent + byMark) / Double(words) }

    public var description: String {
        return String(
            format:
                "%d words: %.2f %% on time (%.2f %% by eSpeak word event, %.2f %% by mark or joined-word estimate, in order), %d missed; marks lead word events by median %.1f ms, p95 %.1f ms",
            words, onTimeShare * 100, Double(byWordEvent) / Double(max(words, 1)) * 100,
            Double(byMark) / Double(max(words, 1)) * 100, missed, Percentile.of(markLeadMilliseconds, 0.5), Percentile.of(markLeadMilliseconds, 0.95))
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.words += rhs.words
        sum.byWordEvent += rhs.byWordEvent
        sum.byMark += rhs.byMark
        sum.missed += rhs.missed
        sum.markLeadMilliseconds += rhs.markLeadMilliseconds
        sum.samples += rhs.samples
        return sum
    }

    /// Synthesises every sentence of `narration` (no audio kept) and measures its word times.
    public static func measure(_ narration: Narration, engine: any SpeechEngine, settings: SpeechSettings) throws -> NarrationAlignment {
        var total = NarrationAlignment()
        for index in narration.items.indices {
            let prepared = narration.utterance(sentence: index, settings: settings)
            let collected = Mutex<[SpeechEvent]>([])
            let result = try engine.synthesize(prepared.utterance, stop: nil) { chunk in
                collected.withLock { $0 += chunk.events }
                return .proceed
            }
            let events = collected.withLock { $0 }
            total = total + measure(prepared, events: events, wordCount: narration.items[index].words.count)
            total.samples += result.sampleCount
        }
        return total
    }

    /// Measures one utterance's events.
    public static func measure(_ prepared: NarrationUtterance, events: [SpeechEvent], wordCount: Int) -> NarrationAlignment {
        var aligner = NarrationAligner(utterance: prepared)
        _ = aligner.consume(events)
        var marks: [Int: Int] = [:]
        for event in events {
            if case .mark(let name) = event.kind, let word = NarrationUtterance.wordIndex(forMark: name), marks[word] == nil {
                marks[word] = event.sample
            }
        }
        var result = NarrationAlignment()
        let range = prepared.firstWord..<wordCount
        result.words = range.count
        var previous = -1
        for word in range {
            guard let timing = aligner.timings[word], timing.sample > previous || (previous < 0 && timing.sample >= 0) else {
                result.missed += 1
                continue
            }
            let next = ((word + 1)..<wordCount).lazy.compactMap { aligner.timings[$0]?.sample }.first ?? Int.max
            switch timing.source {
            case .wordEvent:
                result.byWordEvent += 1
                if let mark = marks[word] {
                    result.markLeadMilliseconds.append(Double(timing.sample - mark) * 1000 / Double(SpeechAudioFormat.sampleRate))
                }
            case .mark, .estimatedAfterJoinedWord:
                if timing.sample <= next { result.byMark += 1 } else { result.missed += 1 }
            }
            previous = timing.sample
        }
        return result
    }
}
