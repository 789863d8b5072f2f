import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `storyreader read STORY --coach --listen FILE.wav --events json` (issue 45, item 7), run as a
/// script runs it on Debian's five LibriVox clips joined into one reading (Tests/Fixtures/coach).
@Suite(.serialized) struct ReadCoachCommandTests {
    static let folder = TestPaths.fixtures.appendingPathComponent("coach")

    @Test func printsOneLinePerWordHeardAndTheTally() throws {
        let data = try TemporaryFolder("coach-cli")
        let storyFile = Self.folder.appendingPathComponent("sense-and-sensibility.txt")
        let storyText = try String(contentsOf: storyFile, encoding: .utf8)
        try data.write("stories/sense-and-sensibility.txt", storyText)
        // The clips joined by sox: the test's input, kept outside the data folder.
        let input = data.url.appendingPathComponent("reading.wav").path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = ReadingClips.names.map { Self.folder.appendingPathComponent($0).path } + [input]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        let dataDirectory = data.url.appendingPathComponent("data").path
        // A temporary folder of the run's own, to see that nothing is written there either.
        let temporary = data.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let speechLog = data.url.appendingPathComponent("speech.log").path
        let result = try StoryReaderProcess.run(
            [
                "read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", input,
                "--events", "json", "--no-audio",
            ], environment: ["TMPDIR": temporary.path, "STORYREADER_SPEECH_LOG": speechLog], dataDirectory: dataDirectory)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let heard = lines.filter { $0["type"] as? String == "heard" }
        let story = try StoryParser.parse(text: storyText, path: "s.txt").story
        #expect(Double(heard.count) >= 0.95 * Double(story.words.count), "\(heard.count) of \(story.words.count)")
        // Each word is named as written, at its offsets in the story's plain text, in the audio's time.
        let scalars = Array(story.text.unicodeScalars)
        for line in heard {
            let start = try #require(line["start"] as? Int)
            let end = try #require(line["end"] as? Int)
            #expect(String(String.UnicodeScalarView(scalars[start..<end])) == line["word"] as? String)
            let ms = try #require(line["ms"] as? Int)
            let endMs = try #require(line["end_ms"] as? Int)
            #expect(ms < endMs && endMs <= 25_000)
        }
        let coached = try #require(lines.last)
        #expect(coached["type"] as? String == "coached")
        #expect(coached["read"] as? Int == heard.count)
        let tally = "You read \(heard.count) words by yourself, and I helped with 0."
        #expect(result.standardError.contains(tally), "\(result.standardError)")
        // Printed and spoken: the tally is all the speech says (no word needed help).
        #expect(try String(contentsOfFile: speechLog, encoding: .utf8) == "start message: \(tally)\n")
        // Nothing of the voice is kept: no audio file in the data folder, nothing in the temporary one.
        let kept = (FileManager.default.enumerator(atPath: dataDirectory)?.allObjects as? [String]) ?? []
        #expect(!kept.contains { $0.hasSuffix(".wav") || $0.hasSuffix(".raw") }, "\(kept)")
        // Only libpulse's empty runtime folder (`pulse-…`, made as eSpeak NG starts, which the
        // spoken tally needs; no sound goes there) may be left.
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter {
            let folder = temporary.appendingPathComponent($0).path
            return !($0.hasPrefix("pulse-") && (try? FileManager.default.contentsOfDirectory(atPath: folder).isEmpty) == true)
        }
        #expect(left.isEmpty, "\(left)")
    }

    /// The reader stops after "leisure" and says nothing more for 4 s: the next word, "to", is said
    /// for them in the story's voice, and the tally counts it, spoken and printed.
    @Test func theHelpWordAndTheTallyAreSpoken() throws {
        let data = try TemporaryFolder("coach-cli-help")
        try data.write(
            "stories/sense-and-sensibility.txt", try String(contentsOf: Self.folder.appendingPathComponent("sense-and-sensibility.txt"), encoding: .utf8))
        // "And Mr. John Dashwood had then leisure", then silence.
        let input = data.url.appendingPathComponent("stuck.wav").path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [Self.folder.appendingPathComponent(ReadingClips.names[0]).path, input, "trim", "0", "2.5", "pad", "0", "4"]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        let speechLog = data.url.appendingPathComponent("speech.log").path
        let result = try StoryReaderProcess.run(
            [
                "read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", input,
                "--events", "json", "--no-audio",
            ], environment: ["STORYREADER_SPEECH_LOG": speechLog], dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(result.status == 0, "\(result.standardError)")
        let helps = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "help" }
        #expect(helps.map { $0["word"] as? String } == ["to"], "\(result.standardOutput)")
        let heard = result.standardOutput.components(separatedBy: "\"type\":\"heard\"").count - 1
        let tally = "You read \(heard) words by yourself, and I helped with 1."
        #expect(result.standardError.contains(tally), "\(result.standardError)")
        let spoken = try String(contentsOfFile: speechLog, encoding: .utf8).split(separator: "\n")
        #expect(spoken.map(String.init) == ["start message: to", "runs en[to]", "start message: \(tally)"], "\(spoken)")
    }

    /// A story the coach cannot follow is read as without --coach, once it is said (in the
    /// interface's language) that coaching is English-only for now.
    @Test func aStoryInAnotherLanguageIsSaidToBeEnglishOnlyAndRead() throws {
        let data = try TemporaryFolder("coach-cli-fr")
        try data.write("stories/etoile.txt", "Title: Étoile\nLanguage: fr\n\nLa petite étoile brille.\n")
        let speechLog = data.url.appendingPathComponent("speech.log").path
        let result = try StoryReaderProcess.run(
            ["read", "Étoile", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--no-audio", "--lang", "fr"],
            environment: ["STORYREADER_SPEECH_LOG": speechLog], dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(result.status == 0, "\(result.standardError)")
        let notice = "L'accompagnement de lecture n'existe qu'en anglais pour l'instant : « Étoile » n'est pas en anglais"
        #expect(result.standardOutput.contains(notice), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("La petite étoile brille."), "\(result.standardOutput)")
        let spoken = try String(contentsOfFile: speechLog, encoding: .utf8)
        #expect(spoken.hasPrefix("start message: \(notice)\n"), "\(spoken)")
        #expect(spoken.contains("start story: Étoile"), "\(spoken)")
        // Scripts' events: said on standard error, and the story's events as without --coach.
        let events = try StoryReaderProcess.run(
            [
                "read", "Étoile", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", "/nonexistent.wav",
                "--events", "json", "--no-audio",
            ], dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(events.status == 0, "\(events.standardError)")
        #expect(events.standardError.contains("English-only"), "\(events.standardError)")
        #expect(events.standardOutput.contains(#"{"type":"word","text":"étoile""#), "\(events.standardOutput)")
    }
}

/// The five clips' file names, in reading order.
enum ReadingClips {
    static let names = ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-\($0).wav" }
}
