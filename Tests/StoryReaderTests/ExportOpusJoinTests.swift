import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// An Opus export made by several processes, each encoding its own share on its own core: one
/// Ogg stream that decodes to the WAV's length, with nothing heard where the shares meet.
@Suite(.serialized) struct ExportOpusJoinTests {
    @Test func sharesEncodedApartJoinWithoutAClick() throws {
        guard let ffmpeg = ExternalProcess.find("ffmpeg"), let opusinfo = ExternalProcess.find("opusinfo") else {
            print("Opus join test skipped: ffmpeg or opusinfo is not installed (scripts/setup.sh --test installs them)")
            return
        }
        let folder = try TemporaryFolder("opus-join")
        defer { folder.remove() }
        let story = "the-moon-who-lost-her-hum"  // no pictures: a caption cue for every narrated sentence
        let jobs = 3
        let opus = folder.url.appendingPathComponent("moon.opus")
        let wav = folder.url.appendingPathComponent("moon.wav")
        for (file, extra) in [(opus, ["--captions", "vtt"]), (wav, [])] {
            // The runs are cut before the workers start (not when they are ready), so the joins are
            // where ExportShares puts them.
            let result = try StoryReaderProcess.run(["export", story, "--to", file.path, "--jobs", "\(jobs)", "--fixed-shares", "--quiet"] + extra)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let info = try ExternalProcess.run(opusinfo, [opus.path], environment: ProcessInfo.processInfo.environment)
        #expect(
            info.status == 0 && !info.standardOutput.contains("WARNING") && !info.standardError.contains("WARNING"),
            "\(info.standardOutput)\(info.standardError)")
        #expect(info.standardOutput.components(separatedBy: "New logical stream").count == 2, "one logical stream")
        let decoded = folder.url.appendingPathComponent("decoded.wav")
        let decode = try ExternalProcess.run(
            ffmpeg, ["-v", "error", "-i", opus.path, "-ar", "22050", "-ac", "1", decoded.path],
            environment: ProcessInfo.processInfo.environment)
        #expect(decode.status == 0, "\(decode.standardError)")
        let samples = try WAVSamples.read(decoded.path)
        let reference = try WAVSamples.read(wav.path)
        #expect(abs(samples.count - reference.count) <= 441, "Opus \(samples.count) samples, WAV \(reference.count): more than 20 ms apart")

        // Where the shares meet: the first sentence of each worker's run, as the captions time it.
        let entry = try #require(SessionFixtures.library.entry(id: story))
        let narration = try Narration(story: try SessionFixtures.library.loadStory(entry))
        let runs = ExportShares.split(narration, jobs: jobs)
        #expect(runs.count == jobs)
        let vtt = try String(contentsOf: folder.url.appendingPathComponent("moon.vtt"), encoding: .utf8)
        let cues = vtt.split(separator: "\n").filter { $0.contains(" --> ") }.map { ExportCommandTests.milliseconds($0.split(separator: " ")[0]) }
        #expect(cues.count == narration.items.count)
        let joins = runs.dropFirst().map { cues[$0.lowerBound] * 22050 / 1000 }
        // The largest step from one sample to the next near each join (the join comes at or just
        // before its sentence's first word) is no larger than anywhere else in the file.
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
}
