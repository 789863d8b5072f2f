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
        let tally = "You read \(heard.count) words all by yourself."
        #expect(result.standardError.contains(tally), "\(result.standardError)")
        // Printed and spoken: the tally is all the speech says (no word needed help).
        #expect(try String(contentsOfFile: speechLog, encoding: .utf8) == "start message: \(tally)\n")
        try Self.expectNothingOfTheVoiceKept(dataDirectory: dataDirectory, temporary: temporary)
    }

    /// Nothing of the voice is kept: no audio file in the data folder, nothing in the temporary
    /// one but libpulse's empty runtime folder (`pulse-…`, made as eSpeak NG starts, which the
    /// spoken tally needs; no sound goes there).
    static func expectNothingOfTheVoiceKept(dataDirectory: String, temporary: URL) throws {
        let kept = (FileManager.default.enumerator(atPath: dataDirectory)?.allObjects as? [String]) ?? []
        #expect(!kept.contains { $0.hasSuffix(".wav") || $0.hasSuffix(".raw") }, "\(kept)")
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
        let input = try Self.stuckReading(in: data, named: "stuck.wav")
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
        // Without the events, what is said is shown: the word helped with is a caption line.
        let captions = try StoryReaderProcess.run(
            ["read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", input, "--no-audio"],
            dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(captions.status == 0, "\(captions.standardError)")
        #expect(captions.standardOutput == "to\n", "\(captions.standardOutput)")
    }

    /// A child whose "Coach waits" is 5 s (`profile add --coach-wait 5`) is given no help in the
    /// stuck reading's 4 s of silence; `--coach-wait 2` for one run still helps. Each coached read is
    /// kept for the child and shown by `history` apart from the finished reads (none: the story was
    /// not read to its end).
    @Test func theChildsOwnWaitIsTakenAndEachCoachedReadIsKeptForThem() throws {
        let data = try TemporaryFolder("coach-cli-child")
        try data.write(
            "stories/sense-and-sensibility.txt", try String(contentsOf: Self.folder.appendingPathComponent("sense-and-sensibility.txt"), encoding: .utf8))
        let input = try Self.stuckReading(in: data, named: "stuck.wav")
        let dataDirectory = data.url.appendingPathComponent("data").path
        let added = try StoryReaderProcess.run(["profile", "add", "--name", "Mia", "--age", "7", "--coach-wait", "5"], dataDirectory: dataDirectory)
        #expect(added.status == 0, "\(added.standardError)")
        func coached(_ extra: [String]) throws -> [[String: Any]] {
            let result = try StoryReaderProcess.run(
                [
                    "read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", input,
                    "--events", "json", "--no-audio", "--profile", "Mia",
                ] + extra, dataDirectory: dataDirectory)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let patient = try coached([])
        #expect(patient.filter { $0["type"] as? String == "help" }.isEmpty, "4 s of silence is less than Mia's 5 s")
        let heard = patient.filter { $0["type"] as? String == "heard" }.count
        #expect(heard >= 6)
        let quick = try coached(["--coach-wait", "2"])
        #expect(quick.filter { $0["type"] as? String == "help" }.compactMap { $0["word"] as? String }.first == "to")
        let helped = quick.filter { $0["type"] as? String == "help" }.count

        let history = try StoryReaderProcess.run(
            ["history", "--profile", "Mia", "--stories", data.url.appendingPathComponent("stories").path], dataDirectory: dataDirectory)
        #expect(history.status == 0, "\(history.standardError)")
        let lines = history.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Mia has not finished a story yet.", "\(history.standardOutput)")
        let apart = try #require(lines.firstIndex(of: "Read aloud with the coach:"), "\(history.standardOutput)")
        let rows = lines[(apart + 1)...].filter { $0.contains("  Mia  Sense and Sensibility, chapter 1 (five clips)  read ") }
        #expect(rows.count == 2, "\(history.standardOutput)")
        #expect(rows.contains { $0.hasSuffix("read \(heard) words alone, helped with 0") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix(", helped with \(helped)") }, "\(rows)")
        let json = try StoryReaderProcess.run(["history", "--profile", "Mia", "--json"], dataDirectory: dataDirectory)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let tallies = entries.compactMap { $0["coached"] as? [String: Int] }
        #expect(tallies.count == 2 && tallies.contains { $0["read"] == heard && $0["helped"] == 0 }, "\(json.standardOutput)")
    }

    /// "And Mr. John Dashwood had then leisure", then 4 s of silence, as a file in `data` (the
    /// test's input, outside the data folder): a WAV, or raw samples for a microphone (`.raw`).
    static func stuckReading(in data: TemporaryFolder, named name: String) throws -> String {
        let path = data.url.appendingPathComponent(name).path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [Self.folder.appendingPathComponent(ReadingClips.names[0]).path, path, "trim", "0", "2.5", "pad", "0", "4"]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        return path
    }

    /// The microphone through ALSA (its `file` plugin giving the stuck reading, then silence, as
    /// a capture device), named by --mic or by $STORYREADER_MIC_DEVICE: the words read are
    /// followed, the next word is said for the child after the silence (and every word after it,
    /// the microphone staying silent), and nothing of the voice is written anywhere. This is the
    /// reader with `r` pressed (one listening loop, the REPL's): the story's title and "Your turn"
    /// are said first, the tally last, and the events are the same JSON lines.
    @Test(arguments: [true, false]) func followsTheMicrophone(namedByOption: Bool) throws {
        let data = try TemporaryFolder("coach-mic")
        try data.write(
            "stories/sense-and-sensibility.txt",
            try String(contentsOf: Self.folder.appendingPathComponent("sense-and-sensibility.txt"), encoding: .utf8))
        let microphone = try ALSATestMicrophone(in: data, rawPath: try Self.stuckReading(in: data, named: "stuck.raw"))
        let temporary = data.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: data.url.path))
        let speechLog = data.url.appendingPathComponent("speech.log").path
        var environment = microphone.environment.merging(["TMPDIR": temporary.path, "STORYREADER_SPEECH_LOG": speechLog]) { $1 }
        var arguments = [
            "read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--events", "json",
            "--no-audio",
        ]
        if namedByOption { arguments += ["--mic", ALSATestMicrophone.name] } else { environment["STORYREADER_MIC_DEVICE"] = ALSATestMicrophone.name }
        let dataDirectory = data.url.appendingPathComponent("data").path
        let result = try StoryReaderProcess.run(arguments, environment: environment, dataDirectory: dataDirectory, timeout: 300)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let heard = lines.filter { $0["type"] as? String == "heard" }.compactMap { $0["word"] as? String }
        #expect(heard == ["And", "Mr", "John", "Dashwood", "had", "then", "leisure"], "\(result.standardOutput)")
        let helps = lines.filter { $0["type"] as? String == "help" }.compactMap { $0["word"] as? String }
        #expect(helps.prefix(2) == ["to", "consider"], "\(helps)")
        let tally = "You read \(heard.count) words by yourself, and I helped with \(helps.count)."
        #expect(result.standardError.contains(tally), "\(result.standardError)")
        let spoken = try String(contentsOfFile: speechLog, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("start ") }.map(String.init)
        #expect(
            spoken.prefix(4) == [
                "start message: Reading Sense and Sensibility, chapter 1 (five clips).", "start message: Your turn: read it to me.", "start message: to",
                "start message: consider",
            ], "\(spoken)")
        #expect(spoken.last == "start message: \(tally)", "\(spoken)")
        #expect(!spoken.contains { $0.hasPrefix("start story") }, "the story's voice stays quiet: \(spoken)")
        // Nothing of the voice is kept: the test's folder holds only what it held and the log.
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: data.url.path))
        #expect(after.subtracting(before) == ["speech.log", "data"] || after.subtracting(before) == ["speech.log"], "\(after.subtracting(before))")
        try Self.expectNothingOfTheVoiceKept(dataDirectory: dataDirectory, temporary: temporary)
    }

    /// When the coach cannot coach (no microphone; a story not in English) it is said once, in the
    /// speech and on the screen, in the interface's language, and the story is read as without
    /// --coach (a missing microphone is found as the reader hands the story to the child: after
    /// "Your turn", before the story's voice).
    @Test(arguments: [
        (
            "Title: The Fox\nLanguage: en\n\nThe fox ran home.\n", ["The Fox", "--mic", "no-such-microphone"],
            "No microphone: 'no-such-microphone' cannot be opened", "The fox ran home."
        ),
        (
            "Title: Étoile\nLanguage: fr\n\nLa petite étoile brille.\n", ["Étoile", "--lang", "fr"],
            "L'accompagnement de lecture n'existe qu'en anglais pour l'instant : « Étoile » n'est pas en anglais", "La petite étoile brille."
        ),
    ])
    func whatCannotBeCoachedIsSaidOnceAndRead(story: String, arguments: [String], notice: String, text: String) throws {
        let data = try TemporaryFolder("coach-cli-uncoached")
        try data.write("stories/story.txt", story)
        let speechLog = data.url.appendingPathComponent("speech.log").path
        let result = try StoryReaderProcess.run(
            ["read"] + arguments + ["--stories", data.url.appendingPathComponent("stories").path, "--coach", "--no-audio"],
            environment: ["STORYREADER_SPEECH_LOG": speechLog], dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(notice), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(text), "\(result.standardOutput)")
        let spoken = try String(contentsOfFile: speechLog, encoding: .utf8).split(separator: "\n").map(String.init)
        let said = try #require(spoken.firstIndex { $0.hasPrefix("start message: \(notice)") }, "\(spoken)")
        #expect(spoken.filter { $0.hasPrefix("start message: \(notice)") }.count == 1, "\(spoken)")
        let story = try #require(spoken.firstIndex(of: "start story: \(arguments[0])"), "\(spoken)")
        #expect(said < story)
    }

    /// For scripts' events, a story not in English: said on standard error, and the story's
    /// events as without --coach.
    @Test func aStoryInAnotherLanguageGivesItsEventsAsWithoutTheCoach() throws {
        let data = try TemporaryFolder("coach-cli-fr")
        try data.write("stories/etoile.txt", "Title: Étoile\nLanguage: fr\n\nLa petite étoile brille.\n")
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
