import Foundation
import StoryKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A self-pipe that the REPL's poll loop watches: other threads (the narration player, the
/// interface voice) put what they have in a locked queue and call `signal()`.
final class WakePipe: Sendable {
    let read: Int32
    let write: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        read = fds[0]
        write = fds[1]
    }

    /// Wakes the poll loop (any thread; a full pipe already wakes it).
    func signal() {
        var byte: UInt8 = 1
        _ = Glibc.write(write, &byte, 1)
    }

    /// Empties the pipe (the loop's thread).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while Glibc.read(read, &buffer, buffer.count) > 0 {}
    }
}

/// What a `Narrator` stand-in and the real player have in common, as the shell uses it.
protocol StoryNarration: AnyObject {
    var clock: Narrator.Clock { get }
    /// Events are still to come (the story is being read, or waits to go on).
    var isLoaded: Bool { get }
    var isRunning: Bool { get }
    /// The language of the notices `load` returns (the session's, set before each load).
    var messages: MessageCatalog { get set }
    /// Prepares reading `story` from word `fromWord`; returns a notice to show and say (a voice fallback).
    @discardableResult
    func load(story: Story, fromWord: Int, settings: SpeechSettings, stepMode: Bool) -> String?
    func run(now: UInt64)
    func hold()
    func stop()
    var nextDeadline: UInt64? { get }
    func takeEvent(now: UInt64, force: Bool) -> NarrationEvent?
}

/// The story read aloud for real: a `NarrationPlayer` on the chosen sink, its events (delivered on
/// the player's threads when heard) queued for the shell's loop, which a `WakePipe` wakes.
final class PlayerNarrator: StoryNarration {
    let clock = Narrator.Clock.paced
    let engine: EspeakEngine
    let sink: any PCMSink
    private let wake: WakePipe
    private let inbox = Inbox()
    private var player: NarrationPlayer?
    private var start: (sentence: Int, word: Int, step: Bool) = (0, 0, false)
    private var generation = 0
    private var ended = true
    private(set) var isRunning = false
    private var pausedByHold = false
    /// What the player did when held and let go, as lines (`$STORYREADER_SPEECH_LOG`).
    var trace: ((String) -> Void)?
    var messages: MessageCatalog = .english
    /// Voices already resolved (with their notice, said once).
    private var voices: [String: VoiceCatalog.Resolution] = [:]
    /// The languages whose fallback notice was given.
    private var noticed: Set<String> = []

    init(engine: EspeakEngine = .shared, sink: any PCMSink, wake: WakePipe) {
        self.engine = engine
        self.sink = sink
        self.wake = wake
    }

    /// Events from the player's threads, tagged with the player they came from.
    final class Inbox: Sendable {
        private let events = Mutex<[(generation: Int, event: NarrationEvent)]>([])
        func append(_ generation: Int, _ event: NarrationEvent) { events.withLock { $0.append((generation, event)) } }
        func take(_ generation: Int) -> NarrationEvent? {
            events.withLock { events in
                while let first = events.first {
                    events.removeFirst()
                    if first.generation == generation { return first.event }
                }
                return nil
            }
        }
        func clear() { events.withLock { $0.removeAll() } }
    }

    var isLoaded: Bool { player != nil && !ended }
    var nextDeadline: UInt64? { nil }

    /// The voice for `wanted`, resolved once; the notice only the first time it is used.
    func resolveVoice(_ wanted: String) -> (voice: String, notice: String?) {
        let resolution = resolution(for: wanted)
        guard resolution.notice != nil, noticed.insert(wanted).inserted else { return (resolution.voice, nil) }
        // The notice in the language spoken now: the voice may have been resolved at start.
        let notice = (try? engine.resolveVoice(wanted, messages: messages))?.notice
            ?? messages.tr("no voice for '{voice}': reading with 'en'", ["voice": wanted])
        return (resolution.voice, notice)
    }

    /// Resolves the voices of `languages` now, while the engine is idle: resolving asks the
    /// engine's thread, which a paced utterance holds for as long as it is heard, so a voice first
    /// resolved while the interface speaks held the keys that long (a Spanish interface opening an
    /// English story waited seconds for "en"). Their notices still come when first used.
    func prepareVoices(_ languages: [String]) {
        for language in languages { _ = resolution(for: language) }
    }

    private func resolution(for wanted: String) -> VoiceCatalog.Resolution {
        if let known = voices[wanted] { return known }
        let resolution = (try? engine.resolveVoice(wanted, messages: messages))
            ?? VoiceCatalog.Resolution(voice: "en", notice: messages.tr("no voice for '{voice}': reading with 'en'", ["voice": wanted]))
        voices[wanted] = resolution
        return resolution
    }

