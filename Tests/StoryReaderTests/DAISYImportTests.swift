import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `storyreader import` of DAISY 2.02 talking books (issue 46): one story that plays the book's
/// own recording, sentence by sentence, or heading by heading for an audio-only book.
@Suite(.serialized) struct DAISYImportTests {
    static let daisy = TestPaths.fixtures.appendingPathComponent("daisy")

    func run(_ arguments: [String], _ data: TemporaryFolder) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, dataDirectory: data.path)
    }

    /// Imports the fixture book `book` into a new data folder and reads story `id`: the folder
    /// (removed by the caller), what import printed, and the sentence events.
    func imported(_ book: String, reading id: String) throws -> (data: TemporaryFolder, output: String, sentences: [[String: Any]]) {
        let data = try TemporaryFolder("daisy-" + book)
        let imported = try run(["import", Self.daisy.appendingPathComponent(book).path], data)
        #expect(imported.status == 0 && imported.standardError.isEmpty, "\(imported.standardError)")
        return (data, imported.standardOutput, try sentences(id, data))
    }

    func sentences(_ id: String, _ data: TemporaryFolder) throws -> [[String: Any]] {
        let read = try run(["read", id, "--no-audio", "--events", "json", "--from-start"], data)
        #expect(read.status == 0 && read.standardError.isEmpty, "\(read.standardError)")
        return read.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "sentence" }
    }

    /// A full-text book imports as one story; every sentence plays its own clip of the book's
    /// recording (the print page numbers are not read), and `read --wav` lasts as the recording.
    @Test func aFullTextBookPlaysItsOwnRecordingSentenceBySentence() throws {
        let (data, output, sentences) = try imported("pip-202", reading: "pip-the-snail")
        defer { data.remove() }
        #expect(output.contains("Imported 1 story from “Pip the Snail” (DAISY 2.02)"), "\(output)")
        #expect(sentences.count == 8)
        #expect(sentences.allSatisfy { $0["source"] as? String == "recording" }, "\(sentences)")
        #expect(!sentences.contains { ["1", "2", "3"].contains($0["text"] as? String) }, "page numbers are silent")
        let recorded = sentences.reduce(0) { $0 + (($1["clipEnd"] as? Int ?? 0) - ($1["clipBegin"] as? Int ?? 0)) }
        #expect(recorded == 12_681 + 6_245, "the SMIL files' clips, end to end")

        let wav = data.path + "/heard.wav"
        let read = try run(["read", "pip-the-snail", "--wav", wav, "--from-start"], data)
        #expect(read.status == 0, "\(read.standardError)")
        let heard = Double(try WAVSamples.read(wav).count) * 1000 / Double(SpeechAudioFormat.sampleRate)
        print("DAISY recording \(recorded) ms, read --wav \(Int(heard)) ms")
        #expect(abs(heard / Double(recorded) - 1) <= 0.02)
    }

    /// An audio-only book plays each heading's section of the recording; a zip of a book imports.
    @Test func anAudioOnlyBookPlaysHeadingByHeading() throws {
        let (data, _, sentences) = try imported("songs-audio-202", reading: "three-little-songs")
        defer { data.remove() }
        #expect(sentences.map { $0["text"] as? String } == ["Chapter 1", "Chapter 2", "Chapter 2, part 2"])
        #expect(sentences.allSatisfy { $0["kind"] as? String == "heading" && $0["source"] as? String == "recording" })
        #expect(sentences.map { $0["clipEnd"] as? Int } == [3997, 4384, 4161])
    }

    /// A folder that is no DAISY book, and a zip that is none, are refused with what to do.
    @Test func aFolderOrZipThatIsNoBookIsRefused() throws {
        let data = try TemporaryFolder("daisy-refused")
        defer { data.remove() }
        let folder = data.url.appendingPathComponent("holiday")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zip = data.url.appendingPathComponent("notes.zip")
        try Data("not a zip".utf8).write(to: zip)
        let imported = try run(["import", folder.path, zip.path], data)
        #expect(imported.status == 1)
        #expect(imported.standardError.contains("holiday: not imported: a folder is imported only when it is a DAISY book"), "\(imported.standardError)")
        #expect(imported.standardError.contains("notes.zip is not a DAISY book (not a zip archive) (not imported)"), "\(imported.standardError)")
    }

    /// The DAISY Consortium's DAISY 3 test book: full-text, every narrated sentence plays its clip;
    /// audio-only, each heading its section.
    @Test func daisy3BooksPlayTheirRecording() throws {
        let (data, output, sentences) = try imported("dontworrybehappy-daisy3", reading: "don-t-worry-be-happy-lyrics")
        defer { data.remove() }
        #expect(output.contains("(DAISY 3)"), "\(output)")
        let recorded = sentences.filter { $0["source"] as? String == "recording" }
        // The book narrates 54 places of its text; two verses it repeats (under the same ids) are
        // narrated once, where they first stand, and read by eSpeak NG where they are repeated.
        #expect(recorded.count == 52, "\(recorded.count) of \(sentences.count)")
        #expect(Set(recorded.compactMap { $0["audio"] as? String }).count == 7, "all seven SMIL files' audio")
        let headings = sentences.filter { $0["kind"] as? String == "heading" }
        var seen = Set<String>()
        let firsts = headings.filter { seen.insert($0["text"] as? String ?? "").inserted }
        #expect(firsts.count == 7 && firsts.allSatisfy { $0["source"] as? String == "recording" })

        let (other, _, sections) = try imported("dontworrybehappy-nccOnly-daisy3", reading: "don-t-worry-be-happy-lyrics")
        defer { other.remove() }
        #expect(sections.count == 7 && sections.allSatisfy { $0["kind"] as? String == "heading" && $0["source"] as? String == "recording" })
    }

    /// The same book as DAISY 2.02: every sentence of the full-text book plays its clip; the
    /// audio-only one plays each NCC heading's section.
    @Test func theConsortiumsDAISY202BookPlaysItsRecording() throws {
        let (data, _, sentences) = try imported("dontworrybehappy-202", reading: "don-t-worry-be-happy-lyrics")
        defer { data.remove() }
        #expect(sentences.count == 55 && sentences.allSatisfy { $0["source"] as? String == "recording" })
        #expect(Set(sentences.compactMap { $0["audio"] as? String }).count == 7)

        let (other, _, sections) = try imported("dontworrybehappy-nccOnly-202", reading: "don-t-worry-be-happy-lyrics")
        defer { other.remove() }
        #expect(sections.count == 7 && sections.allSatisfy { $0["kind"] as? String == "heading" && $0["source"] as? String == "recording" })
    }
}
