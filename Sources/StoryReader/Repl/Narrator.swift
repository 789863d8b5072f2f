import Foundation
import StoryKit

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Reads a story aloud as a timeline of narration events.
///
/// Stands in for the speech issue's `Narration` until it is wired: `.virtual` time passes only when
/// the script says `wait` (no clock: transcripts are the same on every machine); `.paced` time
/// passes in real time at the reading rate, silently (the paced-silence sink's timing).
final class Narrator {
    enum Clock { case virtual, paced }

    let clock: Clock
    private var events: [(at: UInt64, event: NarrationEvent)] = []
    private var next = 0
    /// Whether the timeline runs (the story is the utterance being spoken).
    private(set) var isRunning = false
    private var heldAt: UInt64?
    private var story: Story?

    init(clock: Clock) { self.clock = clock }

    var isLoaded: Bool { next < events.count }

    /// Prepares the timeline from `fromWord`; it starts with `run()`.
    func load(story: Story, fromWord: Int, settings: SpeechSettings, stepMode: Bool) {
        self.story = story
        events = []
        next = 0
        isRunning = false
        let wordNanoseconds = UInt64(60_000_000_000 / max(settings.rate, 1))
        var time: UInt64 = 0
        var wordIndex = 0
        for (index, sentence) in story.sentences.enumerated() {
            let count = sentence.words.count
            defer { wordIndex += count }
            if wordIndex + count <= fromWord || count == 0 { continue }
            events.append((time, .sentenceStarted(index)))
            for offset in 0..<count {
                events.append((time, .word(wordIndex + offset)))
                time += wordNanoseconds
            }
            time += wordNanoseconds / 2
            events.append((time, .sentenceFinished(index)))
            if stepMode { return }
        }
        events.append((time, .finished))
    }

    /// Starts or goes on (after an interruption) from where the timeline is.
    func run(now: UInt64) {
        guard isLoaded, !isRunning else { return }
        let base = next < events.count ? events[next].at : 0
        let shift = now &- base
        for index in next..<events.count { events[index].at = events[index].at &+ shift }
        isRunning = true
    }

    /// Holds the timeline (an important announcement interrupts; the story goes on after it).
    func hold() { isRunning = false }

    func stop() {
        events = []
        next = 0
        isRunning = false
    }

    /// When the next event falls due (paced clock, running only).
    var nextDeadline: UInt64? {
        guard clock == .paced, isRunning, next < events.count else { return nil }
        return events[next].at
    }

    /// The next event when it is due (paced) or at once (virtual, when the script waits).
    func takeEvent(now: UInt64, force: Bool) -> NarrationEvent? {
        guard isRunning, next < events.count else { return nil }
        if !force, clock == .virtual || events[next].at > now { return nil }
        defer { next += 1 }
        return events[next].event
    }
}

/// Says interface utterances through the announcement queue. Without a speech engine wired,
/// speech is silent: virtual utterances end at once, paced ones last as long as they would.
final class Speaker {
    private(set) var queue = AnnouncementQueue()
    private var busyUntil: UInt64?
    let clock: Narrator.Clock
    /// Called when the queue lets the story run or interrupts it.
    var onStory: ((_ running: Bool) -> Void)?
    /// Every utterance that started (the benchmark and tests watch it).
    var onStart: ((Utterance) -> Void)?

    init(clock: Narrator.Clock) { self.clock = clock }

    func submit(_ utterance: Utterance, now: UInt64) { perform(queue.submit(utterance), now: now) }

    func storyStopped(now: UInt64) { perform(queue.removeStory(), now: now) }

    /// The story's timeline ended.
    func storyFinished(now: UInt64) {
        if queue.speaking?.kind == .story { perform(queue.finished(), now: now) }
    }

    var deadline: UInt64? { busyUntil }

    func tick(now: UInt64) {
        if let until = busyUntil, until <= now {
            busyUntil = nil
            perform(queue.finished(), now: now)
        }
    }

    private func perform(_ commands: [SpeechCommand], now: UInt64) {
        for command in commands {
            switch command {
            case .start(let utterance):
                onStart?(utterance)
                if utterance.kind == .story {
                    busyUntil = nil
                    onStory?(true)
                } else if clock == .paced {
                    let words = utterance.text.split(separator: " ").count
                    busyUntil = now + UInt64(words) * 60_000_000_000 / 175 + 150_000_000
                } else {
                    // Silent and instant: the utterance is over as soon as it starts.
                    busyUntil = nil
                    perform(queue.finished(), now: now)
                }
            case .interrupt(let utterance):
                if utterance.kind == .story { onStory?(false) } else { busyUntil = nil }
            case .drop:
                break
            }
        }
    }
}
