import Foundation
import StoryKitTestSupport
import Testing

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
        var pages = 0
        var kinds: Set<String> = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let type = try #require(object["type"] as? String)
            let ms = try #require(object["ms"] as? Int)
            #expect(ms >= lastMilliseconds, "time goes forward: \(line)")
            lastMilliseconds = ms
            guard type != "end" else { continue }
            if type == "page" {
                // A page change carries the page, not a place in the text.
                let page = try #require(object["page"] as? Int)
                #expect(page > 1 && page <= (object["of"] as? Int ?? 0), "\(line)")
                pages += 1
                continue
            }
            if type == "sentence" {
                kinds.insert(try #require(object["kind"] as? String, "every sentence says what kind of text it is: \(line)"))
            }
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
        #expect(pages == story.pages.count - 1, "every page after the first is announced")
        #expect(kinds.isSuperset(of: ["story", "heading"]) || kinds.isSuperset(of: ["story", "picture"]), "\(kinds)")
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

    /// The device path through an ALSA `file` PCM the test defines: the device hears the story as
    /// `--wav` writes it, between the spoken "Reading …" and "The end." (the reader's own words).
    /// eSpeak NG's output after other speech differs by a few units per sample, so the story is
    /// found by its first sound and compared by its loudness every 50 ms.
    @Test func readingPlaysOnTheALSADeviceItIsGiven() throws {
        let folder = try TemporaryFolder("read-alsa")
        defer { folder.remove() }
        let device = try ALSATestDevice(in: folder)
        let environment = device.environment
        let played = try StoryReaderProcess.run(["read", "the-snail-who-wanted-to-race", "--device", "storytest"], environment: environment)
        #expect(played.status == 0, "\(played.standardError)")
        #expect(!played.standardError.contains("cannot open"), "\(played.standardError)")
        let captions = played.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(captions.prefix(2)) == ["Reading The Snail Who Wanted to Race.", "Shelby the snail wanted to race."], "captions without a terminal")
        #expect(captions.last == "The end.")
        let wav = folder.url.appendingPathComponent("snail.wav").path
        #expect(try StoryReaderProcess.run(["read", "the-snail-who-wanted-to-race", "--wav", wav]).status == 0)
        let heard = try device.samples()
        let story = try WAVSamples.read(wav)
        let firstSound = try #require(story.firstIndex { $0 != 0 })
        let opening = Array(story[firstSound..<(firstSound + 1000)])
        let found = try #require(
            heard.indices.dropLast(1000).first { heard[$0] == opening[0] && Array(heard[$0..<($0 + 1000)]) == opening },
            "the story's first sound reaches the device")
        let start = found - firstSound
        #expect(start > 22050 / 2, "“Reading …” is heard first")
        // All of the story but its last tenth of a second (the device's last period may be cut
        // when the program closes it on a loaded machine).
        let compared = min(story.count, heard.count - start)
        #expect(compared > story.count - 2205, "the whole story reaches the device: \(compared) of \(story.count) samples")
        let correlation = WAVSamples.loudnessCorrelation(Array(story.prefix(compared)), Array(heard[start..<(start + compared)]), window: 1102)
        #expect(correlation > 0.95, "the story as --wav writes it: \(correlation)")
        // The environment variable names the device too.
        let byEnvironment = try StoryReaderProcess.run(
            ["read", "pip-and-the-puddle", "--from", "42"],
            environment: environment.merging(["STORYREADER_AUDIO_DEVICE": "storytest"]) { $1 })
        #expect(byEnvironment.status == 0 && !byEnvironment.standardError.contains("cannot open"), "\(byEnvironment.standardError)")
    }

    @Test func aMissingDeviceFallsBackToSilenceWithOneNotice() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--from", "43", "--device", "no-such-device"])
        #expect(result.status == 0)
        let notices = result.standardError.components(separatedBy: "cannot open audio device 'no-such-device'").count - 1
        #expect(notices == 1, "\(result.standardError)")
        // The captions: where reading starts, the last sentence once, and the end.
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Reading Pip and the Puddle, from page 6 of 6."), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("Tomorrow, thought Pip") }.count == 1, "\(lines)")
        #expect(lines.last == "The end.")
    }

    @Test func aLanguageWithoutAVoiceFallsBackWithANotice() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--no-audio", "--voice", "zz", "--from", "43"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("no voice for language 'zz'"), "\(result.standardError)")
    }

    @Test func storiesThatHurtDoNotCrashAndEmptyOnesSaySo() throws {
        let folder = try TemporaryFolder("read-bad")
        defer { folder.remove() }
        try folder.write(
            "bad.txt", "Title: Bad\nLanguage: en\n\nHere \(String(repeating: "s's", count: 300)) and \(String(repeating: "ab", count: 2000)) end.\n")
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
