import ArgumentParser
import Foundation
import StoryKit
import StoryReader
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
        // The REPL's real path: session → the speech service (its announcement queue, the speech
        // thread, eSpeak NG) → the sink, here paced silence (a device's timing, no device).
        let firstSamples = FirstSamples()
        let speech = ServiceSpeech(sink: PacedSilenceSink(), onFirstSamples: firstSamples.record)
        speech.interfaceSettings = { SpeechSettings(voice: "en") }
        speech.prepareVoices(["en"])
        var session = Session(
            catalog: StoryCatalog(library: library),
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Bench", age: 6, interests: ["animals", "space"])]),
            profile: "Bench")
        _ = session.start()
        var decoder = KeyDecoder()
        var toFirstSample: [Double] = []
        var turns: [Double] = []
        let down = Array("\u{1B}[B".utf8)
        let up = Array("\u{1B}[A".utf8)
        var goingDown = true
        var input = 0
        for _ in 0..<keys + 50 {
            let start = ContinuousClock.now
            var said: Utterance?
            for key in decoder.feed(goingDown ? down : up) {
                input += 1
                for effect in session.handle(.key(key)) {
                    guard case .speak(var utterance) = effect else { continue }
                    // As the shell does: stamped with its key, it cuts what the last key is saying.
                    utterance.input = input
                    speech.say(utterance, settings: nil)
                    said = utterance
                }
            }
            turns.append(milliseconds(start.duration(to: .now)))
            guard let said, let first = firstSamples.wait(for: said) else { continue }
            _ = speech.tick(now: monotonicNanoseconds())
            if said.text == "End of screen." { goingDown = false }
            if said.text == "Top." { goingDown = true }
            toFirstSample.append(milliseconds(start.duration(to: first)))
            // A key every 30 ms or so, as a quick hand on the arrows.
            usleep(20_000)
        }
        toFirstSample.removeFirst(min(50, toFirstSample.count))
        turns.removeFirst(min(50, turns.count))
        print(
            "repl benchmark: \(toFirstSample.count) key presses (Down/Up through a library of \(library.entries.count) stories), the REPL's speech path: Session → speech service → eSpeak NG → sink"
        )
        print(
            String(
                format: "key → first PCM sample:     p50 %.3f ms  p99 %.3f ms  (aim: p50 ≤ 1 ms, p99 ≤ 5 ms)",
                Percentile.of(toFirstSample, 0.5), Percentile.of(toFirstSample, 0.99)))
        try readingKeys(library, turns: &turns)
        print(
            String(
                format: "longest loop turn (a key decoded, handled and its effects handed over): %.3f ms; p99 %.3f ms",
                turns.max() ?? 0, Percentile.of(turns, 0.99)))
        try signalToExit(library)
    }

    /// SIGTERM while a story is read aloud (paced silence: a device's timing) → the process gone,
    /// its place saved: what a systemd stop or a shutdown waits for.
    private func signalToExit(_ library: StoryLibrary) throws {
        guard let entry = library.entries.max(by: { $0.sentences < $1.sentences }) else { return }
        let executable = BundledStories.sibling("storyreader")
        var times: [Double] = []
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("storyreader-bench-signal-\(getpid())")
        defer { try? FileManager.default.removeItem(at: data) }
        for _ in 0..<10 {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--device", "no-such-device", "--data-dir", data.path] + global.storyFolders.flatMap { ["--stories", $0] }
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("read \(entry.id)\n".utf8))
            usleep(1_500_000)
            let start = ContinuousClock.now
            process.terminate()
            process.waitUntilExit()
            times.append(milliseconds(start.duration(to: .now)))
        }
        print("SIGTERM while reading “\(entry.title)” (paced silence) → exit, place saved: \(times.count) runs")
        print(
            String(
                format: "SIGTERM → exit:             p50 %.1f ms  max %.1f ms  (aim: under 1,000 ms)",
                Percentile.of(times, 0.5), times.max() ?? 0))
    }

    /// While a story is read: → (next sentence) from its bytes to the first PCM sample of that
    /// sentence, through the one reader (Session → narrate effect → speech service → eSpeak NG →
    /// sink), as the shell performs it for the REPL, the kiosk and `read`.
    private func readingKeys(_ library: StoryLibrary, turns: inout [Double]) throws {
        guard let entry = library.entries.max(by: { $0.sentences < $1.sentences }) else { return }
        let sink = FirstWriteSink(PacedSilenceSink())
        let speech = ServiceSpeech(sink: sink)
        speech.prepareVoices([entry.language])
        var session = Session(
            catalog: StoryCatalog(library: library),
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Bench", age: 6)]), profile: "Bench")
        _ = session.start()
        var input = 0
        func perform(_ effects: [Effect]) {
            for effect in effects {
                guard case .narrate = effect else { continue }
                // From the cut on, samples are the new sentence's.
                sink.arm()
                _ = speech.perform(narration: effect, of: session, input: input)
            }
        }
        perform(session.handle(.command(.read(entry.id))))
        var decoder = KeyDecoder()
        let right = Array("\u{1B}[C".utf8)
        let home = Array("\u{1B}[H".utf8)
        var times: [Double] = []
        let presses = min(keys, 300)
        for _ in 0..<presses + 10 {
            let atEnd = (session.state.reader?.sentence ?? 0) >= entry.sentences - 2
            let start = ContinuousClock.now
            for key in decoder.feed(atEnd ? home : right) {
                input += 1
                perform(session.handle(.key(key)))
            }
            turns.append(milliseconds(start.duration(to: .now)))
            guard let first = sink.waitForFirstWrite() else { continue }
            times.append(milliseconds(start.duration(to: first)))
            for event in speech.tick(now: monotonicNanoseconds()) { perform(session.handle(.narration(event))) }
            usleep(30_000)
        }
        speech.silence()
        times.removeFirst(min(10, times.count))
        print("reading keys: \(times.count) presses of → (next sentence) while reading “\(entry.title)”: Session → speech service → eSpeak NG → sink")
        print(
            String(
                format: "key → first PCM sample:     p50 %.3f ms  p99 %.3f ms  (aim: p50 ≤ 3 ms)",
                Percentile.of(times, 0.5), Percentile.of(times, 0.99)))
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) * 1e-15
    }
}