    @discardableResult
    func load(story: Story, fromWord: Int, settings: SpeechSettings, stepMode: Bool) -> String? {
        stop()
        generation += 1
        let narration: Narration
        do {
            narration = try Narration(story: story, announcingPages: true)
        } catch {
            // Nothing speakable: the story ends at once.
            inbox.append(generation, .finished)
            ended = false
            player = nil
            wake.signal()
            return error.localized(messages)
        }
        // The profile's voice, else the story's language; a missing one falls back with a notice.
        let (voice, notice) = resolveVoice(settings.voice ?? story.language)
        var resolved = settings.clamped().settings
        resolved.voice = voice

        // Story word index ↔ (narration sentence, word in it).
        var firstWordOfSentence: [Int] = []
        var count = 0
        for sentence in story.sentences {
            firstWordOfSentence.append(count)
            count += sentence.words.count
        }
        let storySentence = firstWordOfSentence.lastIndex { $0 <= fromWord } ?? 0
        let item = narration.item(forStorySentence: storySentence) ?? narration.items.count
        let word = item < narration.items.count && narration.items[item].storySentenceIndex == storySentence
            ? fromWord - firstWordOfSentence[storySentence] : 0
        start = (item, max(0, word), stepMode)

        let generation = self.generation
        let inbox = self.inbox
        let wake = self.wake
        let items = narration.items
        let offsets = firstWordOfSentence
        let current = Mutex<Int?>(nil)
        let hooks = NarrationPlayer.Hooks(onEvent: { event in
            var out: [NarrationEvent] = []
            switch event.kind {
            case .sentence(let index):
                let sentence = items[index].storySentenceIndex
                let previous = current.withLock { $0 }
                // After a pause for an announcement the sentence goes on: not a new one.
                guard previous != sentence else { break }
                if let previous { out.append(.sentenceFinished(previous)) }
                current.withLock { $0 = sentence }
                out.append(.sentenceStarted(sentence))
            case .word(let index, let word):
                let sentence = items[index].storySentenceIndex
                out.append(.word(offsets[sentence] + word))
            case .waitingForStep(let index):
                let sentence = items[index].storySentenceIndex
                current.withLock { $0 = nil }
                out.append(.sentenceFinished(sentence))
            case .end:
                if let previous = current.withLock({ $0 }) { out.append(.sentenceFinished(previous)) }
                current.withLock { $0 = nil }
                out.append(.finished)
            default:
                break
            }
            guard !out.isEmpty else { return }
            for item in out { inbox.append(generation, item) }
            wake.signal()
        })
        player = NarrationPlayer(narration: narration, engine: engine, sink: sink, settings: resolved, hooks: hooks)
        ended = false
        isRunning = false
        return notice
    }

    func run(now: UInt64) {
        guard let player, !ended, !isRunning else { return }
        isRunning = true
        switch player.state {
        case .idle:
            player.start(sentence: start.sentence, word: start.word, stepMode: start.step ? .sentence : .off)
        case .paused, .playing:
            if pausedByHold {
                player.send(.resume)
                trace?("story goes on")
            }
        case .stopped, .finished:
            // Held during the last sound of the story: it was over.
            inbox.append(generation, .finished)
            wake.signal()
        default:
            break
        }
        pausedByHold = false
    }

    /// Pauses in place, and returns once the sink is free (an announcement is about to play on it).
    func hold() {
        guard let player, isRunning else { return }
        isRunning = false
        // Only sound being played is paused (step mode's wait stays a wait).
        guard player.state == .playing else { return }
        pausedByHold = true
        player.send(.pause)
        waitUntilQuiet(player)
        trace?("story held: \(player.state) at sentence \(player.position.sentence + 1)")
    }

    func stop() {
        inbox.clear()
        isRunning = false
        ended = true
        guard let player else { return }
        self.player = nil
        if player.state != .idle {
            player.send(.stop)
            player.wait()
        }
    }

    func takeEvent(now: UInt64, force: Bool) -> NarrationEvent? {
        guard player != nil || !ended else { return nil }
        guard let event = inbox.take(generation) else { return nil }
        if event == .finished { ended = true }
        return event
    }

    /// Changes rate, pitch and volume from the next sentence, keeping the reading going.
    func change(settings: SpeechSettings) {
        player?.send(.settings(settings))
    }

    private func waitUntilQuiet(_ player: NarrationPlayer) {
        let deadline = monotonicNanoseconds() + 2_000_000_000
        while player.state == .playing, monotonicNanoseconds() < deadline { usleep(500) }
    }
}

/// Speaks interface utterances (focus, announcements, previews) through the engine's thread onto
/// the same sink as the story. One at a time; `interrupt()` stops it within one buffer and returns
/// when the sink is free again.
final class InterfaceVoice: Sendable {
    private struct Job: Sendable {
        var id: Int
        var text: String
        var settings: SpeechSettings
        /// A word to say letter by letter instead of `text` (which is its caption).
        var spelling: String? = nil
        /// `text` by language: a run in another language than the voice's is said in that language.
        var runs: [SpeechRun] = []
    }
    private struct State {
        var nextID = 0
        var job: Job?
        var busy = false
        var interrupted = false
        var stop = StopToken()
        var finished: Set<Int> = []
    }

