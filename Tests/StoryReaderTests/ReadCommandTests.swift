import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

/// `storyreader read` and `storyreader voices`, run as a user would.
@Suite struct ReadCommandTests {
    func bundledStory(_ id: String) throws -> Story {
        let file = TestPaths.stories.appendingPathComponent("\(id).md")
        return try StoryParser.parse(contentsOf: file, path: file.path).story
    }

    @Test func eventsJSONPointsIntoTheStoryTextInOrder() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--no-audio", "--events", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let story = try bundledStory("pip-and-the-puddle")
        let lines = result.standardOutput.split(separator: "\n")
        var words = 0
        var lastMilliseconds = 0
        var lastWordStart = -1
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let type = try #require(object["type"] as? String)
            let ms = try #require(object["ms"] as? Int)
            #expect(ms >= lastMilliseconds, "time goes forward: \(line)")
            lastMilliseconds = ms
            guard type != "end" else { continue }
            let start = try #require(object["start"] as? Int)
            let end = try #require(object["end"] as? Int)
            let text = try #require(object["text"] as? String)
            #expect(story.text.scalars(in: TextRange(start: start, end: end)) == text, "\(line)")
            if type == "word" {
                #expect(start > lastWordStart, "words in order: \(line)")
                lastWordStart = start
                words += 1
            }
        }
        #expect(words == story.words.count)
        #expect(lines.last.map(String.init) == "{\"type\":\"end\",\"ms\":\(lastMilliseconds)}")
    }

    @Test(arguments: [
        (["--rate", "500"], "80 to 450"), (["--rate", "79"], "80 to 450"), (["--pitch=101"], "0 to 100"),
        (["--volume=-1"], "0 to 200"), (["--volume", "201"], "0 to 200"), (["--from", "0"], "numbered from 1"),
    ])
    func outOfRangeValuesExitWithTwoAndTheRange(arguments: [String], range: String) throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--no-audio"] + arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(range), "\(result.standardError)")
    }

    @Test func wavExportWritesTheWholeStory() throws {
        let folder = try TemporaryFolder("read-wav")
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("snail.wav").path
        let result = try StoryReaderProcess.run(["read", "the-snail-who-wanted-to-race", "--wav", path])
        #expect(result.status == 0, "\(result.standardError)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count > 44 + 22050 * 2 * 10, "at least ten seconds of speech")
        #expect(Array(data.prefix(44)) == WAVFileSink.header(dataBytes: data.count - 44))
        #expect(result.standardOutput.isEmpty)
    }

    /// The device path through an ALSA `file` PCM the test defines: what reaches the "device" is
    /// byte for byte what `--wav` writes.
    @Test func readingPlaysOnTheALSADeviceItIsGiven() throws {
        let folder = try TemporaryFolder("read-alsa")
        defer { folder.remove() }
        let raw = folder.url.appendingPathComponent("device.raw").path
        let config = try folder.write("asound.conf", "pcm.storytest {\n type file\n slave.pcm \"null\"\n file \"\(raw)\"\n format \"raw\"\n}\n")
        let system = "/usr/share/alsa/alsa.conf"
        let environment = ["ALSA_CONFIG_PATH": FileManager.default.fileExists(atPath: system) ? "\(system):\(config.path)" : config.path]
        let played = try StoryReaderProcess.run(["read", "the-snail-who-wanted-to-race", "--device", "storytest"], environment: environment)
        #expect(played.status == 0, "\(played.standardError)")
        #expect(!played.standardError.contains("cannot open"), "\(played.standardError)")
        #expect(played.standardOutput.hasPrefix("Shelby the snail wanted to race."), "captions without a terminal")
        let wav = folder.url.appendingPathComponent("snail.wav").path
        #expect(try StoryReaderProcess.run(["read", "the-snail-who-wanted-to-race", "--wav", wav]).status == 0)
        let device = try Data(contentsOf: URL(fileURLWithPath: raw))
        let file = try Data(contentsOf: URL(fileURLWithPath: wav)).dropFirst(44)
        #expect(device.count == file.count)
        #expect(device == Data(file))
        // The environment variable names the device too.
        let byEnvironment = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--from", "42"],
            environment: environment.merging(["STORYREADER_AUDIO_DEVICE": "storytest"]) { $1 })
        #expect(byEnvironment.status == 0 && !byEnvironment.standardError.contains("cannot open"), "\(byEnvironment.standardError)")
    }

    @Test func aMissingDeviceFallsBackToSilenceWithOneNotice() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--from", "43", "--device", "no-such-device"])
        #expect(result.status == 0)
        let notices = result.standardError.components(separatedBy: "cannot open audio device 'no-such-device'").count - 1
        #expect(notices == 1, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").count == 1, "the last sentence, as a caption")
    }

    @Test func aLanguageWithoutAVoiceFallsBackWithANotice() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--no-audio", "--voice", "zz", "--from", "43"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("no voice for language 'zz'"), "\(result.standardError)")
    }

    @Test func storiesThatHurtDoNotCrashAndEmptyOnesSaySo() throws {
        let folder = try TemporaryFolder("read-bad")
        defer { folder.remove() }
        try folder.write("bad.txt", "Title: Bad\nLanguage: en\n\nHere \(String(repeating: "s's", count: 300)) and \(String(repeating: "ab", count: 2000)) end.\n")
        try folder.write("empty.txt", "Title: Empty\nLanguage: en\n\n— … —\n")
        let bad = try StoryReaderProcess.run(["read", "--stories", folder.path, "bad", "--no-audio"])
        #expect(bad.status == 0, "\(bad.standardError)")
        let empty = try StoryReaderProcess.run(["read", "--stories", folder.path, "empty", "--no-audio"])
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("nothing to read aloud"), "\(empty.standardError)")
    }

    @Test func voicesListsLanguagesAndVariants() throws {
        let text = try StoryReaderProcess.run(["voices"])
        #expect(text.status == 0)
        for name in ["en ", "fr ", "de ", "es ", "f3 "] { #expect(text.standardOutput.contains("  \(name)"), "\(name)") }
        let json = try StoryReaderProcess.run(["voices", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(((object["languages"] as? [Any])?.count ?? 0) > 50)
        #expect(((object["variants"] as? [Any])?.count ?? 0) > 10)
    }
}
