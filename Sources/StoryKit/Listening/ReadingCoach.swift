import Foundation
import Synchronization

/// The read-along coach's listening core: one PocketSphinx decoder, owned by one thread of its
/// own (as eSpeak NG is by the speech thread: the decoder is not thread-safe), fed 16 kHz mono
/// PCM in chunks from any thread, and sending `CoachEvent`s (from that thread) as the child reads.
///
/// Privacy: the audio lives only in memory, and only the current sentence's (to decode it again
/// from the start of the next sentence when the child moves on); nothing of it is written to a
/// file or a log (the decoder's log is off, and it is given no raw-audio folder).
public final class ReadingCoach: Sendable {
    public struct Settings: Sendable, Hashable {
        /// How long a silence waits before the next word is said for the child (issue 45: 3 s,
        /// 2–8 s for slower readers).
        public var waitMilliseconds: Int

        public static let waitRange = 2000...8000
        public static let standard = Settings(waitMilliseconds: 3000)

        public init(waitMilliseconds: Int) {
            self.waitMilliseconds = min(max(waitMilliseconds, Self.waitRange.lowerBound), Self.waitRange.upperBound)
        }
    }

    /// The samples the decoder takes: 16 kHz, mono, signed 16-bit.
    public static let sampleRate = SphinxDecoder.sampleRate

    /// The words followed, each with its dictionary word (nil: never judged).
    public let words: [CoachWord]

    private let thread: SerialThread
    private let state: ListeningState

    /// Loads the model (about a second) and starts listening for the first sentence.
    public init(
        sentences: [CoachSentence], model: ListeningModel = .englishUS, settings: Settings = .standard,
        onEvent: @escaping @Sendable (CoachEvent) -> Void
    ) throws(ListeningProblem) {
        let thread = SerialThread(name: "storyreader.listening")
        let made: Result<ListeningState, ListeningProblem> = thread.run {
            Result { () throws(ListeningProblem) in
                try ListeningState(sentences: sentences, model: model, settings: settings, thread: thread, onEvent: onEvent)
            }
        }
        switch made {
        case .success(let state):
            self.state = state
            self.thread = thread
            words = thread.run { state.follower.words }
        case .failure(let problem):
            thread.close(waiting: false)
            throw problem
        }
    }

    // The decoder's thread ends once what was fed is decoded; nothing waits for it.
    deinit { thread.close(waiting: false) }

    /// Queues `samples` (16 kHz mono) for decoding; returns at once.
    public func feed(_ samples: [Int16]) {
        let state = self.state
        thread.enqueue { state.feed(samples) }
    }

    /// Waits until everything fed so far is decoded.
    public func wait() {
        thread.run {}
    }

    /// The end of the audio: the last hypothesis is taken, the words passed over are skipped, and
    /// the `finished` event is sent (once). Returns the tally.
    public func finish() -> CoachTally {
        let state = self.state
        return thread.run { state.finish() }
    }

    /// Each heard word's end (ms, by the latest hypothesis), for the latency benchmark.
    public func heardEnds() -> [CoachWord: Int] {
        let state = self.state
        return thread.run { Dictionary(uniqueKeysWithValues: state.follower.ends.map { (state.follower.words[$0.key], $0.value) }) }
    }

    /// True once the last judged word was heard or helped (the coach has stopped listening).
    public var isDone: Bool {
        let state = self.state
        return thread.run { state.done }
    }
}

/// The coach's state on its listening thread: the decoder, the follower and the current
/// utterance's audio. `@unchecked Sendable` because only its `SerialThread`'s jobs touch it, one
/// at a time (`thread.preconditionOnThread` checks it where the decoder is called).
private final class ListeningState: @unchecked Sendable {
    let decoder: SphinxDecoder
    var follower: CoachFollower
    let thread: SerialThread
    let onEvent: @Sendable (CoachEvent) -> Void
    /// Samples of the current utterance (memory only).
    var utterance: [Int16] = []
    /// Where the current utterance starts, in samples from the start of the audio.
    var utteranceStart = 0
    var fed = 0
    var done = false

    init(
        sentences: [CoachSentence], model: ListeningModel, settings: ReadingCoach.Settings, thread: SerialThread,
        onEvent: @escaping @Sendable (CoachEvent) -> Void
    ) throws(ListeningProblem) {
        decoder = try SphinxDecoder(model: model)
        let words = CoachVocabulary.words(sentences, decoder: decoder)
        follower = CoachFollower(words: words, waitMilliseconds: settings.waitMilliseconds)
        self.thread = thread
        self.onEvent = onEvent
        if follower.isDone {
            done = true
        } else {
            try listen()
        }
    }

    private var samplesPerMillisecond: Int { SphinxDecoder.sampleRate / 1000 }

    /// Starts an utterance with the grammar of the follower's window.
    private func listen() throws(ListeningProblem) {
        let window = follower.window
        try decoder.useGrammar(CoachGrammar(follower.words[window].compactMap(\.spoken)))
        try decoder.startUtterance()
    }

    func feed(_ samples: [Int16]) {
        thread.preconditionOnThread("The decoder")
        guard !done else { return }
        fed += samples.count
        utterance.append(contentsOf: samples)
        do {
            try decoder.process(samples[...])
            try follow()
        } catch {
            // The decoder failing mid-reading ends the coaching; the reading itself goes on.
            end()
            return
        }
        if let help = follower.tick(now: fed / samplesPerMillisecond) { onEvent(help) }
        if follower.isDone { end() }
    }

    /// Aligns the hypothesis; when the child has reached the next sentence, listens for it (and
    /// the one after) from where its first word began, decoding that stretch again.
    private func follow() throws(ListeningProblem) {
        let aligned = follower.align(decoder.segments(), offset: utteranceStart / samplesPerMillisecond)
        aligned.events.forEach(onEvent)
        guard let frame = aligned.nextSentenceFrame else { return }
        decoder.endUtterance()
        follower.advance(now: fed / samplesPerMillisecond).forEach(onEvent)
        let cut = min(utterance.count, frame * SphinxDecoder.sampleRate / SphinxDecoder.framesPerSecond)
        utterance.removeFirst(cut)
        utteranceStart += cut
        try listen()
        try decoder.process(utterance[...])
        follower.align(decoder.segments(), offset: utteranceStart / samplesPerMillisecond).events.forEach(onEvent)
    }

    private func end() {
        guard !done else { return }
        done = true
        decoder.endUtterance()
        _ = follower.align(decoder.segments(), offset: utteranceStart / samplesPerMillisecond).events.map(onEvent)
        utterance = []
        follower.finish(now: fed / samplesPerMillisecond).forEach(onEvent)
    }

    func finish() -> CoachTally {
        thread.preconditionOnThread("The decoder")
        end()
        return follower.tally
    }
}
