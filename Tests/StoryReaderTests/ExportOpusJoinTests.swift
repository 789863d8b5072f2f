import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// An Opus export made by several processes, each encoding its own share on its own core: one
/// Ogg stream that decodes to the WAV's length, with nothing heard where the shares meet.
@Suite(.serialized) struct ExportOpusJoinTests {
    @Test func sharesEncodedApartJoinWithoutAClick() throws {
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "decoding the joined Opus file"))
        let opusinfo = try #require(RequiredTool.find("opusinfo", package: "opus-tools", for: "reading the joined Opus file's pages"))
        let folder = try TemporaryFolder("opus-join")
        defer { folder.remove() }
        let story = "the-moon-who-lost-her-hum"  // no pictures: a caption cue for every narrated sentence
        let jobs = 3
        let opus = folder.url.appendingPathComponent("moon.opus")
        let wav = folder.url.appendingPathComponent("moon.wav")
        try ExportJoinCheck.export(story, jobs: jobs, to: opus, wav: wav)
        let info = try ExternalProcess.run(opusinfo, [opus.path], environment: ProcessInfo.processInfo.environment)
        #expect(
            info.status == 0 && !info.standardOutput.contains("WARNING") && !info.standardError.contains("WARNING"),
            "\(info.standardOutput)\(info.standardError)")
        #expect(info.standardOutput.components(separatedBy: "New logical stream").count == 2, "one logical stream")
        let samples = try ExportJoinCheck.decode(opus, ffmpeg: ffmpeg, into: folder)
        let joins = try ExportJoinCheck.joins(story, jobs: jobs, captionsOf: opus)
        ExportJoinCheck.expectNoClick(samples, reference: try WAVSamples.read(wav.path), joins: joins, format: "Opus")
    }
}
