import ArgumentParser
import Foundation
import StoryKit
import Synchronization

/// `storyreader bench repl`: from a key's bytes arriving to the first PCM sample of the newly
/// focused element's speech (decode → Session.handle → announcement queue → eSpeak NG synthesis).
struct ReplBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Time a key press to the first PCM sample of the focused element's speech (p50, p99)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "Key presses to time.")
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
        print(String(format: "key → speech queued:        p50 %.3f ms  p99 %.3f ms", percentile(toQueue, 0.5), percentile(toQueue, 0.99)))
        print(String(format: "key → first PCM sample:     p50 %.3f ms  p99 %.3f ms  (aim: p50 ≤ 5 ms, p99 ≤ 15 ms)",
                     percentile(toFirstSample, 0.5), percentile(toFirstSample, 0.99)))
    }

    private func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
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
