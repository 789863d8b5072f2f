import Foundation
import Testing
import ZIPFoundation
import StoryKitTestSupport
@testable import StoryKit

/// EPUB books read as stories: real Standard Ebooks files, and small ones made here for each rule.
@Suite struct EPUBImportTests {
    static func book(_ name: String) -> URL? { TestPaths.shared?.appendingPathComponent("testdata/books/\(name).epub") }

    /// Builds an EPUB from (path, text) pairs, with its container.xml.
    static func make(_ folder: TemporaryFolder, _ name: String, opf: String, files: [(String, String)]) throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ text: String) throws {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("mimetype", "application/epub+zip")
        try add("META-INF/container.xml", """
            <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
            <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
            """)
        try add("OEBPS/content.opf", opf)
        for (path, text) in files { try add(path, text) }
        return url
    }

    static func xhtml(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title></head>
        <body>\(body)</body></html>
        """
    }

    static let opf = """
        <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
        <metadata><dc:title>The Little Book</dc:title><dc:creator opf:role="ill">Ann Painter</dc:creator><dc:creator opf:role="aut">Tom Writer</dc:creator><dc:language>fr-FR</dc:language></metadata>
        <manifest><item id="t" href="text/title.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/>
        <item id="c2" href="text/two%20b.xhtml" media-type="application/xhtml+xml"/><item id="gone" href="text/missing.xhtml" media-type="application/xhtml+xml"/>
        <item id="notes" href="text/notes.xhtml" media-type="application/xhtml+xml"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest>
        <spine toc="ncx"><itemref idref="t"/><itemref idref="c1"/><itemref idref="gone"/><itemref idref="c2"/><itemref idref="notes" linear="no"/></spine></package>
        """

    /// An EPUB 2 (NCX only) with the traps: named entities, a `..` picture path and a
    /// percent-encoded href, a footnote reference and an aside, alt text and alt="", a missing
    /// chapter, a title page, and notes outside the reading order.
    @Test func theRulesOnASmallBook() throws {
        let folder = try TemporaryFolder("epub-rules")
        defer { folder.remove() }
        let url = try Self.make(folder, "little.epub", opf: Self.opf, files: [
            ("OEBPS/text/title.xhtml", Self.xhtml(#"<section epub:type="titlepage"><h1>The Little Book</h1><p>Published by Nobody</p></section>"#)),
            ("OEBPS/text/one.xhtml", Self.xhtml(#"""
                <h2>Chapter&nbsp;One</h2><p>It&rsquo;s a&nbsp;fine day.<a epub:type="noteref" href="notes.xhtml#n1">1</a></p>
                <img src="../images/cat.png" alt="A grey cat on a wall"/><img src="../images/line.png" alt=""/>
                <aside><p>A sidebar never read.</p></aside><p>The end of one.</p>
                """#)),
            ("OEBPS/text/two b.xhtml", Self.xhtml("<h2>Chapter Two</h2><p>Second &amp; last.</p>")),
            ("OEBPS/text/notes.xhtml", Self.xhtml(#"<aside epub:type="footnote" id="n1"><p>A footnote.</p></aside>"#)),
            ("OEBPS/toc.ncx", "<ncx/>"),
        ])
        let book = try EPUBBook(url: url)
        #expect(book.title == "The Little Book")
        #expect(book.author == "Tom Writer", "the author, not the illustrator")
        #expect(book.language == "fr")
        #expect(book.works.count == 1)
        let blocks = book.works[0].blocks
        // &nbsp; keeps the words apart (FoundationXML alone would drop it: "Chapterone").
        #expect(blocks == [.heading("Chapter One"), .paragraph("It’s a fine day."), .picture("A grey cat on a wall"),
                           .paragraph("The end of one."), .page, .heading("Chapter Two"), .paragraph("Second & last.")])
        #expect(book.warnings.count == 1)
        #expect(book.warnings.first?.contains("text/missing.xhtml") == true, "the missing chapter is named")
        let story = try #require(book.stories(bookID: "little").first)
        let parsed = try StoryParser.parse(text: story.markdown, path: "little.md").story
        #expect(parsed.pictures.count == 1)
        #expect(!parsed.text.contains("footnote") && !parsed.text.contains("sidebar") && !parsed.text.contains("Published by"))
    }

    /// A chapter in windows-1252 (an old tool's export) is read again in that encoding.
    @Test func aWindows1252ChapterIsReadInItsEncoding() throws {
        let folder = try TemporaryFolder("epub-1252")
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("old.epub")
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ data: Data) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("META-INF/container.xml", Data(#"<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>"#.utf8))
        try add("c.opf", Data(#"<package><metadata><title>Vieux</title></metadata><manifest><item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>"#.utf8))
        let chapter = #"<?xml version="1.0" encoding="windows-1252"?><html><body><p>Le caf&#233; et le th"# + "\u{E9}" + #" « chaud »</p></body></html>"#
        try add("a.xhtml", try #require(chapter.data(using: .windowsCP1252)))
        let book = try EPUBBook(url: url)
        #expect(book.works.first?.blocks == [.paragraph("Le café et le thé « chaud »")], "\(book.warnings)")
    }

    @Test func tooManyFilesIsRefusedAsAZipBomb() throws {
        let folder = try TemporaryFolder("epub-bomb")
        defer { folder.remove() }
        let url = try Self.make(folder, "bomb.epub", opf: Self.opf, files: (0...EPUBBook.maximumEntries).map { ("OEBPS/f\($0).txt", "") })
        #expect(throws: BookProblem.self) { try EPUBBook(url: url) }
        #expect(throws: BookProblem.self) { try EPUBBook(url: folder.url.appendingPathComponent("not-there.epub")) }
    }

    /// Standard Ebooks' The Wind in the Willows: one story, its 12 chapters as headings on their
    /// own pages, no title page, imprint, colophon or licence.
    @Test func theWindInTheWillowsIsOneStoryOfTwelveChapters() throws {
        let url = try #require(Self.book("wind-in-the-willows"), "the shared test data is missing")
        let book = try EPUBBook(url: url)
        #expect(book.title == "The Wind in the Willows")
        #expect(book.author == "Kenneth Grahame")
        #expect(book.language == "en")
        #expect(book.works.count == 1)
        let headings = book.works[0].blocks.compactMap { if case .heading(let text) = $0 { text } else { nil } }
        #expect(headings.count == 12)
        #expect(headings.first == "I: The River Bank")
        #expect(headings.last == "XII: The Return of Ulysses")
        let text = book.works[0].blocks.compactMap { if case .paragraph(let text) = $0 { text } else { nil } }.joined(separator: "\n")
        #expect(!text.contains("Standard Ebooks") && !text.contains("public domain"), "no imprint, colophon or licence")
    }

    /// Standard Ebooks' Fables: 284 fables in one file, each its own story.
    @Test func aesopsFablesAreTwoHundredEightyFourStories() throws {
        let url = try #require(Self.book("aesop-fables"), "the shared test data is missing")
        let book = try EPUBBook(url: url)
        #expect(book.works.count == 284)
        #expect(book.works.first?.title == "The Fox and the Grapes")
        #expect(try EPUBBook(url: url, split: false).works.count == 1, "--as-one")
        let stories = book.stories(bookID: "fables")
        #expect(Set(stories.map(\.id)).count == 284)
    }
}