    let engine: EspeakEngine
    let sink: any PCMSink
    private let wake: WakePipe?
    private let state = Mutex(State())
    private let condition = NSCondition()
    /// Called (on the engine's thread) just before an utterance's first samples go to the sink:
    /// its id and the time (`bench repl`).
    private let onFirstSamples: (@Sendable (Int, UInt64) -> Void)?

    init(engine: EspeakEngine = .shared, sink: any PCMSink, wake: WakePipe?,
         onFirstSamples: (@Sendable (Int, UInt64) -> Void)? = nil) {
        self.onFirstSamples = onFirstSamples
        self.engine = engine
        self.sink = sink
        self.wake = wake
        let thread = Thread { [self] in self.run() }
        thread.name = "storyreader.interface-voice"
        thread.start()
    }

    /// Starts saying `text` (the previous utterance must be over or interrupted); returns its id.
    func say(_ text: String, settings: SpeechSettings, spelling: String? = nil, runs: [SpeechRun] = []) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.job = Job(id: state.nextID, text: Self.speakable(text), settings: settings, spelling: spelling.map(Self.speakable), runs: runs)
            state.busy = true
            state.interrupted = false
            state.stop = StopToken()
            return state.nextID
        }
        condition.broadcast()
        return id
    }

    /// True once utterance `id` has been heard to its end (or was interrupted).
    func take(finished id: Int) -> Bool {
        state.withLock { $0.finished.remove(id) != nil }
    }

    /// Stops what is being said; returns when the sink is free.
    func interrupt() {
        condition.lock()
        state.withLock { state in
            guard state.busy else { return }
            if let waiting = state.job {
                // Not started yet: it never will be.
                state.job = nil
                state.busy = false
                state.finished.insert(waiting.id)
                return
            }
            state.interrupted = true
            state.stop.stop()
            sink.interrupt()
        }
        condition.broadcast()
        while state.withLock({ $0.busy }) { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            var job = state.withLock { state -> Job? in
                defer { state.job = nil }
                return state.job
            }
            while job == nil {
                condition.wait()
                job = state.withLock { state -> Job? in
                    defer { state.job = nil }
                    return state.job
                }
            }
            let stop = state.withLock { $0.stop }
            condition.unlock()
            guard let job else { continue }
            speak(job, stop: stop)
        }
    }

    private func speak(_ job: Job, stop: StopToken) {
        let sink = self.sink
        // A spelled word: eSpeak NG's SSML names each character ("b, u, t…") in the word's voice.
        let utterance = job.spelling.map {
            SpeechUtterance(text: "<speak><say-as interpret-as=\"characters\">\(Narration.ssmlText($0))</say-as></speak>", settings: job.settings, encoding: .ssml)
        } ?? SpeechRun.ssml(job.runs, voice: job.settings.voice).map { SpeechUtterance(text: $0, settings: job.settings, encoding: .ssml) }
            ?? SpeechUtterance(text: job.text, settings: job.settings, encoding: .plain)
        let onFirstSamples = self.onFirstSamples
        let first = Atomic<Bool>(true)
        _ = try? engine.synthesize(utterance, stop: stop) { chunk in
            if let onFirstSamples, !chunk.samples.isEmpty, first.exchange(false, ordering: .relaxed) {
                onFirstSamples(job.id, DispatchTime.now().uptimeNanoseconds)
            }
            let whole = (try? sink.write(chunk.samples)) ?? false
            return whole ? .proceed : .stop
        }
        if !stop.isStopped { try? sink.drain() }
        condition.lock()
        state.withLock { state in
            if state.interrupted || stop.isStopped { sink.drop() }
            state.interrupted = false
            if state.job == nil { state.busy = false }
            state.finished.insert(job.id)
        }
        condition.broadcast()
        condition.unlock()
        wake?.signal()
    }

    /// Interface text made safe for eSpeak 1.51: one line, and no token long enough to hurt it.
    static func speakable(_ text: String) -> String {
        let line = Sanitizer.sanitizeLine(text)
        guard line.split(separator: " ").contains(where: { $0.unicodeScalars.count > Narration.longestToken }) else { return line }
        return line.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            let scalars = Array(token.unicodeScalars)
            guard scalars.count > Narration.longestToken else { return String(token) }
            let kept = scalars.prefix(Narration.longestSpokenToken)
            return stride(from: 0, to: kept.count, by: Narration.longestToken).map { start in
                var piece = String.UnicodeScalarView()
                piece.append(contentsOf: kept[start..<min(start + Narration.longestToken, kept.count)])
                return String(piece)
            }.joined(separator: " ")
        }.joined(separator: " ")
    }
}
