import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// EPUBs made to walk around the import's limits: each is refused or cut down with a message
/// naming the book and the chapter, and the rest of the book is still read.
@Suite struct HostileEPUBTests {
    static func make(_ folder: TemporaryFolder, _ name: String, spine: [String], files: [(String, String)], manifest: [(String, String)]? = nil) throws -> URL {
        let items = (manifest ?? files.map { (String($0.0.split(separator: "/").last!.split(separator: ".").first!), String($0.0.dropFirst("OEBPS/".count))) })
            .map { #"<item id="\#($0.0)" href="\#($0.1)" media-type="application/xhtml+xml"/>"# }.joined()
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>Hostile</dc:title><dc:language>en</dc:language></metadata>
            <manifest>\(items)</manifest><spine>\(spine.map { #"<itemref idref="\#($0)"/>"# }.joined())</spine></package>
            """
        return try EPUBFixtures.make(folder.url.appendingPathComponent(name), opf: opf, files: files)
    }

    /// A spine that lists one chapter 40 times (a 64 KB file listing a 20 MB chapter so took over
    /// 120 s and 855 MB) reads it once, and says so.
    @Test func aChapterListedManyTimesInTheSpineIsReadOnce() throws {
        let folder = try TemporaryFolder("epub-repeat")
        defer { folder.remove() }
        let url = try Self.make(
            folder, "repeat.epub", spine: ["a"] + Array(repeating: "big", count: 40) + ["b"],
            files: [
                ("OEBPS/a.xhtml", EPUBFixtures.xhtml("<p>First.</p>")),
                ("OEBPS/big.xhtml", EPUBFixtures.xhtml("<p>The big chapter.</p>")),
                ("OEBPS/b.xhtml", EPUBFixtures.xhtml("<p>Last.</p>")),
            ])
        let book = try EPUBBook(url: url)
        #expect(book.works.count == 1)
        #expect(book.works[0].blocks == [.paragraph("First."), .page, .paragraph("The big chapter."), .page, .paragraph("Last.")])
        #expect(book.warnings == ["repeat.epub, OEBPS/big.xhtml: listed 40 times in the spine, read once"])
    }

    /// Chapters that together unpack to more text than the limit: the book is refused, named, as
    /// a zip bomb (each of its 8 chapters of 220 KB alone is within the per-file limit).
    @Test func chaptersUnpackingToTooMuchTextAreRefused() throws {
        let folder = try TemporaryFolder("epub-text")
        defer { folder.remove() }
        let chapter = EPUBFixtures.xhtml("<p>\(String(repeating: "All work and no play. ", count: 10_000))</p>")
        let url = try Self.make(folder, "text.epub", spine: (1...8).map { "c\($0)" }, files: (1...8).map { ("OEBPS/c\($0).xhtml", chapter) })
        #expect(try EPUBBook(url: url).works[0].blocks.count == 15, "within the default limits, all 8 chapters are read")
        do {
            _ = try EPUBBook(url: url, limits: EPUBBook.Limits(textBytes: 1 << 20))
            Issue.record("a book whose chapters unpack to more than the text limit was read")
        } catch {
            #expect(error.description == "text.epub: its chapters unpack to more than 1 MB of text, more than a book ever holds: refused as a zip bomb")
        }
    }

    /// A chapter of more elements than the limit is skipped, named with the limit; the other
    /// chapters are read. A package file of more is refused.
    @Test func aChapterOfTooManyElementsIsSkipped() throws {
        let folder = try TemporaryFolder("epub-elements")
        defer { folder.remove() }
        let url = try Self.make(
            folder, "elements.epub", spine: ["many", "few"],
            files: [
                ("OEBPS/many.xhtml", EPUBFixtures.xhtml(String(repeating: "<p>a</p>", count: 500))),
                ("OEBPS/few.xhtml", EPUBFixtures.xhtml("<p>Few.</p>")),
            ])
        let book = try EPUBBook(url: url, limits: EPUBBook.Limits(documentElements: 100))
        #expect(book.works[0].blocks == [.paragraph("Few.")])
        #expect(book.warnings == ["elements.epub, OEBPS/many.xhtml: more than 100 elements, more than a book's chapter ever holds (chapter skipped)"])
        #expect(try EPUBBook(url: url).works[0].blocks.count == 502, "within the default limit the chapter is read")

        let manifest = (1...200).map { ("x\($0)", "x\($0).xhtml") } + [("few", "few.xhtml")]
        let package = try Self.make(folder, "package.epub", spine: ["few"], files: [("OEBPS/few.xhtml", EPUBFixtures.xhtml("<p>Few.</p>"))], manifest: manifest)
        do {
            _ = try EPUBBook(url: package, limits: EPUBBook.Limits(documentElements: 100))
            Issue.record("a package file of more elements than the limit was read")
        } catch {
            #expect(error.description == "package.epub: OEBPS/content.opf has more than 100 elements, more than a package file ever holds")
        }
    }

    /// 300,000 note references in one paragraph (25.5 s before their stripping was made linear:
    /// each one copied the paragraph) are all taken out, and every word between them is kept.
    /// `storyreader bench import` gives the time on such a book.
    @Test func manyNoteReferencesInOneParagraphAreAllStripped() throws {
        let folder = try TemporaryFolder("epub-notes")
        defer { folder.remove() }
        let count = 300_000
        let body = "<p>" + String(repeating: "w<sup>1</sup> ", count: count) + "end <sup>word</sup> <a href=\"#n\">[2]</a></p>"
        let url = try Self.make(folder, "notes.epub", spine: ["c"], files: [("OEBPS/c.xhtml", EPUBFixtures.xhtml(body))])
        let book = try EPUBBook(url: url)
        #expect(book.works[0].blocks == [.paragraph(Array(repeating: "w", count: count).joined(separator: " ") + " end word")])
    }
}

extension HostileEPUBTests {
    /// A well-formed chapter of more than 10 MB on one line (libxml2's lookup limit when given it
    /// all at once; the adversarial run's was 60 MB) is read: as many paragraphs, or as one.
    @Test(arguments: [true, false])
    func aWellFormedOneLineChapterOver10MBIsRead(paragraphs: Bool) throws {
        let folder = try TemporaryFolder("epub-one-line")
        defer { folder.remove() }
        let sentence = "All work and no play makes Jack a dull boy."
        let count = 11_000_000 / (sentence.utf8.count + (paragraphs ? "<p></p>".utf8.count : 1))
        let body =
            paragraphs
            ? String(repeating: "<p>\(sentence)</p>", count: count) : "<p>" + String(repeating: sentence + " ", count: count) + "</p>"
        let chapter = EPUBFixtures.xhtml(body).replacingOccurrences(of: "\n", with: "")
        #expect(chapter.utf8.count > 10_000_000 && !chapter.contains("\n"))
        let url = try Self.make(folder, "one-line.epub", spine: ["c"], files: [("OEBPS/c.xhtml", chapter)])
        let book = try EPUBBook(url: url)
        #expect(book.warnings.isEmpty, "\(book.warnings)")
        let blocks = book.works.first?.blocks ?? []
        #expect(blocks.count == (paragraphs ? count : 1))
        #expect(blocks.first == .paragraph(paragraphs ? sentence : Array(repeating: sentence, count: count).joined(separator: " ")))
    }

    /// What a note mark is (the rule the regular expression said): one to three digits or note
    /// signs, each bracket optional; nothing else.
    @Test func noteMarksAreDigitsOrSignsInOptionalBrackets() {
        for mark in ["1", "12", "123", "[2]", "(3)", "[4", "5)", "*", "†‡", "§¶*", "[*]"] { #expect(XHTMLReader.isNoteMark(mark), "\(mark)") }
        for mark in ["", "1234", "a", "[]", "()", "1*", "[[1]]", "one", "٣", "****", "[1] "] { #expect(!XHTMLReader.isNoteMark(mark), "\(mark)") }
    }
}
