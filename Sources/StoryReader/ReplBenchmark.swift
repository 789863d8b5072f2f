import ArgumentParser
import Foundation
import StoryKit
import Synchronization

/// `storyreader bench repl`: from a key's bytes arriving to the first PCM sample of the newly
/// focused element's speech (decode → Session.handle → announcement queue → eSpeak NG synthesis).
struct ReplBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: helpMessages.tr("Time a key press to the first PCM sample of the focused element's speech (p50, p99).")
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp(helpMessages.tr("Key presses to time.")))
    var keys = 2_000

    func run() throws {
        let library = global.loadLibrary()
        guard !library.entries.isEmpty else { throw UserFailure(message: "no stories to browse: use --stories DIR") }
        do { try EspeakEngine.shared.start() } catch { throw UserFailure(message: "\(error)") }
        // The REPL's real path: session → announcement queue (Speaker) → interface voice → the
        // engine's thread → eSpeak → the sink, here paced silence (a device's timing, no device).
        let firstSamples = FirstSamples()
        let speaker = Speaker(clock: .paced, voice: InterfaceVoice(sink: PacedSilenceSink(), wake: nil, onFirstSamples: firstSamples.record))
        speaker.settings = { SpeechSettings(voice: "en") }
        var session = Session(catalog: StoryCatalog(library: library),
                              snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Bench", age: 6, interests: ["animals", "space"])]),
                              profile: "Bench")
        _ = session.start()
        var decoder = KeyDecoder()
        var toFirstSample: [Double] = []
        var toQueue: [Double] = []
        let down = Array("\u{1B}[B".utf8), up = Array("\u{1B}[A".utf8)
        var goingDown = true
        var queuedAt: UInt64 = 0
        speaker.onStart = { _ in queuedAt = DispatchTime.now().uptimeNanoseconds }
        for _ in 0..<keys + 50 {
            let start = DispatchTime.now().uptimeNanoseconds
            queuedAt = 0
            var text: String?
            for key in decoder.feed(goingDown ? down : up) {
                for effect in session.handle(.key(key)) {
                    guard case .speak(let utterance) = effect else { continue }
                    // As the shell does: the previous utterance (still being heard) is interrupted.
                    speaker.submit(utterance, now: start)
                    text = utterance.text
                }
            }
            guard let text, queuedAt != 0, let id = speaker.speakingID else { continue }
            let first = firstSamples.wait(for: id)
            speaker.tick(now: DispatchTime.now().uptimeNanoseconds)
            if text == "End of screen." { goingDown = false }
            if text == "Top." { goingDown = true }
            toQueue.append(Double(queuedAt - start) / 1_000_000)
            toFirstSample.append(Double(first - start) / 1_000_000)
            // A key every 30 ms or so, as a quick hand on the arrows.
            usleep(20_000)
        }
        toQueue.removeFirst(50)
        toFirstSample.removeFirst(50)
        print("repl benchmark: \(toFirstSample.count) key presses (Down/Up through a library of \(library.entries.count) stories), the REPL's speech path: queue → interface voice → eSpeak NG → sink")
        print(String(format: "key → speech queued:        p50 %.3f ms  p99 %.3f ms", Percentile.of(toQueue, 0.5), Percentile.of(toQueue, 0.99)))
        print(String(format: "key → first PCM sample:     p50 %.3f ms  p99 %.3f ms  (aim: p50 ≤ 5 ms, p99 ≤ 15 ms)",
                     Percentile.of(toFirstSample, 0.5), Percentile.of(toFirstSample, 0.99)))
        try readingKeys(library)
    }

    /// While a story is read: → (next sentence) from its bytes to the first PCM sample of that
    /// sentence, through the one reader (Session → narrate effect → PlayerNarrator → NarrationPlayer
    /// → eSpeak NG → sink), as the shell performs it for the REPL, the kiosk and `read`.
    private func readingKeys(_ library: StoryLibrary) throws {
        guard let entry = library.entries.max(by: { $0.sentences < $1.sentences }) else { return }
        let sink = FirstWriteSink(PacedSilenceSink())
        let wake = WakePipe()
        let narrator = PlayerNarrator(sink: sink, wake: wake)
        var session = Session(catalog: StoryCatalog(library: library),
                              snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Bench", age: 6)]), profile: "Bench")
        _ = session.start()
        func perform(_ effects: [Effect]) {
            for effect in effects {
                guard case .narrate(_, let fromWord, let settings, let stepMode) = effect, let story = session.state.reader?.story else { continue }
                narrator.stop()
                // From here on, samples are the new sentence's (the old player has ended).
                sink.arm()
                narrator.load(story: story, fromWord: fromWord, settings: settings, stepMode: stepMode)
                // The queue lets the story run at once: nothing else is being said.
                narrator.run(now: monotonicNanoseconds())
            }
        }
        perform(session.handle(.command(.read(entry.id))))
        var decoder = KeyDecoder()
        let right = Array("\u{1B}[C".utf8), home = Array("\u{1B}[H".utf8)
        var times: [Double] = []
        let presses = min(keys, 300)
        for _ in 0..<presses + 10 {
            let atEnd = (session.state.reader?.sentence ?? 0) >= entry.sentences - 2
            let start = monotonicNanoseconds()
            for key in decoder.feed(atEnd ? home : right) { perform(session.handle(.key(key))) }
            guard let first = sink.waitForFirstWrite() else { continue }
            times.append(Double(first - start) / 1_000_000)
            usleep(30_000)
        }
        narrator.stop()
        times.removeFirst(min(10, times.count))
        print("reading keys: \(times.count) presses of → (next sentence) while reading “\(entry.title)”: Session → narration player → eSpeak NG → sink")
        print(String(format: "key → first PCM sample:     p50 %.3f ms  p99 %.3f ms  (aim: p50 ≤ 5 ms, p99 ≤ 15 ms)",
                     Percentile.of(times, 0.5), Percentile.of(times, 0.99)))
    }
}

