import Foundation
import StoryKitTestSupport
import Testing
import ZIPFoundation

@testable import StoryKit

/// DAISY 2.02 talking books (issue 46): the books made by `Tests/Fixtures/daisy/make-books.py`,
/// read from a folder and from a zip, and hostile ones made from them.
@Suite struct DAISYBookTests {
    static let daisy = TestPaths.fixtures.appendingPathComponent("daisy")
    static let pip = daisy.appendingPathComponent("pip-202")
    static let songs = daisy.appendingPathComponent("songs-audio-202")
    /// The DAISY Consortium's test book, full-text and audio-only (Tests/Fixtures/README.md).
    static let happy3 = daisy.appendingPathComponent("dontworrybehappy-daisy3")
    static let happy3AudioOnly = daisy.appendingPathComponent("dontworrybehappy-nccOnly-daisy3")
    static let happyHeadings = [
        "Don't Worry, Be Happy", "Introductio", "Versa media, pre peripetum", "Culmen interludiaris", "Concludio", "Repetitio ad nauseam", "Notes",
    ]

    /// A copy of `book` in a temporary folder, to be spoilt.
    static func copy(_ book: URL, into folder: TemporaryFolder) throws -> URL {
        let target = folder.url.appendingPathComponent(book.lastPathComponent)
        try FileManager.default.copyItem(at: book, to: target)
        return target
    }

    /// A zip of `book`'s files under `prefix` (a zipped book folder), and `extra` files.
    static func zipped(_ book: URL, to url: URL, prefix: String, extra: [(String, Data)] = []) throws -> URL {
        let archive = try Archive(url: url, accessMode: .create)
        let names = try FileManager.default.contentsOfDirectory(atPath: book.path).sorted()
        let files = try names.map { ($0, try Data(contentsOf: book.appendingPathComponent($0))) } + extra
        for (name, data) in files {
            try archive.addEntry(with: prefix + name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static func problem(_ make: () throws -> Void) -> String {
        do {
            try make()
            return "read"
        } catch {
            return "\(error)"
        }
    }

    /// A full-text book: the content document's text and headings, its print page numbers never
    /// in the text, and every sentence placed with its clip.
    @Test func aFullTextBookIsItsTextWithEachSentencesClip() throws {
        let book = try DAISYBook(url: Self.pip)
        #expect(book.title == "Pip the Snail" && book.author == "Magical Stories" && book.language == "en" && book.kind == "DAISY 2.02")
        #expect(!book.audioOnly && book.problems.isEmpty, "\(book.problems)")
        #expect(
            book.blocks == [
                .heading("Pip goes out"), .paragraph("Pip the snail woke up early. The garden was wet and bright!"),
                .paragraph("She sniffed a buttercup. “Hello, flower,” said Pip."), .heading("Pip goes home"),
                .paragraph("The sun came out. Pip went home to sleep."),
            ])
        #expect(book.clips.count == 8)
        #expect(book.clips.map(\.audio) == Array(repeating: "chapter1.mp3", count: 5) + Array(repeating: "chapter2.mp3", count: 3))
        // The second sentence: "The garden was wet and bright!" in block 1, 4.402 s to 7.320 s.
        #expect(book.clips[2] == BookClip(block: 1, text: 29..<59, audio: "chapter1.mp3", begin: 4402, end: 7320))
        #expect(zip(book.clips, book.clips.dropFirst()).allSatisfy { $0.audio != $1.audio || $0.end == $1.begin }, "one after another")
    }

    /// A zip of the book's folder reads as the folder does.
    @Test func aZipOfTheBookReadsAsItsFolder() throws {
        let folder = try TemporaryFolder("daisy-zip")
        defer { folder.remove() }
        let zipped = try DAISYBook(url: try Self.zipped(Self.pip, to: folder.url.appendingPathComponent("pip.zip"), prefix: "pip-202/"))
        let book = try DAISYBook(url: Self.pip)
        #expect(zipped.blocks == book.blocks && zipped.clips == book.clips && zipped.title == book.title)
        #expect(try zipped.audio("chapter2.mp3") == Data(contentsOf: Self.pip.appendingPathComponent("chapter2.mp3")))
    }

    /// An audio-only book: its NCC's headings are the text, each on its page, each playing its
    /// whole section (the section's clips of one file made one).
    @Test func anAudioOnlyBookIsItsHeadingsEachWithItsSection() throws {
        let book = try DAISYBook(url: Self.songs)
        #expect(book.audioOnly)
        #expect(book.blocks == [.heading("Chapter 1"), .page, .heading("Chapter 2"), .page, .heading("Chapter 2, part 2")])
        #expect(book.clips.map(\.block) == [0, 2, 4])
        #expect(book.clips.map(\.audio) == ["section1.mp3", "section2.mp3", "section3.mp3"])
        #expect(book.clips.allSatisfy { $0.begin == 0 })
        // section2.smil's two clips: 0–1.643 s and 1.643–4.384 s.
        #expect(book.clips[1].end == 4384 && book.clips[1].text == 0..<9)
    }

    /// A full-text book whose content document is missing or broken keeps its headings and its
    /// recording, and says why.
    @Test func aBrokenContentDocumentLeavesTheHeadingsAndSaysWhy() throws {
        let folder = try TemporaryFolder("daisy-broken-content")
        defer { folder.remove() }
        let book = try Self.copy(Self.pip, into: folder)
        try Data("<html><body><p>Pip <b>woke</p></body></html>".utf8).write(to: book.appendingPathComponent("content.html"))
        let read = try DAISYBook(url: book)
        #expect(read.audioOnly && read.blocks.first == .heading("Pip goes out"))
        #expect(read.problems.map(\.description) == ["pip-202: content.html is not well-formed XHTML (line 1): its headings are read, each with its recording"])
    }

    /// Bad books are refused with what is wrong: no NCC, a SMIL naming a file outside the book,
    /// a zip bomb, an NCC that is not XML; a file linked out of the book's folder is never read.
    @Test func badBooksAreRefusedWithWhy() throws {
        let folder = try TemporaryFolder("daisy-hostile")
        defer { folder.remove() }
        let empty = folder.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(Self.problem { _ = try DAISYBook(url: empty) }.contains("empty is not a DAISY book: it has no ncc.html"))
        #expect(!DAISYBook.isBook(folder: empty.path) && DAISYBook.isBook(folder: Self.pip.path))

        let outside = try Self.copy(Self.pip, into: folder)
        let smil = outside.appendingPathComponent("chapter2.smil")
        try String(contentsOf: smil, encoding: .utf8).replacingOccurrences(of: "src=\"chapter2.mp3\"", with: "src=\"../../etc/passwd\"")
            .write(to: smil, atomically: true, encoding: .utf8)
        #expect(Self.problem { _ = try DAISYBook(url: outside) } == "pip-202: chapter2.smil names ../../etc/passwd, outside the book: refused")

        let bomb = try Self.zipped(
            Self.pip, to: folder.url.appendingPathComponent("bomb.zip"), prefix: "", extra: [("padding.bin", Data(count: 2_000_000))])
        #expect(
            Self.problem { _ = try DAISYBook(url: bomb, limits: EPUBBook.Limits(totalBytes: 1_000_000)) }.contains(
                "bomb.zip would unpack to more than 0 MB: refused as a zip bomb"))
        // The same book within the limits is read.
        #expect(try DAISYBook(url: bomb).clips.count == 8)

        let broken = folder.url.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("<html><body><h1><a href=\"a.smil#x\">One</h1>".utf8).write(to: broken.appendingPathComponent("ncc.html"))
        #expect(Self.problem { _ = try DAISYBook(url: broken) } == "broken: ncc.html is not well-formed XML")

        let linked = try Self.copy(Self.songs, into: folder)
        try FileManager.default.removeItem(at: linked.appendingPathComponent("section1.mp3"))
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent("section1.mp3").path, withDestinationPath: "/etc/hostname")
        let book = try DAISYBook(url: linked)
        #expect(Self.problem { _ = try book.audio("section1.mp3") } == "section1.mp3 leads outside the book (not read)")
    }

