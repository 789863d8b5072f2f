import Foundation
import StoryKit

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Reads a story as a timeline of narration events, without speech: `--no-audio` without a
/// terminal, where `.virtual` time passes only when the script says `wait` (no clock: transcripts
/// are the same on every machine). `.paced` time passes in real time at the reading rate, silently.
/// With audio (or `--no-audio` on a terminal) the shell uses `PlayerNarrator` instead.
final class Narrator: StoryNarration {
    enum Clock { case virtual, paced }

    let clock: Clock
    private var events: [(at: UInt64, event: NarrationEvent)] = []
    private var next = 0
    /// Whether the timeline runs (the story is the utterance being spoken).
    private(set) var isRunning = false
    private var heldAt: UInt64?
    private var story: Story?

    init(clock: Clock) { self.clock = clock }

    /// Says no notice of its own: unused.
    var messages: MessageCatalog = .english

    var isLoaded: Bool { next < events.count }

    /// Prepares the timeline from `fromWord`; it starts with `run()`.
    @discardableResult
    func load(story: Story, fromWord: Int, settings: SpeechSettings, stepMode: Bool) -> String? {
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
            // Going on inside a sentence (a resume) starts at its word.
            for offset in max(0, fromWord - wordIndex)..<count {
                events.append((time, .word(wordIndex + offset)))
                time += wordNanoseconds
            }
            time += wordNanoseconds / 2
            events.append((time, .sentenceFinished(index)))
            if stepMode { return nil }
        }
        events.append((time, .finished))
        return nil
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

/// Says interface utterances through the announcement queue: with a `voice`, really (through the
/// speech engine onto the story's sink); without one (`--no-audio` without a terminal) silently:
/// virtual utterances end at once, paced ones last as long as they would.
final class Speaker {
    private(set) var queue = AnnouncementQueue()
    private var busyUntil: UInt64?
    let clock: Narrator.Clock
    /// The real voice, when there is audio (or paced silence).
    let voice: InterfaceVoice?
    /// The settings interface speech uses now (the profile's, with the interface's voice).
    var settings: () -> SpeechSettings = { SpeechSettings() }
    /// The eSpeak voice for a setting's voice (nil: the interface's language).
    var resolveVoice: (String?) -> String = { $0 ?? "en" }
    /// Settings for particular utterances (the settings screen's preview).
    private var overrides: [Utterance: SpeechSettings] = [:]
    private var speaking: (id: Int, utterance: Utterance)?
    /// Called when the queue lets the story run or interrupts it.
    var onStory: ((_ running: Bool) -> Void)?
    /// Every utterance that started (the benchmark and tests watch it).
    var onStart: ((Utterance) -> Void)?
    /// Every decision of the queue, as a line (`$STORYREADER_SPEECH_LOG`, for tests).
    var trace: ((String) -> Void)?

    init(clock: Narrator.Clock, voice: InterfaceVoice? = nil) {
        self.clock = clock
        self.voice = voice
    }

    func submit(_ utterance: Utterance, settings: SpeechSettings? = nil, now: UInt64) {
        if let settings { overrides[utterance] = settings }
        perform(queue.submit(utterance), now: now)
    }

    func storyStopped(now: UInt64) { perform(queue.removeStory(), now: now) }

    /// The story's timeline ended.
    func storyFinished(now: UInt64) {
        trace?("story finished")
        if queue.speaking?.kind == .story { perform(queue.finished(), now: now) }
    }

    var deadline: UInt64? { busyUntil }

    /// The voice's id of the interface utterance being spoken.
    var speakingID: Int? { speaking?.id }

    func tick(now: UInt64) {
        if let voice, let current = speaking, voice.take(finished: current.id) {
            speaking = nil
            perform(queue.finished(), now: now)
        }
        if let until = busyUntil, until <= now {
            busyUntil = nil
            perform(queue.finished(), now: now)
        }
    }

    /// Everything stops (leaving the program).
    func silence() {
        if let voice, speaking != nil { voice.interrupt() }
        speaking = nil
        _ = queue.clear()
    }

    private func perform(_ commands: [SpeechCommand], now: UInt64) {
        for command in commands {
            if let trace {
                func name(_ utterance: Utterance) -> String {
                    (utterance.kind == .story ? "story" : "\(utterance.priority)") + ": " + utterance.text
                }
                switch command {
                case .start(let utterance):
                    trace("start " + name(utterance))
                    // Each run with its language: the voice that says it.
                    if !utterance.runs.isEmpty {
                        trace("runs " + utterance.runs.map { "\($0.language)[\($0.text)]" }.joined(separator: " "))
                    }
                case .interrupt(let utterance): trace("interrupt " + name(utterance))
                case .drop(let utterance): trace("drop " + name(utterance))
                }
            }
            switch command {
            case .start(let utterance):
                onStart?(utterance)
                let settings = overrides.removeValue(forKey: utterance)
                if utterance.kind == .story {
                    busyUntil = nil
                    onStory?(true)
                } else if let voice {
                    var spoken = settings ?? self.settings()
                    // No voice chosen: the interface's own language speaks the interface.
                    spoken.voice = resolveVoice(spoken.voice ?? utterance.language)
                    speaking = (voice.say(utterance.text, settings: spoken, spelling: utterance.spelling, runs: utterance.runs), utterance)
                } else if clock == .paced {
                    let words = utterance.text.split(separator: " ").count
                    busyUntil = now + UInt64(words) * 60_000_000_000 / 175 + 150_000_000
                } else {
                    // Silent and instant: the utterance is over as soon as it starts.
                    busyUntil = nil
                    perform(queue.finished(), now: now)
                }
            case .interrupt(let utterance):
                if utterance.kind == .story {
                    onStory?(false)
                } else if let voice, speaking?.utterance == utterance {
                    voice.interrupt()
                    speaking = nil
                } else {
                    busyUntil = nil
                }
            case .drop(let utterance):
                overrides.removeValue(forKey: utterance)
            }
        }
    }
}
