import Foundation
import StoryKit

/// Monotonic time in nanoseconds.
package func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Reads a story as a timeline of narration events, without speech: `--no-audio` without a
/// terminal, where time passes only when the script says `wait` (no clock: transcripts are the same
/// on every machine). With audio (or `--no-audio` on a terminal: paced silence) the shell uses the
/// speech service instead.
final class Narrator {
    /// How time passes: `.virtual` only when a script waits; `.paced` in real time (the speech service).
    enum Clock { case virtual, paced }

    private var events: [NarrationEvent] = []
    private var next = 0
    /// Whether the timeline runs (the story is the utterance being spoken).
    private(set) var isRunning = false

    var isLoaded: Bool { next < events.count }

    /// Prepares the timeline from `fromWord`; it starts with `run()`.
    func load(story: Story, fromWord: Int, stepMode: Bool) {
        events = []
        next = 0
        isRunning = false
        var wordIndex = 0
        for (index, sentence) in story.sentences.enumerated() {
            let count = sentence.words.count
            defer { wordIndex += count }
            if wordIndex + count <= fromWord || count == 0 { continue }
            events.append(.sentenceStarted(index))
            // Going on inside a sentence (a resume) starts at its word.
            for offset in max(0, fromWord - wordIndex)..<count { events.append(.word(wordIndex + offset)) }
            events.append(.sentenceFinished(index))
            if stepMode { return }
        }
        events.append(.finished)
    }

    /// Starts or goes on (after an interruption) from where the timeline is.
    func run() {
        guard isLoaded else { return }
        isRunning = true
    }

    /// Holds the timeline (an answer is said; the story goes on after it).
    func hold() { isRunning = false }

    func stop() {
        events = []
        next = 0
        isRunning = false
    }

    /// The next event, when the script waits for it.
    func takeEvent() -> NarrationEvent? {
        guard isRunning, next < events.count else { return nil }
        defer { next += 1 }
        return events[next]
    }
}
