import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import Synchronization

/// `storyreader bench recording`: how soon a recorded narration is heard after a key: the time
/// from asking the speech service to read a sentence (a key's `narrate`) to the first sample of
/// its clip reaching the sink, on an MP3 recording made here (each sentence a clip of its own,
/// at places all through the file, so every start seeks).
struct RecordingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording",
        abstract: helpMessages.tr("Time from a key to the first sample of a recorded narration (p50, p99), on a generated MP3.")
    )

    @Option(help: ArgumentHelp(helpMessages.tr("Timed starts (each at another sentence).")))
    var runs = 200

    @Option(help: ArgumentHelp(helpMessages.tr("Minutes of generated recording.")))
    var minutes = 10

    /// Takes every sample at once and remembers when the first came.
    final class FirstSampleSink: PCMSink {
        private let state = Mutex<(written: Int, first: ContinuousClock.Instant?)>((0, nil))
        func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
            state.withLock { state in
                if state.first == nil, !samples.isEmpty { state.first = .now }
                state.written += samples.count
            }
            return true
        }
        var framesWritten: Int { state.withLock { $0.written } }
        var framesPlayed: Int { framesWritten }
        func interrupt() {}
        func drop() {}
        func drain() throws {}
        func close() throws {}
        var isRealTime: Bool { false }
        var bufferFrames: Int { 0 }
        func reset() { state.withLock { $0.first = nil } }
        var first: ContinuousClock.Instant? { state.withLock { $0.first } }
    }

    func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-recording-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // A tone whose pitch wanders, as MP3 at the export's bit rate: one sentence a second.
        let seconds = max(1, minutes) * 60
        let audio = root.appendingPathComponent("narration.mp3").path
        let encoder = try MP3FileSink(path: audio, tags: AudioTags(title: "Bench", language: "en"))
        let rate = SpeechAudioFormat.sampleRate
        var phase = 0.0
        var chunk = [Int16](repeating: 0, count: rate)
        for second in 0..<seconds {
            for index in chunk.indices {
                phase += 2 * Double.pi * (180 + Double((second * 37 + index / 2205) % 200)) / Double(rate)
                chunk[index] = Int16(8000 * sin(phase))
            }
            try chunk.withUnsafeBufferPointer { _ = try encoder.write($0) }
        }
        try encoder.close()
        let text = (0..<seconds).map { "Sentence number \($0 + 1) of the bench is read from its clip." }.joined(separator: " ")
        let story = try StoryParser.parse(text: "---\ntitle: Bench\n---\n\n" + text, path: root.appendingPathComponent("bench.md").path).story
        let narration = try Narration(story: story)
        let recording = NarrationRecording(
            sentences: narration.items.indices.map {
                NarrationRecording.Sentence(audio: audio, begin: $0 * 1000, end: $0 * 1000 + 1000)
            })
        let sink = FirstSampleSink()
        let service = SpeechService(sink: sink) { _ in }
        var latencies: [Double] = []
        var generator = SplitMix(seed: 29)
        for _ in 0..<runs {
            let sentence = Int(generator.next() % UInt64(narration.items.count))
            sink.reset()
            let asked = ContinuousClock.now
            service.send(
                .narrate(
                    SpeechService.StoryRequest(
                        narration: narration, sentence: sentence, settings: SpeechSettings(voice: "en"),
                        recording: recording)))
            while sink.first == nil { usleep(50) }
            latencies.append(Double((sink.first! - asked).components.attoseconds) / 1e15 + Double((sink.first! - asked).components.seconds) * 1000)
            service.send(.stop)
            service.flush()
        }
        print(
            "recording benchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, a \(minutes)-minute MP3, \(narration.items.count) one-second clips, \(runs) starts"
        )
        print(
            String(
                format: "key → first recorded sample: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                Percentile.of(latencies, 0.5), Percentile.of(latencies, 0.99), latencies.max() ?? 0))
    }
}
