import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// What the join tests of the encoders share: a story exported by several processes (each share
/// encoded on its own core) and as a WAV, where the shares meet, and whether a click is heard there.
enum ExportJoinCheck {
    /// Exports `story` to `file` (with VTT captions) and to `wav`, both with `jobs` processes whose
    /// runs are cut before the workers start (`--fixed-shares`), so that the joins are where
    /// ExportShares puts them.
    static func export(_ story: String, jobs: Int, to file: URL, wav: URL) throws {
        for (target, extra) in [(file, ["--captions", "vtt"]), (wav, [])] {
            let result = try StoryReaderProcess.run(["export", story, "--to", target.path, "--jobs", "\(jobs)", "--fixed-shares", "--quiet"] + extra)
            #expect(result.status == 0, "\(result.standardError)")
        }
    }

    /// Where the shares meet, in samples: the first sentence of each worker's run, as the captions
    /// beside `file` time it.
    static func joins(_ story: String, jobs: Int, captionsOf file: URL) throws -> [Int] {
        let entry = try #require(SessionFixtures.library.entry(id: story))
        let narration = try Narration(story: try SessionFixtures.library.loadStory(entry))
        // As --fixed-shares cuts them: from the first sentence, the export's own run the shorter.
        let runs = ExportShares.split(
            narration, sentences: 0..<narration.items.count, jobs: jobs, firstShare: ExportWorkers.Team.exportsShare)
        #expect(runs.count == jobs)
        let vtt = try String(contentsOf: file.deletingPathExtension().appendingPathExtension("vtt"), encoding: .utf8)
        let cues = vtt.split(separator: "\n").filter { $0.contains(" --> ") }.map { ExportCommandTests.milliseconds($0.split(separator: " ")[0]) }
        #expect(cues.count == narration.items.count)
        return runs.dropFirst().map { cues[$0.lowerBound] * 22050 / 1000 }
    }

    /// The decoded file is the WAV's length within 20 ms, and the largest step from one sample to
    /// the next near each join (the join comes at or just before its sentence's first word) is no
    /// larger than anywhere else in the file.
    static func expectNoClick(_ samples: [Int16], reference: [Int16], joins: [Int], format: String) {
        #expect(abs(samples.count - reference.count) <= 441, "\(format) \(samples.count) samples, WAV \(reference.count): more than 20 ms apart")
        func largestStep(_ range: Range<Int>) -> Int {
            let range = max(1, range.lowerBound)..<min(samples.count, range.upperBound)
            return range.map { abs(Int(samples[$0]) - Int(samples[$0 - 1])) }.max() ?? 0
        }
        let windows = joins.map { ($0 - 2205)..<($0 + 441) }  // 100 ms before, 20 ms after
        var elsewhere = 0
        var start = 1
        for window in windows.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            elsewhere = max(elsewhere, largestStep(start..<window.lowerBound))
            start = window.upperBound
        }
        elsewhere = max(elsewhere, largestStep(start..<samples.count))
        for (join, window) in zip(joins, windows) {
            let near = largestStep(window)
            #expect(near <= elsewhere, "a step of \(near) near the join at \(join) samples, at most \(elsewhere) elsewhere")
        }
        #expect(elsewhere > 1000, "the decoded file has speech in it")
    }

    /// `file` decoded by FFmpeg at the speech's rate, mono, in a WAV with no tags (its header the
    /// 44 bytes `WAVSamples` reads past: FFmpeg's LIST chunk was read as 17 samples).
    static func decode(_ file: URL, ffmpeg: URL, into folder: TemporaryFolder) throws -> [Int16] {
        let decoded = folder.url.appendingPathComponent("decoded.wav")
        let decode = try ExternalProcess.run(
            ffmpeg, ["-v", "error", "-y", "-i", file.path, "-ar", "22050", "-ac", "1", "-map_metadata", "-1", "-bitexact", decoded.path],
            environment: ProcessInfo.processInfo.environment)
        #expect(decode.status == 0, "\(decode.standardError)")
        return try WAVSamples.read(decoded.path)
    }
}
