import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// A read-along book's own voice (issue 29): a book made with `export --to X.epub` (eSpeak NG at a
/// voice and rate of its own, so its recording is told from a new synthesis), imported, and read
/// with `read --wav` / `read --events json`: what is heard is the recording, clip by clip.
@Suite(.serialized) struct RecordedNarrationTests {
    static let story = """
        ---
        title: Pip the Snail
        language: en
        ---

        # Pip goes out

        Pip the snail woke up early. The garden was wet and bright!

        She sniffed a buttercup. “Hello, flower,” said Pip.

        ---

        The sun came out, and Pip went home to sleep.
        """

    /// An imported read-along book: its data folder, and the folder its story is in.
    struct Book {
        let data: TemporaryFolder
        var stories: URL { URL(fileURLWithPath: data.path).appendingPathComponent("stories") }
        var clips: URL { stories.appendingPathComponent("pip-the-snail.clips") }
        var audio: URL { stories.appendingPathComponent("pip-the-snail.audio/1-book.mp3") }
    }

    func run(_ arguments: [String], _ data: TemporaryFolder) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, dataDirectory: data.path)
    }

    /// Exports the story as a read-along book (`overlay`: sentences or words) and imports it.
    func importedBook(overlay: String) throws -> Book {
        let data = try TemporaryFolder("narration")
        let source = URL(fileURLWithPath: data.path).appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Self.story.write(to: source.appendingPathComponent("pip-the-snail.md"), atomically: true, encoding: .utf8)
        let epub = data.path + "/pip.epub"
        let export = try run(
            [
                "export", "pip", "--stories", source.path, "--to", epub, "--overlay", overlay,
                "--voice", "en+f3", "--rate", "110", "--pitch", "70",
            ], data)
        #expect(export.status == 0, "\(export.standardError)")
        let imported = try run(["import", epub], data)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(!imported.standardError.contains("Media Overlays"), "the recording is kept, not refused: \(imported.standardError)")
        return Book(data: data)
    }

    func events(_ arguments: [String], _ book: Book) throws -> (events: [[String: Any]], errors: String) {
        let result = try run(["read", "pip-the-snail", "--no-audio", "--events", "json", "--from-start"] + arguments, book.data)
        #expect(result.status == 0, "\(result.standardError)")
        let events = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (events, result.standardError)
    }

    /// The recording decoded by the ffmpeg command to the WAV format of `read --wav`.
    func reference(_ audio: URL, _ folder: TemporaryFolder) throws -> [Int16] {
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "decoding the reference recording"))
        let wav = folder.path + "/reference.wav"
        let result = try ExternalProcess.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-i", audio.path, "-ar", "22050", "-ac", "1", "-c:a", "pcm_s16le",
                "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", wav,
            ], environment: [:])
        #expect(result.status == 0, "\(result.standardError)")
        return try WAVSamples.read(wav)
    }

    /// Re-encodes the book's recording with the ffmpeg command and points the clip list at it.
    func reencode(_ book: Book, to name: String, codec: [String]) throws {
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "re-encoding a recording"))
        let target = book.audio.deletingLastPathComponent().appendingPathComponent(name)
        let result = try ExternalProcess.run(ffmpeg, ["-v", "error", "-y", "-i", book.audio.path] + codec + [target.path], environment: [:])
        #expect(result.status == 0, "\(result.standardError)")
        let clips = try String(contentsOf: book.clips, encoding: .utf8)
        try clips.replacingOccurrences(of: "1-book.mp3", with: name).write(to: book.clips, atomically: true, encoding: .utf8)
    }

    /// The round trip: `read --wav` of the imported book is its recording — the same length
    /// within 2 % and the same loudness envelope — not a new synthesis (which is told apart by
    /// its length: the book was made at another rate).
    @Test func aReadAlongBookIsReadInItsOwnVoice() throws {
        let book = try importedBook(overlay: "words")
        defer { book.data.remove() }
        let reference = try reference(book.audio, book.data)
        // From sentence 2: the story's title, a heading the book's overlay does not narrate, is
        // read by eSpeak NG.
        let wav = book.data.path + "/heard.wav"
        let read = try run(["read", "pip-the-snail", "--wav", wav, "--from", "2"], book.data)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardError.isEmpty, "no notice, no FFmpeg chatter: \(read.standardError)")
        let heard = try WAVSamples.read(wav)
        let ratio = Double(heard.count) / Double(reference.count)
        print("recording \(reference.count) samples, heard \(heard.count): ratio \(String(format: "%.4f", ratio))")
        #expect(abs(ratio - 1) <= 0.02)
        let correlation = WAVSamples.loudnessCorrelation(heard, reference, window: 441)
        print("loudness envelope correlation with the recording: \(String(format: "%.3f", correlation))")
        #expect(correlation >= 0.95)

        let synthetic = book.data.path + "/synthetic.wav"
        let resynthesised = try run(["read", "pip-the-snail", "--wav", synthetic, "--from", "2", "--voice", "en"], book.data)
        #expect(resynthesised.status == 0, "\(resynthesised.standardError)")
        let other = try WAVSamples.read(synthetic)
        #expect(abs(Double(other.count) / Double(reference.count) - 1) > 0.05, "--voice reads with eSpeak NG: another length")
    }

    /// `read --events json`: every sentence the recording covers says `"source":"recording"` with
    /// its clip (file and times, in order, as the clip list says); the title it does not cover
    /// says `"synthesis"`; words come at their own clips' starts.
    @Test func eventsSayTheSourceAndTheClipTimes() throws {
        let book = try importedBook(overlay: "words")
        defer { book.data.remove() }
        let (events, errors) = try events([], book)
        #expect(errors.isEmpty, "\(errors)")
        let sentences = events.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.count == 7)
        #expect(sentences.first?["source"] as? String == "synthesis")
        let recorded = sentences.dropFirst()
        #expect(recorded.allSatisfy { $0["source"] as? String == "recording" && $0["audio"] as? String == "1-book.mp3" })
        let begins = recorded.compactMap { $0["clipBegin"] as? Int }
        let ends = recorded.compactMap { $0["clipEnd"] as? Int }
        #expect(begins.count == 6 && ends.count == 6)
        #expect(begins.first == 0)
        #expect(zip(begins, ends).allSatisfy { $0 < $1 })
        #expect(zip(ends, begins.dropFirst()).allSatisfy { $0 == $1 }, "each sentence's clip starts where the last ended")
        // The clip list's first word of the story's second sentence, and its time.
        let clipList = try String(contentsOf: book.clips, encoding: .utf8)
        let firstOfBlock3 = try #require(clipList.split(separator: "\n").first { $0.hasPrefix("3\t") })
        let begin = try #require(StoryRecording.clockValue(String(firstOfBlock3.split(separator: "\t")[3])))
        #expect(begins.dropFirst().first == begin)
        let words = events.filter { $0["type"] as? String == "word" && $0["source"] as? String == "recording" }
        #expect(words.count >= 20)
        // A word is heard when its clip starts, counted from its sentence's start.
        for (index, event) in events.enumerated() where event["type"] as? String == "sentence" && event["source"] as? String == "recording" {
            guard let sentenceMs = event["ms"] as? Int, let sentenceBegin = event["clipBegin"] as? Int else { continue }
            for word in events[(index + 1)...].prefix(while: { $0["type"] as? String == "word" }) {
                let wordMs = try #require(word["ms"] as? Int)
                let wordBegin = try #require(word["clipBegin"] as? Int)
                #expect(abs((wordMs - sentenceMs) - (wordBegin - sentenceBegin)) <= 1)
            }
        }
    }

    /// `export` of a story with a recording writes its recording (after its title, which the
    /// recording does not say); with --voice it is synthesised.
    @Test func exportWritesTheRecording() throws {
        let book = try importedBook(overlay: "words")
        defer { book.data.remove() }
        // What `read --wav` plays of the recording (shown to be the recording by the round trip),
        // from the first recorded sentence.
        let heardPath = book.data.path + "/heard.wav"
        let read = try run(["read", "pip-the-snail", "--wav", heardPath, "--from", "2"], book.data)
        #expect(read.status == 0, "\(read.standardError)")
        let reference = try WAVSamples.read(heardPath)
        let wav = book.data.path + "/exported.wav"
        let export = try run(["export", "pip-the-snail", "--to", wav], book.data)
        #expect(export.status == 0, "\(export.standardError)")
        let exported = try WAVSamples.read(wav)
        let extra = Double(exported.count - reference.count) / Double(SpeechAudioFormat.sampleRate)
        print("export: \(exported.count) samples, \(String(format: "%.2f", extra)) s more than the recording (the title)")
        #expect(extra > 0.3 && extra < 3)
        let tail = Array(exported.suffix(reference.count))
        #expect(WAVSamples.loudnessCorrelation(tail, reference, window: 441) >= 0.95)
        let synthetic = book.data.path + "/synthetic.wav"
        let voiced = try run(["export", "pip-the-snail", "--to", synthetic, "--voice", "en"], book.data)
        #expect(voiced.status == 0, "\(voiced.standardError)")
        let other = try WAVSamples.read(synthetic)
        #expect(WAVSamples.loudnessCorrelation(Array(other.suffix(reference.count)), reference, window: 441) < 0.8)
    }

    /// `show` says the story has a recording, how long it is and how much of the story it says;
    /// `show --json` the same as numbers.
    @Test func showSaysTheRecordingAndItsLength() throws {
        let book = try importedBook(overlay: "sentences")
        defer { book.data.remove() }
        let reference = try reference(book.audio, book.data)
        let shown = try run(["show", "pip-the-snail"], book.data)
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("Recording: "), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("6 sentences of 7 (the rest is read by eSpeak NG)"), "\(shown.standardOutput)")
        let json = try run(["show", "pip-the-snail", "--json"], book.data)
        let details = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let recording = try #require(details["recording"] as? [String: Any])
        #expect(recording["clips"] as? String == "pip-the-snail.clips")
        #expect(recording["sentences"] as? Int == 6 && recording["of"] as? Int == 7)
        let milliseconds = try #require(recording["milliseconds"] as? Int)
        let expected = reference.count * 1000 / SpeechAudioFormat.sampleRate
        #expect(abs(Double(milliseconds) / Double(expected) - 1) <= 0.02, "\(milliseconds) ms for \(expected) ms")
        // list --json tells too (twice: the second from the library's cache).
        for _ in 0..<2 {
            let list = try run(["list", "--json"], book.data)
            let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
            let listed = try #require(stories.first { $0["id"] as? String == "pip-the-snail" })
            #expect((listed["recording"] as? [String: Any])?["milliseconds"] as? Int == milliseconds)
            #expect(stories.filter { $0["recording"] != nil }.count == 1, "a story without a recording says none")
        }
    }

    /// A family's story file imported with its recording: the clip list and the audio it names
    /// are copied beside it (the audio file outside its folder is not, and is named), and the
    /// imported story plays the recording.
    @Test func importingAStoryFileKeepsItsRecording() throws {
        let book = try importedBook(overlay: "sentences")
        defer { book.data.remove() }
        let family = URL(fileURLWithPath: book.data.path).appendingPathComponent("family")
        try FileManager.default.createDirectory(at: family.appendingPathComponent("voices"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: book.audio, to: family.appendingPathComponent("voices/grandma.mp3"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: book.data.path).appendingPathComponent("outside.mp3"))
        // Its blocks as the imported book's (the title a heading of its own), so the clips fit.
        let story = Self.story.replacingOccurrences(of: "title: Pip the Snail", with: "title: Grandma Reads Pip\nrecording: grandma.clips")
            .replacingOccurrences(of: "# Pip goes out", with: "# Pip the Snail\n\n# Pip goes out")
        try story.write(to: family.appendingPathComponent("grandma-reads-pip.md"), atomically: true, encoding: .utf8)
        let clips = try String(contentsOf: book.clips, encoding: .utf8).replacingOccurrences(of: "pip-the-snail.audio/1-book.mp3", with: "voices/grandma.mp3")
        try (clips + "5\t*\t../outside.mp3\n").write(to: family.appendingPathComponent("grandma.clips"), atomically: true, encoding: .utf8)
        let imported = try run(["import", family.appendingPathComponent("grandma-reads-pip.md").path], book.data)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.contains("../outside.mp3: the recording is outside the story's folder"), "\(imported.standardError)")
        #expect(FileManager.default.fileExists(atPath: book.stories.appendingPathComponent("grandma.clips").path))
        #expect(FileManager.default.fileExists(atPath: book.stories.appendingPathComponent("voices/grandma.mp3").path))
        #expect(!FileManager.default.fileExists(atPath: book.stories.appendingPathComponent("outside.mp3").path))
        // A clip list naming a file outside is not used at all (said when read); without that line it plays.
        let refused = try run(["read", "grandma-reads-pip", "--no-audio", "--events", "json"], book.data)
        #expect(refused.standardError.contains("outside the story's folder"), "\(refused.standardError)")
        try clips.write(to: book.stories.appendingPathComponent("grandma.clips"), atomically: true, encoding: .utf8)
        let result = try run(["read", "grandma-reads-pip", "--no-audio", "--events", "json"], book.data)
        let sentences = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.filter { $0["source"] as? String == "recording" }.count == 6, "\(result.standardError)")
    }

    /// AAC in M4A, Ogg Opus and Ogg Vorbis re-encodes of the recording play the same: the same
    /// length within 2 %, and all from the recording.
    @Test(arguments: [
        ("book.m4a", ["-c:a", "aac", "-b:a", "64k"]), ("book.opus", ["-c:a", "libopus", "-b:a", "32k"]),
        ("book.ogg", ["-c:a", "libvorbis", "-q:a", "3"]),
    ])
    func everyFormatOfABookPlays(name: String, codec: [String]) throws {
        let book = try importedBook(overlay: "sentences")
        defer { book.data.remove() }
        let reference = try reference(book.audio, book.data)
        try reencode(book, to: name, codec: codec)
        let wav = book.data.path + "/heard.wav"
        let read = try run(["read", "pip-the-snail", "--wav", wav, "--from", "2"], book.data)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardError.isEmpty, "\(read.standardError)")
        let heard = try WAVSamples.read(wav)
        print("\(name): \(heard.count) samples for \(reference.count)")
        #expect(abs(Double(heard.count) / Double(reference.count) - 1) <= 0.02)
        #expect(WAVSamples.loudnessCorrelation(heard, reference, window: 441) >= 0.9)
        let (events, _) = try events([], book)
        #expect(events.filter { $0["type"] as? String == "sentence" && $0["source"] as? String == "recording" }.count == 6)
    }

    /// One broken clip (its file is not audio): that sentence is read by eSpeak NG, the others
    /// from the recording, and it is said once, naming the file — never silence.
    @Test func aBrokenClipIsReadByEspeakWithOneNotice() throws {
        let book = try importedBook(overlay: "words")
        defer { book.data.remove() }
        let broken = book.audio.deletingLastPathComponent().appendingPathComponent("broken.mp3")
        try Data("this is not a recording".utf8).write(to: broken)
        // Block 4 ("She sniffed a buttercup. …") is two sentences: both point at the broken file.
        let clips = try String(contentsOf: book.clips, encoding: .utf8).split(separator: "\n").map { line in
            line.hasPrefix("4\t") ? line.replacingOccurrences(of: "1-book.mp3", with: "broken.mp3") : String(line)
        }
        try (clips.joined(separator: "\n") + "\n").write(to: book.clips, atomically: true, encoding: .utf8)
        let (events, errors) = try events([], book)
        let sentences = events.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.map { $0["source"] as? String } == ["synthesis", "recording", "recording", "recording", "synthesis", "synthesis", "recording"])
        #expect(sentences.count == 7 && sentences[4]["text"] as? String == "She sniffed a buttercup.")
        let words = events.filter { $0["type"] as? String == "word" }.compactMap { $0["text"] as? String }
        #expect(words.contains("buttercup") && words.contains("flower"), "the broken sentences are still read")
        let notices = errors.split(separator: "\n")
        #expect(notices.count == 1, "\(errors)")
        #expect(notices.first?.contains("broken.mp3") == true)
        #expect(notices.first?.contains("eSpeak NG") == true)
    }

    /// Hostile clip lists: an audio file outside the story's folder is never opened, a line
    /// that cannot be read is named with its line and field; the story is still read, by eSpeak NG.
    @Test(arguments: [
        ("4\t*\t../../../etc/passwd", "outside the story's folder"),
        ("4\t*\t/etc/passwd", "outside the story's folder"),
        ("4\tzero-9\tpip-the-snail.audio/1-book.mp3", "line 2: the text range 'zero-9' cannot be read"),
        ("4\t*\tpip-the-snail.audio/1-book.mp3\t5s\t2s", "line 2: the end '2s' cannot be read"),
    ])
    func aHostileClipListIsRefusedByName(line: String, message: String) throws {
        let book = try importedBook(overlay: "sentences")
        defer { book.data.remove() }
        try "# a hand-made clip list\n\(line)\n".write(to: book.clips, atomically: true, encoding: .utf8)
        let (events, errors) = try events([], book)
        #expect(errors.contains("pip-the-snail.clips") || errors.contains("passwd"), "\(errors)")
        #expect(errors.contains(message), "\(errors)")
        let sentences = events.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.count == 7)
        #expect(sentences.allSatisfy { $0["source"] as? String == "synthesis" })
    }

    /// A family's own recording: a Markdown story whose clip list names a whole file for a
    /// paragraph of two sentences: both are heard from it, sharing it by their length.
    @Test func aFamilyRecordsAParagraph() throws {
        let book = try importedBook(overlay: "sentences")
        defer { book.data.remove() }
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "cutting a family's recording"))
        let family = book.stories.appendingPathComponent("grandma-reads.ogg")
        // Two seconds of the book's recording, as if Grandma read paragraph 3 (two sentences).
        let cut = try ExternalProcess.run(ffmpeg, ["-v", "error", "-y", "-i", book.audio.path, "-t", "2", "-c:a", "libvorbis", family.path], environment: [:])
        #expect(cut.status == 0, "\(cut.standardError)")
        try "3 * grandma-reads.ogg\n".write(to: book.clips, atomically: true, encoding: .utf8)
        let (events, errors) = try events([], book)
        #expect(errors.isEmpty, "\(errors)")
        let sentences = events.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.map { $0["source"] as? String } == ["synthesis", "synthesis", "recording", "recording", "synthesis", "synthesis", "synthesis"])
        let recorded = sentences.filter { $0["source"] as? String == "recording" }
        #expect(recorded.count == 2)
        #expect(recorded.first?["clipBegin"] as? Int == 0)
        let end = try #require(recorded.last?["clipEnd"] as? Int)
        #expect(abs(end - 2000) <= 30, "the paragraph's clip is the whole file: \(end) ms")
        #expect(recorded.first?["clipEnd"] as? Int == recorded.last?["clipBegin"] as? Int)
    }
}
