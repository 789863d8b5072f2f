import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A recording behind the speech service (issue 29): decoded by FFmpeg, paused and resumed at
/// the sample, slowed without changing pitch; SMIL clocks and overlays read as EPUB 3 writes them.
/// Recordings are made at test time: a rising tone written as a WAV file, where every sample is
/// told apart from the others, so where a resumed clip starts is found exactly.
@Suite struct RecordedNarrationServiceTests {
    static let rate = SpeechAudioFormat.sampleRate

    /// A 3-second rising tone (200 → 2,000 Hz) at the sink's format, written as a WAV file.
    static func chirp(_ folder: TemporaryFolder, seconds: Double = 3, constant: Double? = nil) throws -> (path: String, samples: [Int16]) {
        let path = folder.path + "/tone.wav"
        return (path, try Chirp.write(path, seconds: seconds, constant: constant))
    }

    /// Upward zero crossings a second: the tone's frequency.
    static func frequency(_ samples: ArraySlice<Int16>) -> Double {
        var crossings = 0
        var previous = samples.first ?? 0
        for sample in samples.dropFirst() {
            if previous < 0 && sample >= 0 { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / (Double(samples.count) / Double(rate))
    }

    @Test func clockValuesInEverySMILForm() {
        #expect(StoryRecording.clockValue("1:02:03.5") == 3_723_500)
        #expect(StoryRecording.clockValue("0:00:01.200") == 1_200)
        #expect(StoryRecording.clockValue("02:03.25") == 123_250)
        #expect(StoryRecording.clockValue("3.5") == 3_500)
        #expect(StoryRecording.clockValue("3.5s") == 3_500)
        #expect(StoryRecording.clockValue("350ms") == 350)
        #expect(StoryRecording.clockValue("1.5min") == 90_000)
        #expect(StoryRecording.clockValue("2h") == 7_200_000)
        for bad in ["", "abc", "-1", "1:60", "1:2:3:4", "nan", "1e9", "5 s", "0x10", "1:99:00"] {
            #expect(StoryRecording.clockValue(bad) == nil, "\(bad)")
        }
    }

    /// Nested `seq`s (a table) keep document order; a par with a clock that is none, or without
    /// audio, is left out; audio is resolved against the SMIL's folder.
    @Test func aMediaOverlayWithNestedSequences() {
        let smil = """
            <smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0"><body>
            <seq epub:textref="../text/c1.xhtml"><par><text src="../text/c1.xhtml#a"/><audio src="../audio/one.mp3" clipBegin="0:00:01.000" clipEnd="2.5s"/></par>
            <seq epub:type="table"><par><text src="../text/c1.xhtml#b"/><audio src="../audio/one.mp3" clipBegin="2500ms" clipEnd="00:04"/></par>
            <par><text src="../text/c1.xhtml#bad"/><audio src="../audio/one.mp3" clipBegin="soon" clipEnd="4s"/></par></seq>
            <par><text src="../text/c1.xhtml#c"/><audio src="../audio/two.ogg"/></par>
            <par><text src="../text/c1.xhtml#d"/></par></seq></body></smil>
            """
        let overlay = MediaOverlay(tree: XMLTree(Data(smil.utf8)), base: "OEBPS/smil")
        #expect(overlay.pars.map(\.fragment) == ["a", "b", "c"])
        #expect(overlay.pars.map(\.document) == ["OEBPS/text/c1.xhtml", "OEBPS/text/c1.xhtml", "OEBPS/text/c1.xhtml"])
        #expect(overlay.pars.map(\.audio) == ["OEBPS/audio/one.mp3", "OEBPS/audio/one.mp3", "OEBPS/audio/two.ogg"])
        #expect(overlay.pars.map(\.begin) == [1000, 2500, 0])
        #expect(overlay.pars.map(\.end) == [2500, 4000, nil])
        #expect(overlay.unreadable == 2)
    }

    /// A fragment's place in its paragraph's cleaned text, whatever white space and line breaks
    /// the XHTML had around it.
    @Test func fragmentsArePlacedInTheCleanedText() {
        let xhtml = """
            <html xmlns="http://www.w3.org/1999/xhtml"><body>
            <p>  <span id="s1">Pip   woke.</span>
               <span id="s2">She <span id="w1">sniffed</span>!</span></p></body></html>
            """
        let reader = XHTMLReader(Data(xhtml.utf8), anchorIDs: ["s1", "s2", "w1"])
        #expect(reader.blocks == [.paragraph("Pip woke. She sniffed!")])
        #expect(reader.anchors["s1"]?.range == 0..<9)
        #expect(reader.anchors["s2"]?.range == 10..<22)
        #expect(reader.anchors["w1"]?.range == 14..<21)
        #expect(reader.anchors["w1"]?.block == 0)
    }

    /// A clip decoded from a WAV at the sink's own format is its samples, exactly, from a
    /// millisecond on; past the end of the file it is an error naming the file.
    @Test func aClipIsItsSamples() throws {
        let folder = try TemporaryFolder("clip")
        defer { folder.remove() }
        let tone = try Self.chirp(folder)
        let clip = try AudioClipDecoder.decode(path: tone.path, beginMs: 1000, endMs: 1500)
        #expect(clip.count == Self.rate / 2)
        #expect(Array(clip) == Array(tone.samples[Self.rate..<(Self.rate + Self.rate / 2)]))
        #expect(throws: RecordingProblem.self) { try AudioClipDecoder.decode(path: tone.path, beginMs: 9000, endMs: 9500) }
        #expect(throws: RecordingProblem.self) { try AudioClipDecoder.decode(path: folder.path + "/none.mp3", beginMs: 0, endMs: nil) }
    }

    /// A gapless MP3 (the export's own, with LAME's delay in its Info frame): a clip starts at
    /// the recording's sample of its time, not 50 ms early (the delay FFmpeg leaves out), whether
    /// the decoder starts at the file's start or seeks into it.
    @Test func aGaplessMp3sClipStartsAtItsSample() throws {
        let folder = try TemporaryFolder("gapless")
        defer { folder.remove() }
        let tone = try Self.chirp(folder)
        let path = folder.path + "/tone.mp3"
        let file = try Mp3ExportFile(path: path, tags: AudioTags(title: "Tone", language: "en"))
        _ = try tone.samples.withUnsafeBufferPointer { try file.write($0) }
        try file.close()
        /// The shift (in samples) at which a stretch inside `clip`, which should start at the
        /// tone's sample `clipStart`, best matches the tone.
        func lag(_ clip: [Int16], clipStart: Int) -> Int {
            let (inside, length, reach) = (Self.rate / 4, Self.rate / 8, 1_500)
            let scores = (-reach...reach).map { shift -> (shift: Int, score: Double) in
                var sum = 0.0
                for index in inside..<(inside + length) {
                    sum += Double(clip[index]) * Double(tone.samples[clipStart + index + shift])
                }
                return (shift, sum)
            }
            return scores.max { $0.score < $1.score }!.shift
        }
        let fromStart = try AudioClipDecoder.decode(path: path, beginMs: 0, endMs: 1_000)
        let sought = try AudioClipDecoder.decode(path: path, beginMs: 1_500, endMs: 2_000)
        let (startLag, seekLag) = (lag(fromStart, clipStart: 0), lag(sought, clipStart: Self.rate * 3 / 2))
        print("gapless MP3: a clip from 0 is \(startLag) samples off, one from 1.5 s \(seekLag)")
        #expect(fromStart.count == Self.rate)
        #expect(abs(startLag) <= 2 && abs(seekLag) <= 2, "the encoder's delay is 1,105 samples")
    }

    /// Tempo 0.75: the clip lasts 1.33 times as long, and a 440 Hz tone stays at 440 Hz.
    @Test func aSlowerTempoKeepsThePitch() throws {
        let folder = try TemporaryFolder("tempo")
        defer { folder.remove() }
        let tone = try Self.chirp(folder, constant: 440)
        let normal = try AudioClipDecoder.decode(path: tone.path, beginMs: 0, endMs: nil)
        let slow = try AudioClipDecoder.decode(path: tone.path, beginMs: 0, endMs: nil, tempo: 0.75)
        let fast = try AudioClipDecoder.decode(path: tone.path, beginMs: 0, endMs: nil, tempo: 2)
        let ratio = Double(slow.count) / Double(normal.count)
        let pitch = (normal: Self.frequency(normal[...]), slow: Self.frequency(slow[(slow.count / 10)..<(slow.count * 9 / 10)]))
        print(
            "tempo 0.75: \(String(format: "%.3f", ratio))× the length; pitch \(String(format: "%.1f", pitch.normal)) Hz → \(String(format: "%.1f", pitch.slow)) Hz"
        )
        #expect(abs(ratio - 1 / 0.75) <= 0.02)
        #expect(abs(Double(fast.count) / Double(normal.count) - 0.5) <= 0.02)
        #expect(abs(pitch.slow - 440) <= 440 * 0.02)
        #expect(abs(pitch.normal - 440) <= 440 * 0.02)
    }

    /// A one-sentence story recorded as the 3-second tone.
    static func recordedSentence(_ folder: TemporaryFolder) throws -> (tone: (path: String, samples: [Int16]), Narration, NarrationRecording) {
        let tone = try chirp(folder)
        let narration = try Narration(story: try parsedStory("Pip woke up early and went out into the wet garden."))
        return (tone, narration, NarrationRecording(sentences: [NarrationRecording.Sentence(audio: tone.path, begin: 0, end: 3000)]))
    }

    /// Plays `milliseconds` of the story on the test's clock, pauses and resumes it: where it was
    /// paused (frames heard) and the first 2,048 samples written after the resume.
    static func pauseAndResume(_ service: SpeechService, _ sink: ManualClockSink, after milliseconds: Int) -> (pausedAt: Int, resumed: ArraySlice<Int16>) {
        for _ in 0..<(milliseconds / 20) {
            sink.advance(milliseconds: 20)
            service.flush()
        }
        let pausedAt = sink.framesPlayed
        service.send(.pause)
        service.flush()
        let before = sink.samplesWritten
        service.send(.resume)
        service.flush()
        let resumed = sink.samples(from: before).prefix(2048)
        #expect(resumed.count == 2048)
        return (pausedAt, resumed)
    }

    /// Paused inside a clip and resumed: what is heard next is the recording from where it
    /// stopped (found by its samples), within 50 ms; the events say the recording's clip.
    @Test func pauseAndResumeInsideAClipGoOnAtTheSample() throws {
        let folder = try TemporaryFolder("pause")
        defer { folder.remove() }
        let (tone, narration, recording) = try Self.recordedSentence(folder)
        let sink = ManualClockSink()
        let recorder = SpeechEventRecorder()
        let service = SpeechService(sink: sink) { recorder.record($0) }
        service.send(.narrate(SpeechService.StoryRequest(narration: narration, settings: SpeechSettings(voice: "en"), recording: recording)))
        let (pausedAt, resumed) = Self.pauseAndResume(service, sink, after: 700)
        // The tone never repeats: the resumed samples stand at one place in it.
        let at = try #require(Chirp.place(of: resumed, in: tone.samples))
        let gap = abs(at - pausedAt) * 1000 / Self.rate
        print("paused at \(pausedAt * 1000 / Self.rate) ms, resumed at \(at * 1000 / Self.rate) ms of the clip: \(gap) ms apart")
        #expect(gap <= 50)
        let sentence = recorder.all.compactMap { event -> SpeechService.StoryEvent? in
            guard case .story(let heard) = event, case .sentence = heard.kind else { return nil }
            return heard
        }.first
        #expect(sentence?.clip == NarrationRecording.Sentence(audio: tone.path, begin: 0, end: 3000))
        #expect(recorder.storyKinds.contains(.paused(sentence: 0, word: 0)))
    }

    /// A DAISY section whose sentence goes on in a second audio file (issue 46): the audio-only
    /// fixture book with "Chapter 2"'s two clips made two tones in two WAV files. Imported, its
    /// sentence has both clips; played, the first file is heard to its end and then the second,
    /// under one sentence event; paused in the second file, it resumes there, at the sample.
    @Test func aSentenceRecordedInTwoFilesPlaysBothAndResumesInTheSecond() throws {
        let folder = try TemporaryFolder("two-files")
        defer { folder.remove() }
        let book = folder.url.appendingPathComponent("songs")
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("daisy/songs-audio-202"), to: book)
        // Two tones of different lengths rise at different speeds: no stretch of one is in the other.
        let first = try Chirp.write(book.path + "/first.wav", seconds: 1)
        let second = try Chirp.write(book.path + "/second.wav", seconds: 2)
        let smil = book.appendingPathComponent("section2.smil")
        let original = try String(contentsOf: smil, encoding: .utf8)
        let split =
            original
            .replacingOccurrences(
                of: #"src="section2.mp3" clip-begin="npt=0.000s" clip-end="npt=1.643s""#, with: #"src="first.wav" clip-begin="npt=0s" clip-end="npt=1s""#
            )
            .replacingOccurrences(
                of: #"src="section2.mp3" clip-begin="npt=1.643s" clip-end="npt=4.384s""#, with: #"src="second.wav" clip-begin="npt=0s" clip-end="npt=2s""#)
        #expect(split.contains("first.wav") && split.contains("second.wav") && !split.contains("section2.mp3"))
        try Data(split.utf8).write(to: smil)

        let stories = folder.url.appendingPathComponent("stories")
        var importer = StoryImporter(destination: stories, existing: StoryLibrary.load(folders: []), replace: false, dryRun: false, split: nil)
        importer.reportsProblems = false
        try importer.importFile(book.path)
        #expect(importer.results.map(\.status) == [.imported], "\(importer.results.map(\.message))")
        let storyFile = stories.appendingPathComponent("three-little-songs.md")
        let story = try StoryParser.parse(contentsOf: storyFile, path: storyFile.path).story
        let narration = try Narration(story: story)
        let recording = try #require(try StoryRecording.load(for: story, narration: narration))
        let index = try #require(narration.items.firstIndex { $0.text == "Chapter 2" })
        let clips = try #require(recording.sentences[index]).parts
        #expect(clips.map { ($0.audio as NSString).lastPathComponent.hasSuffix("first.wav") } == [true, false])
        #expect(clips.map { ($0.audio as NSString).lastPathComponent.hasSuffix("second.wav") } == [false, true])
        #expect(clips.map(\.begin) == [0, 0] && clips.map(\.end) == [1000, 2000])
        #expect(recording.durationMilliseconds == 3997 + 1000 + 2000 + 4161, "both files counted in the recording's length")

        let sink = ManualClockSink()
        let recorder = SpeechEventRecorder()
        let service = SpeechService(sink: sink) { recorder.record($0) }
        service.send(.narrate(SpeechService.StoryRequest(narration: narration, sentence: index, settings: SpeechSettings(voice: "en"), recording: recording)))
        // About 1.5 s: the first file heard, and some of the second (the test's clock stops
        // where nothing more was written yet: it waits for the second file's decoding).
        let (pausedAt, resumed) = Self.pauseAndResume(service, sink, after: 1500)
        #expect(pausedAt > first.count + Self.rate / 4, "paused in the second file")
        let heard = sink.samples(from: 0)
        #expect(heard.count >= first.count + 2048)
        #expect(heard.prefix(first.count).elementsEqual(first), "the first file, whole")
        let secondStart = Chirp.place(of: heard.dropFirst(first.count).prefix(2048), in: second)
        #expect(secondStart == 0, "then the second, from its start")
        let place = Chirp.place(of: resumed, in: second)
        let at = try #require(place, "resumed in the second file")
        let gap = abs(at - (pausedAt - first.count)) * 1000 / Self.rate
        print("paused at \((pausedAt - first.count) * 1000 / Self.rate) ms of the second file, resumed at \(at * 1000 / Self.rate) ms: \(gap) ms apart")
        #expect(gap <= 50)
        let sentences = recorder.all.compactMap { event -> SpeechService.StoryEvent? in
            guard case .story(let heard) = event, case .sentence(index) = heard.kind else { return nil }
            return heard
        }
        // One sentence event as it began (its clip and the one after it), one as it resumed (the second file's clip).
        #expect(sentences.count == 2)
        #expect(sentences.first?.clip?.more.map(\.audio) == [clips[1].audio])
        #expect(sentences.last?.clip?.audio == clips[1].audio)
        #expect(recorder.storyKinds.contains(.paused(sentence: index, word: 0)))
    }

    /// A sentence recorded word by word over two files (its first five words in one, the rest in
    /// another): read from its start, every word's event comes in order, each with its own file,
    /// the sixth as the second file starts; read from its eighth word, the second file is heard
    /// from that word's time.
    @Test func wordsFollowASentenceIntoItsSecondFile() throws {
        let folder = try TemporaryFolder("two-files-words")
        defer { folder.remove() }
        let first = try Chirp.write(folder.path + "/first.wav", seconds: 1)
        let second = try Chirp.write(folder.path + "/second.wav", seconds: 2)
        let story = try parsedStory("Pip woke up early and went out into the wet garden.")
        let block = try #require(story.blocks.firstIndex { $0.text.hasPrefix("Pip") })
        let words = [0..<3, 4..<8, 9..<11, 12..<17, 18..<21, 22..<26, 27..<30, 31..<35, 36..<39, 40..<43, 44..<50]
        // first.wav: a word each 200 ms; second.wav: a word each 300 ms.
        let clips = words.enumerated().map { index, range in
            index < 5
                ? StoryRecording.Clip(block: block, text: range, audio: "first.wav", begin: index * 200, end: index * 200 + 200)
                : StoryRecording.Clip(block: block, text: range, audio: "second.wav", begin: (index - 5) * 300, end: (index - 5) * 300 + 300)
        }
        let narration = try Narration(story: story)
        let recording = NarrationRecording(
            story: story, narration: narration, recording: StoryRecording(clips: clips),
            audioPaths: ["first.wav": folder.path + "/first.wav", "second.wav": folder.path + "/second.wav"], folder: folder.path)
        let sentence = try #require(recording.sentences[0])
        #expect(sentence.parts.map(\.words.count) == [5, 6] && sentence.parts.map(\.end) == [1000, 1800])

        func read(fromWord word: Int, milliseconds: Int) -> (sink: ManualClockSink, words: [(word: Int, audio: String?, frame: Int)]) {
            let sink = ManualClockSink()
            let recorder = SpeechEventRecorder()
            let service = SpeechService(sink: sink) { recorder.record($0) }
            service.send(.narrate(SpeechService.StoryRequest(narration: narration, word: word, settings: SpeechSettings(voice: "en"), recording: recording)))
            for _ in 0..<(milliseconds / 20) {
                sink.advance(milliseconds: 20)
                service.flush()
            }
            let heard = recorder.all.compactMap { event -> (word: Int, audio: String?, frame: Int)? in
                guard case .story(let heard) = event, case .word(0, let word) = heard.kind else { return nil }
                return (word, heard.clip.map { ($0.audio as NSString).lastPathComponent }, heard.frame)
            }
            return (sink, heard)
        }
        let whole = read(fromWord: 0, milliseconds: 3000)
        #expect(whole.words.map(\.word) == Array(0..<11))
        #expect(whole.words.map(\.audio) == Array(repeating: "first.wav", count: 5) + Array(repeating: "second.wav", count: 6))
        #expect(whole.words[5].frame == first.count, "the sixth word as the second file starts")
        #expect(zip(whole.words, whole.words.dropFirst()).allSatisfy { $0.frame < $1.frame })

        let moved = read(fromWord: 7, milliseconds: 200)
        #expect(moved.words.first?.word == 7 && moved.words.first?.audio == "second.wav")
        let place = Chirp.place(of: moved.sink.samples(from: 0).prefix(2048), in: second)
        let at = try #require(place, "the second file is heard first")
        #expect(abs(at * 1000 / Self.rate - 600) <= 20, "from the eighth word's time, \(at * 1000 / Self.rate) ms")
    }

    /// A paragraph's clip over two sentences whose audio goes on in a second file (two clips for
    /// the same text): the audio of both, end to end, is shared by length, so the second sentence
    /// runs from inside the first file to the second file's end and the first file is not lost.
    @Test func aSharedClipGoesOnIntoItsSecondFile() throws {
        let story = try parsedStory("Hi. Pip went out into the wet garden today.")
        let block = try #require(story.blocks.firstIndex { $0.text.hasPrefix("Hi") })
        let narration = try Narration(story: story)
        let items = try #require(narration.items.firstIndex { $0.text.hasPrefix("Hi") })
        let clips = [
            StoryRecording.Clip(block: block, text: nil, audio: "a.wav", begin: 0, end: 1000),
            StoryRecording.Clip(block: block, text: nil, audio: "b.wav", begin: 500, end: 1500),
        ]
        let recording = NarrationRecording(
            story: story, narration: narration, recording: StoryRecording(clips: clips), audioPaths: ["a.wav": "/a.wav", "b.wav": "/b.wav"],
            folder: "/")
        let hi = try #require(recording.sentences[items]).parts
        let pip = try #require(recording.sentences[items + 1]).parts
        #expect(hi.map(\.audio) == ["/a.wav"] && hi[0].begin == 0)
        #expect(pip.map(\.audio) == ["/a.wav", "/b.wav"])
        #expect(pip[0].begin == hi[0].end && pip[0].end == 1000 && pip[1].begin == 500 && pip[1].end == 1500)
        // "Hi. " is 4 of the paragraph's 43 letters: about an eleventh of the two seconds.
        #expect(abs((hi[0].end ?? 0) - 2000 * 4 / 43) <= 1)
    }

    /// A clip is decoded off the speech thread (issue 43: a hostile book's audio held it, and the
    /// REPL's stop, help and quit with it): while the decoder is held, the service still says an
    /// answer and stops the story; once released, the stale clip is never played.
    @Test func theSpeechThreadAnswersWhileAClipIsDecoded() throws {
        let folder = try TemporaryFolder("decoding")
        defer { folder.remove() }
        let (_, narration, recording) = try Self.recordedSentence(folder)
        let sink = ManualClockSink()
        let recorder = SpeechEventRecorder()
        let service = SpeechService(sink: sink) { recorder.record($0) }
        // The decoder's queue is held by the test: the clip cannot be decoded until it lets go.
        let gate = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        SpeechService.ClipDecoding.queue.async {
            gate.wait()
            released.signal()
        }
        defer { gate.signal() }
        /// Waits (at most 30 s, a bound for a failure, not a measure) until `found` holds.
        func eventually(_ found: () -> Bool) -> Bool {
            for _ in 0..<3000 where !found() { usleep(10_000) }
            return found()
        }
        service.send(.narrate(SpeechService.StoryRequest(narration: narration, settings: SpeechSettings(voice: "en"), recording: recording)))
        #expect(eventually { recorder.log.contains { $0.hasPrefix("start story") } }, "\(recorder.log)")
        let answer = Utterance("Help is here.", priority: .text)
        service.send(.say(answer, settings: SpeechSettings(voice: "en")))
        #expect(eventually { sink.samplesWritten > 0 }, "the answer was said while the clip was decoded")
        service.send(.stop)
        #expect(eventually { recorder.storyKinds.contains(.stopped) }, "the story stopped while the clip was decoded")
        #expect(!recorder.storyKinds.contains { if case .sentence = $0 { true } else { false } }, "nothing of the clip was heard")
        gate.signal()
        released.wait()
        service.flush()
        #expect(!recorder.storyKinds.contains { if case .sentence = $0 { true } else { false } }, "the stale clip was not played")
    }
}
