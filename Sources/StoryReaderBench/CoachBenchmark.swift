import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import Synchronization

/// `storyreader bench coach`: the read-along coach on Debian's five LibriVox clips joined into one
/// reading (Tests/Fixtures/coach), fed in 0.1 s chunks as a microphone gives them. Prints the
/// real-time factor (decoding time over audio time) and the latency from a word's end to its
/// highlight: the audio still to come when the word was heard (the chunk's end minus the word's
/// end by the final hypothesis) plus the time the chunk took to decode. A word can be highlighted
/// before that end (a partial hypothesis ended it a little earlier than the final one does): its
/// latency is then negative and counted as it is, so the p50 can be below zero.
struct CoachBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: helpMessages.tr("Time the read-along coach on human reading: real-time factor, word end to highlight (p50, p90, max).")
    )

    @Option(help: ArgumentHelp(helpMessages.tr("The clips' folder (default: Tests/Fixtures/coach of the package).")))
    var clips: String?

    @Flag(help: ArgumentHelp(helpMessages.tr("Also print each word heard: its end, when it was highlighted, and the latency.")))
    var words = false

    func run() throws {
        guard let folder = clips ?? fixturesFolder() else { throw UserFailure(message: "no clips: use --clips DIR (Tests/Fixtures/coach)") }
        let names = ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-\($0).wav" }
        let text = try String(contentsOfFile: folder + "/sense-and-sensibility.txt", encoding: .utf8)
        let story = try StoryParser.parse(text: text, path: "sense-and-sensibility.txt").story
        let narration = try Narration(story: story)
        let sentences = narration.items.enumerated().map { CoachSentence(id: $0.offset, words: $0.element.words.map(\.text)) }
        let samples = try names.flatMap { try ListeningAudio.samples(wavFile: folder + "/" + $0) }

        // Each word heard, with the end of the chunk whose decoding heard it.
        let heardAt = Mutex<[CoachWord: Int]>([:])
        let chunkEnd = Mutex(0)
        let coach = try ReadingCoach(sentences: sentences) { event in
            if case .heard(let word, _, _) = event {
                let end = chunkEnd.withLock { $0 }
                heardAt.withLock { $0[word] = $0[word] ?? end }
            }
        }
        let chunk = ReadingCoach.sampleRate / 10
        var chunkMilliseconds: [Int: Double] = [:]
        var total: UInt64 = 0
        for start in stride(from: 0, to: samples.count, by: chunk) {
            let end = min(samples.count, start + chunk)
            chunkEnd.withLock { $0 = end * 1000 / ReadingCoach.sampleRate }
            let began = monotonicNanoseconds()
            coach.feed(Array(samples[start..<end]))
            coach.wait()
            let took = monotonicNanoseconds() - began
            total += took
            chunkMilliseconds[end * 1000 / ReadingCoach.sampleRate] = Double(took) / 1e6
        }
        let tally = coach.finish()
        let ends = coach.heardEnds()
        let timed = heardAt.withLock { $0 }.compactMap { word, at -> (word: CoachWord, end: Int, latency: Double)? in
            guard let end = ends[word] else { return nil }
            return (word, end, Double(at - end) + (chunkMilliseconds[at] ?? 0))
        }.sorted { ($0.word.sentence, $0.word.index) < ($1.word.sentence, $1.word.index) }
        let latencies = timed.map(\.latency)
        if words {
            for (word, end, latency) in timed {
                print("\(Sanitizer.sanitizeLine(word.text))\t\(end)\t" + String(format: "%.0f ms", latency))
            }
        }
        let audioSeconds = Double(samples.count) / Double(ReadingCoach.sampleRate)
        print(String(format: "audio %.2f s, decoded in %.3f s: real-time factor %.3f", audioSeconds, Double(total) / 1e9, Double(total) / 1e9 / audioSeconds))
        print("words \(sentences.flatMap(\.words).count): heard \(tally.read), helped \(tally.helped), skipped \(tally.skipped)")
        print(
            String(
                format: "word end → highlight (0.1 s chunks, %d words): p50 %.0f ms, p90 %.0f ms, max %.0f ms", latencies.count,
                Percentile.of(latencies, 0.5), Percentile.of(latencies, 0.9), latencies.max() ?? 0))
    }

    private func fixturesFolder() -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("Tests/Fixtures/coach")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