    /// A DAISY 3 full-text book (the DAISY Consortium's): the package's metadata, the DTBook's
    /// text and headings (its notes and note references left out), and each SMIL `par` placed; a
    /// verse the book repeats under the same ids is narrated where it first stands.
    @Test func aDAISY3FullTextBookIsItsDTBookWithItsClips() throws {
        let book = try DAISYBook(url: Self.happy3)
        #expect(book.kind == "DAISY 3" && !book.audioOnly && book.problems.isEmpty, "\(book.problems)")
        #expect(book.title == "Don't Worry, Be Happy Lyrics" && book.author == "Bobby McFerrin" && book.language == "en")
        // The book repeats two verses, their headings with them.
        let headings = book.blocks.compactMap { if case .heading(let text) = $0 { text } else { nil } }
        var seen = Set<String>()
        #expect(headings.filter { seen.insert($0).inserted } == Self.happyHeadings && headings.count == 9)
        // 61 pars: five are in notes (two notes' texts, three clips of the notes' section), which
        // are not read, and two name ids the DTBook lacks (its note references' numbers).
        #expect(book.clips.count == 54)
        #expect(!book.blocks.contains { if case .paragraph(let text) = $0 { text.contains("Homeros") } else { false } }, "no note text")
        let introduction = try #require(book.blocks.firstIndex(of: .heading("Introductio")))
        #expect(book.clips.first { $0.audio == "speechgen0002.mp3" }?.block == introduction)
        #expect(book.blocks[introduction + 1] == .paragraph("Here is a little song I wrote"))
        #expect(book.clips.first { $0.audio == "speechgen0002.mp3" && $0.begin == 2197 }?.block == introduction + 1, "the verse's first place")
    }

    /// A DAISY 3 audio-only book (its SMIL has no text): the NCX's navigation points are the text,
    /// each playing its SMIL file's recording.
    @Test func aDAISY3AudioOnlyBookIsItsNavigationPoints() throws {
        let book = try DAISYBook(url: Self.happy3AudioOnly)
        #expect(book.kind == "DAISY 3" && book.audioOnly)
        let headings = book.blocks.compactMap { if case .heading(let text) = $0 { text } else { nil } }
        #expect(headings == Self.happyHeadings)
        #expect(book.clips.filter { $0.audio == "speechgen0002.mp3" }.map(\.end) == [7592, 19293], "cut by the footnote's clip of another file")
        #expect(Set(book.clips.map(\.block)).count == 7, "each heading plays")
    }
}
