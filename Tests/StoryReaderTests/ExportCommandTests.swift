import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `storyreader export`: a story to a WAV file with captions timed from the speech itself.
@Suite(.serialized) struct ExportCommandTests {
    /// The story's words (not the pictures' descriptions) and their times as `read --events json` prints them.
    static func events(_ story: String) throws -> [(text: String, ms: Int)] {
        let result = try StoryReaderProcess.run(["read", story, "--events", "json", "--no-audio"])
        #expect(result.status == 0, "\(result.standardError)")
        var inPicture = false
        return result.standardOutput.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            if object["type"] as? String == "sentence" { inPicture = object["kind"] as? String == "picture" }
            guard !inPicture, object["type"] as? String == "word", let text = object["text"] as? String, let ms = object["ms"] as? Int else { return nil }
            return (text, ms)
        }
    }

    static func milliseconds(_ stamp: Substring) -> Int {
        let parts = stamp.split(whereSeparator: { $0 == ":" || $0 == "." || $0 == "," }).compactMap { Int($0) }
        return parts.count == 4 ? ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1000 + parts[3] : -1
    }

    /// --profile reads with the child's voice settings: Sam's slow speech (100 words a minute)
    /// makes the file longer than the story defaults' do; --rate still wins over the profile.
    @Test func aProfilesVoiceSettingsAreTheExportsVoice() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let store = try fixture.openStore()
        var settings = ReadingSettings.default
        settings.speech = SpeechSettings(rate: 100, pitch: 80, volume: 100, voice: "en+f3")
        try store.addProfile(ChildProfile(name: "Sam", age: 7, settings: settings), authorization: try store.authorize(pin: nil))
        func seconds(_ extra: [String]) throws -> Double {
            let wav = fixture.folder.url.appendingPathComponent("fox-\(extra.joined()).wav")
            let result = try StoryReaderProcess.run(
                ["export", "tiny fox", "--stories", fixture.stories, "--to", wav.path, "--quiet"] + extra, dataDirectory: fixture.data)
            #expect(result.status == 0, "\(result.standardError)")
            return Double(try WAVSamples.read(wav.path).count) / 22050
        }
        let plain = try seconds([])
        let sam = try seconds(["--profile", "Sam"])
        let quick = try seconds(["--profile", "Sam", "--rate", "300"])
        #expect(sam > plain * 1.4, "\(sam) s with Sam's 100 words a minute against \(plain) s")
        #expect(quick < plain, "\(quick) s at 300 words a minute")
        let unknown = try StoryReaderProcess.run(
            ["export", "tiny fox", "--stories", fixture.stories, "--to", fixture.folder.url.appendingPathComponent("x.wav").path, "--profile", "Nobody"],
            dataDirectory: fixture.data)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("Nobody"), "\(unknown.standardError)")
    }

    @Test func aStoryWithWebVTTCaptionsTimedAsItIsRead() throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let wav = folder.url.appendingPathComponent("pip.wav")
        let result = try StoryReaderProcess.run(["export", "Pip and the Puddle", "--to", wav.path, "--captions", "vtt", "--jobs", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("Exported “Pip and the Puddle”:"))
        let samples = try WAVSamples.read(wav.path)
        let seconds = Double(samples.count) / 22050
        let vtt = try String(contentsOf: folder.url.appendingPathComponent("pip.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        // Every word, in order, at the time the reading itself reports (to the millisecond).
        let expected = try Self.events("Pip and the Puddle")
        let words = Self.captionWords(vtt)
        #expect(words.count == expected.count, "\(words.count) words captioned, \(expected.count) read")
        for (got, want) in zip(words, expected) {
            #expect(got.text == want.text.replacingOccurrences(of: "&", with: "&amp;"))
            #expect(abs(got.ms - want.ms) <= 1, "\(got.text): \(got.ms) ms against \(want.ms) ms")
        }
        #expect(Double(words.last?.ms ?? 0) / 1000 < seconds, "the last word starts within the audio")
        // Picture descriptions are their own track.
        let descriptions = try String(contentsOf: folder.url.appendingPathComponent("pip.descriptions.vtt"), encoding: .utf8)
        let url = TestPaths.stories.appendingPathComponent("pip-and-the-puddle.md")
        let story = try StoryParser.parse(contentsOf: url, path: url.path).story
        let pictures = story.pages.flatMap(\.blocks).filter { if case .picture = $0.kind { true } else { false } }
        #expect(!pictures.isEmpty)
        for picture in pictures { #expect(descriptions.contains(picture.text.prefix(20)), "«\(picture.text)»") }
        for picture in pictures { #expect(!vtt.contains(picture.text.prefix(20)), "a description in the story's captions") }
    }

    /// Opus read back by opus-tools: the same length as the WAV (within 20 ms), tagged, a tenth of the size.
    @Test func opusIsTaggedAndAsLongAsTheWAV() throws {
        guard let opusinfo = RequiredTool.find("opusinfo", package: "opus-tools", for: "the Opus export check") else { return }
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let opus = folder.url.appendingPathComponent("pip.opus")
        let wav = folder.url.appendingPathComponent("pip.wav")
        #expect(try StoryReaderProcess.run(["export", "pip", "--to", opus.path]).status == 0)
        #expect(try StoryReaderProcess.run(["export", "pip", "--to", wav.path]).status == 0)
        let info = try ExternalProcess.run(opusinfo, [opus.path], environment: ProcessInfo.processInfo.environment)
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains("TITLE=Pip and the Puddle"))
        #expect(info.standardOutput.contains("ALBUM=Magical Stories"))
        #expect(info.standardOutput.contains("LANGUAGE=en"))
        let length = try #require(info.standardOutput.firstMatch(of: /Playback length: (\d+)m:(\d+\.\d+)s/))
        let opusSeconds = Double(length.1)! * 60 + Double(length.2)!
        let wavSeconds = Double(try WAVSamples.read(wav.path).count) / 22050
        #expect(abs(opusSeconds - wavSeconds) <= 0.020, "Opus \(opusSeconds) s, WAV \(wavSeconds) s")
        let opusSize = try #require(try FileManager.default.attributesOfItem(atPath: opus.path)[.size] as? Int)
        let wavSize = try #require(try FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int)
        #expect(opusSize * 10 < wavSize, "\(opusSize) bytes of Opus against \(wavSize) of WAV")
        let bad = try StoryReaderProcess.run(["export", "pip", "--to", opus.path, "--force", "--bitrate", "2"])
        #expect(bad.status == 2 && bad.standardError.contains("--bitrate 2 is out of range"))
    }

    /// MP3 read back by ffprobe: its ID3v2 tags, and its length within 0.1 s of the WAV's (the
    /// encoder's delay and padding).
    @Test func mp3IsTaggedAndAsLongAsTheWAV() throws {
        guard let ffprobe = RequiredTool.find("ffprobe", package: "ffmpeg", for: "the MP3 export check") else { return }
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let mp3 = folder.url.appendingPathComponent("pip.mp3")
        let result = try StoryReaderProcess.run(["export", "pip", "--to", mp3.path])
        #expect(result.status == 0, "\(result.standardError)")
        let probe = try ExternalProcess.run(
            ffprobe, ["-v", "error", "-show_entries", "format=duration:format_tags", "-of", "default=nw=1", mp3.path],
            environment: ProcessInfo.processInfo.environment)
        #expect(probe.status == 0, "\(probe.standardError)")
        #expect(probe.standardOutput.contains("TAG:title=Pip and the Puddle"))
        #expect(probe.standardOutput.contains("TAG:album=Magical Stories"))
        #expect(probe.standardOutput.contains("TAG:language=eng"), "ID3's TLAN is ISO 639-2")
        let duration = try #require(probe.standardOutput.firstMatch(of: /duration=(\d+\.\d+)/).flatMap { Double($0.1) })
        let wav = folder.url.appendingPathComponent("pip.wav")
        #expect(try StoryReaderProcess.run(["export", "pip", "--to", wav.path]).status == 0)
        let wavSeconds = Double(try WAVSamples.read(wav.path).count) / 22050
        #expect(abs(duration - wavSeconds) <= 0.1, "MP3 \(duration) s, WAV \(wavSeconds) s")
    }

    /// Two worker processes, joined, on three stories (one with pictures, one Spanish, one of
    /// 4,043 words): the same words in the same order as one process, every word and the whole
    /// within 150 ms. Not byte for byte: eSpeak NG carries state from every sentence it has said
    /// into the next ones within a process, so a worker that starts in the middle makes some of
    /// its sentences a few milliseconds longer or shorter (measured on The Cat That Walked by
    /// Himself: 24 of the second half's 85 sentences, by 1 to 58 ms, 122 ms in all). A warm-up
    /// with the 1, 5 or 30 sentences before a worker's run still differs; with all of them the
    /// file is the same byte for byte — which is the serial run's cost again.
    @Test(arguments: [("the-lighthouse-cat", false), ("68-el-gato-con-botas", true), ("17-the-cat-that-walked-by-himself", true)])
    func twoJobsSayTheSameWordsAtTheSameTimes(story: String, inCorpus: Bool) throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        var stories: [String] = []
        if inCorpus {
            stories = ["--stories", TestPaths.corpus.path]
        }
        func export(_ jobs: Int) throws -> (words: [(text: String, ms: Int)], seconds: Double) {
            let wav = folder.url.appendingPathComponent("jobs\(jobs).wav")
            let result = try StoryReaderProcess.run(["export"] + stories + [story, "--to", wav.path, "--jobs", "\(jobs)", "--captions", "vtt", "--quiet"])
            #expect(result.status == 0, "\(result.standardError)")
            let vtt = try String(contentsOf: folder.url.appendingPathComponent("jobs\(jobs).vtt"), encoding: .utf8)
            return (Self.captionWords(vtt), Double(try WAVSamples.read(wav.path).count) / 22050)
        }
        let one = try export(1)
        let two = try export(2)
        #expect(one.words.count > 500)
        #expect(one.words.map(\.text) == two.words.map(\.text))
        let worst = zip(one.words, two.words).map { abs($0.ms - $1.ms) }.max() ?? 0
        #expect(worst <= 150, "a word moved \(worst) ms")
        #expect(abs(one.seconds - two.seconds) <= 0.150, "\(one.seconds) s against \(two.seconds) s")
        // The first run, said by the export itself, is the single process's, to the millisecond.
        let half = one.words.count / 3
        #expect(zip(one.words.prefix(half), two.words.prefix(half)).allSatisfy { $0.ms == $1.ms })
    }

    /// The words of a WebVTT file with their times (a cue's start for its first word).
    static func captionWords(_ vtt: String) -> [(text: String, ms: Int)] {
        var words: [(text: String, ms: Int)] = []
        for block in vtt.components(separatedBy: "\n\n").dropFirst() {
            let lines = block.split(separator: "\n")
            guard lines.count >= 3 else { continue }
            var time = milliseconds(lines[1].split(separator: " ")[0])
            for piece in lines[2].split(separator: " ") {
                var token = Substring(piece)
                if token.hasPrefix("<"), let close = token.firstIndex(of: ">") {
                    time = milliseconds(token[token.index(after: token.startIndex)..<close])
                    token = token[token.index(after: close)...]
                }
                words.append((String(token), time))
            }
        }
        return words
    }

    @Test func srtAndLrcForSeveralStoriesIntoAFolder() throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let out = folder.url.appendingPathComponent("audio")
        for format in ["srt", "lrc"] {
            let result = try StoryReaderProcess.run(["export", "pip", "tiny", "--to", out.path, "--captions", format, "--force", "--quiet"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.isEmpty, "--quiet")
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(files.contains("pip-and-the-puddle.wav") && files.contains("pip-and-the-puddle.\(format)"), "\(files)")
        }
        let srt = try String(contentsOf: out.appendingPathComponent("pip-and-the-puddle.srt"), encoding: .utf8)
        let cue = try #require(srt.components(separatedBy: "\n\n").first?.split(separator: "\n"))
        #expect(cue[0] == "1")
        #expect(cue[1].wholeMatch(of: /\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d/) != nil)
        let lrc = try String(contentsOf: out.appendingPathComponent("pip-and-the-puddle.lrc"), encoding: .utf8)
        #expect(lrc.hasPrefix("[ti:Pip and the Puddle]\n"))
        for line in lrc.split(separator: "\n").dropFirst() {
            #expect(line.prefixMatch(of: /\[\d\d:\d\d\.\d\d\]<\d\d:\d\d\.\d\d>/) != nil, "«\(line)»")
        }
    }

    @Test func badRequestsGetOneClearMessageAndWriteNothing() throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let existing = try folder.write("taken.wav", "mine")
        let cases: [([String], Int32, String)] = [
            (["export", "pip", "--to", existing.path], 1, "already exists: give --force to replace it"),
            (["export", "pip", "--to", folder.url.appendingPathComponent("x.ogg").path], 2, ".ogg is not a format this build writes"),
            (["export", "pip", "--to", "x.wav", "--format", "flac"], 2, "--format flac is not a format this build writes: use wav, opus, mp3 or epub"),
            (["export", "pip", "--to", "x.epub", "--overlay", "pages"], 2, "--overlay pages is not one a book takes: use sentences or words"),
            (["export", "pip", "tiny", "--one-file", "--to", folder.url.path], 1, "is a folder; name the file to write"),
            (["export", "pip", "--to", "x.wav", "--captions", "ass"], 2, "--captions ass is not a caption format: use vtt, srt or lrc"),
            (["export", "no such story at all", "--to", folder.url.appendingPathComponent("y.wav").path], 1, "no story"),
            (["export", "pip", "--to", "/proc/nope.wav"], 1, "cannot write /proc/nope.wav"),
            (["export", "pip", "--to", "z.wav", "--rate", "9"], 2, "--rate 9 is out of range"),
        ]
        for (arguments, status, message) in cases {
            let result = try StoryReaderProcess.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
        #expect(try String(contentsOf: existing, encoding: .utf8) == "mine", "nothing lost")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["taken.wav"])
    }

    /// SIGTERM in the middle of a long story, made by two workers and the export itself (--jobs 3): no file at the target, no part
    /// left behind, no worker left running.
    @Test func aStoppedExportLeavesNoFile() throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let corpus = TestPaths.corpus
        let wav = folder.url.appendingPathComponent("cat.wav")
        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["export", "--stories", corpus.path, "The Cat That Walked by Himself", "--to", wav.path, "--jobs", "3"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Long enough to be synthesising (the workers run), far too short to finish.
        let workers = ProcessTree.waitForChildren(of: process, running: "export-worker", count: 2)
        #expect(workers.count == 2)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
        Thread.sleep(forTimeInterval: 0.3)
        for worker in workers { #expect(!ProcessTree.commandLine(worker).contains("export-worker"), "worker \(worker) still runs") }
    }

    /// SIGKILL gives the export no time to clean up (issue 33): its Opus workers, which write
    /// nothing until their share is encoded, end with it rather than running on as orphans, and
    /// the hidden part it left is taken away by the next export into its folder, to another file
    /// (issue 43: only one to the same file took it).
    @Test func aKilledExportLeavesNoWorkerAndTheNextExportTakesItsPartAway() throws {
        let folder = try TemporaryFolder("export")
        defer { folder.remove() }
        let opus = folder.url.appendingPathComponent("cat.opus")
        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["export", "--stories", TestPaths.corpus.path, "The Cat That Walked by Himself", "--to", opus.path, "--jobs", "3"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let workers = ProcessTree.waitForChildren(of: process, running: "export-worker", count: 2)
        #expect(workers.count == 2)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let parts = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(parts.count == 1 && parts[0].hasPrefix(".cat.opus.") && parts[0].hasSuffix(".part"), "\(parts)")
        // Not a speed: a worker ends as soon as its pipe has no reader; without that, each ran
        // on for its whole share (16 s here in a debug build).
        #expect(ProcessTree.waitUntilGone(workers, running: "export-worker") == [], "workers outlived their export")

        let other = folder.url.appendingPathComponent("pip.opus")
        let again = try StoryReaderProcess.run(["export", "pip", "--to", other.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["pip.opus"])
    }
}