/// When each utterance's first samples reached the sink.
final class FirstSamples: Sendable {
    private let times = Mutex<[Utterance: ContinuousClock.Instant]>([:])
    func record(_ utterance: Utterance, _ time: ContinuousClock.Instant) { times.withLock { $0[utterance] = time } }

    /// The time `utterance`'s first samples came, waiting for them (up to a second; nil: never).
    func wait(for utterance: Utterance) -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        while ContinuousClock.now < deadline {
            if let time = times.withLock({ $0.removeValue(forKey: utterance) }) { return time }
            sched_yield()
        }
        return nil
    }
}

/// A sink that notes when the first samples after `arm()` and the cut that follows it arrive,
/// and passes everything on.
final class FirstWriteSink: PCMSink {
    private enum Watch {
        case idle, waitingForCut, waitingForWrite
        case wrote(ContinuousClock.Instant)
    }
    private let inner: any PCMSink
    private let watch = Mutex(Watch.idle)

    init(_ inner: any PCMSink) { self.inner = inner }

    func arm() { watch.withLock { $0 = .waitingForCut } }

    /// When the first samples came after `arm()`, waiting up to a second for them.
    func waitForFirstWrite() -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        while ContinuousClock.now < deadline {
            if case .wrote(let time) = watch.withLock({ $0 }) { return time }
            sched_yield()
        }
        return nil
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        if samples.count > 0 {
            let now = ContinuousClock.now
            watch.withLock { if case .waitingForWrite = $0 { $0 = .wrote(now) } }
        }
        return try inner.write(samples)
    }

    var framesWritten: Int { inner.framesWritten }
    var framesPlayed: Int { inner.framesPlayed }
    func interrupt() { inner.interrupt() }
    func drop() {
        watch.withLock { if case .waitingForCut = $0 { $0 = .waitingForWrite } }
        inner.drop()
    }
    func drain() throws { try inner.drain() }
    func close() throws { try inner.close() }
    var isRealTime: Bool { inner.isRealTime }
    var bufferFrames: Int { inner.bufferFrames }
}
