import ArgumentParser
import CEspeak
import Foundation
import StoryKit

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
        guard FirstSampleProbe.initialize() else {
            throw UserFailure(message: "eSpeak NG could not start: install espeak-ng-data")
        }
        var session = Session(catalog: StoryCatalog(library: library),
                              snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Bench", age: 6, interests: ["animals", "space"])]),
                              profile: "Bench")
        _ = session.start()
        var queue = AnnouncementQueue()
        var decoder = KeyDecoder()
        var toFirstSample: [Double] = []
        var toQueue: [Double] = []
        let down = Array("\u{1B}[B".utf8), up = Array("\u{1B}[A".utf8)
        var goingDown = true
        for _ in 0..<keys + 50 {
            let start = DispatchTime.now().uptimeNanoseconds
            var started: Utterance?
            for key in decoder.feed(goingDown ? down : up) {
                for effect in session.handle(.key(key)) {
                    guard case .speak(let utterance) = effect else { continue }
                    for command in queue.submit(utterance) {
                        if case .start(let next) = command { started = next }
                    }
                }
            }
            guard let utterance = started else { continue }
            let queued = DispatchTime.now().uptimeNanoseconds
            let first = FirstSampleProbe.firstSample(of: utterance.text)
            _ = queue.finished()
            if utterance.text == "End of screen." { goingDown = false }
            if utterance.text == "Top." { goingDown = true }
            toQueue.append(Double(queued - start) / 1_000_000)
            toFirstSample.append(Double(first - start) / 1_000_000)
        }
        toQueue.removeFirst(50)
        toFirstSample.removeFirst(50)
        print("repl benchmark: \(toFirstSample.count) key presses (Down/Up through a library of \(library.entries.count) stories), eSpeak NG synchronous")
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

/// Synthesises with eSpeak NG until the first samples arrive, then stops (the callback returns 1).
/// Until the speech issue's engine is wired, the benchmark calls the library directly.
enum FirstSampleProbe {
    nonisolated(unsafe) static var firstSampleTime: UInt64 = 0

    static func initialize() -> Bool {
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { return false }
        espeak_SetSynthCallback { wav, count, _ in
            if wav != nil, count > 0, FirstSampleProbe.firstSampleTime == 0 {
                FirstSampleProbe.firstSampleTime = DispatchTime.now().uptimeNanoseconds
                return 1
            }
            return FirstSampleProbe.firstSampleTime == 0 ? 0 : 1
        }
        return espeak_SetVoiceByName("en") == EE_OK
    }

    /// The time the first samples of `text` came out.
    static func firstSample(of text: String) -> UInt64 {
        firstSampleTime = 0
        let flags = UInt32(espeakCHARS_UTF8) | UInt32(espeakENDPAUSE)
        _ = text.withCString { pointer in
            espeak_Synth(pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0, flags, nil, nil)
        }
        return firstSampleTime == 0 ? DispatchTime.now().uptimeNanoseconds : firstSampleTime
    }
}
