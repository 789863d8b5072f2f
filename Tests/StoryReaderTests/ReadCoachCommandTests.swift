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
        let result = try StoryReaderProcess.run(
            [
                "read", "Sense and Sensibility", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", input,
                "--events", "json", "--no-audio",
            ], environment: ["TMPDIR": temporary.path], dataDirectory: dataDirectory)
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
        #expect(result.standardError.contains("You read \(heard.count) words by yourself, and I helped with 0."), "\(result.standardError)")
        // Nothing of the voice is kept: no audio file in the data folder, nothing in the temporary one.
        let kept = (FileManager.default.enumerator(atPath: dataDirectory)?.allObjects as? [String]) ?? []
        #expect(!kept.contains { $0.hasSuffix(".wav") || $0.hasSuffix(".raw") }, "\(kept)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test func aStoryInAnotherLanguageIsSaidToBeEnglishOnly() throws {
        let data = try TemporaryFolder("coach-cli-fr")
        try data.write("stories/etoile.txt", "Title: Étoile\nLanguage: fr\n\nLa petite étoile brille.\n")
        let result = try StoryReaderProcess.run(
            ["read", "Étoile", "--stories", data.url.appendingPathComponent("stories").path, "--coach", "--listen", "/nonexistent.wav"],
            dataDirectory: data.url.appendingPathComponent("data").path)
        #expect(result.status != 0)
        #expect(result.standardError.contains("English-only"), "\(result.standardError)")
    }
}

/// The five clips' file names, in reading order.
enum ReadingClips {
    static let names = ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-\($0).wav" }
}