/// When each utterance's first samples reached the sink, by the voice's utterance id.
final class FirstSamples: Sendable {
    private let times = Mutex<[Int: UInt64]>([:])
    func record(_ id: Int, _ time: UInt64) { times.withLock { $0[id] = time } }

    /// The time utterance `id`'s first samples came, waiting for them (up to a second).
    func wait(for id: Int) -> UInt64 {
        let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        while true {
            if let time = times.withLock({ $0.removeValue(forKey: id) }) { return time }
            if DispatchTime.now().uptimeNanoseconds > deadline { return DispatchTime.now().uptimeNanoseconds }
            sched_yield()
        }
    }
}

/// A sink that notes when the first samples after `arm()` arrive, and passes everything on.
final class FirstWriteSink: PCMSink {
    private let inner: any PCMSink
    private let first = Mutex<UInt64?>(nil)
    private let armed = Mutex(false)

    init(_ inner: any PCMSink) { self.inner = inner }

    func arm() {
        first.withLock { $0 = nil }
        armed.withLock { $0 = true }
    }

    /// When the first samples came after `arm()`, waiting up to a second for them.
    func waitForFirstWrite() -> UInt64? {
        let deadline = monotonicNanoseconds() + 1_000_000_000
        while monotonicNanoseconds() < deadline {
            if let time = first.withLock({ $0 }) { return time }
            sched_yield()
        }
        return nil
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        if samples.count > 0, armed.withLock({ $0 }) {
            let now = monotonicNanoseconds()
            armed.withLock { $0 = false }
            first.withLock { $0 = now }
        }
        return try inner.write(samples)
    }

    var framesWritten: Int { inner.framesWritten }
    var framesPlayed: Int { inner.framesPlayed }
    func interrupt() { inner.interrupt() }
    func drop() { inner.drop() }
    func drain() throws { try inner.drain() }
    func close() throws { try inner.close() }
    var isRealTime: Bool { inner.isRealTime }
    var bufferFrames: Int { inner.bufferFrames }
}
