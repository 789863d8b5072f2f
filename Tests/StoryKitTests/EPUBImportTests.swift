import Foundation
import StoryKitTestSupport
import Testing
import ZIPFoundation

@testable import StoryKit

/// EPUB books read as stories: real Standard Ebooks files, and small ones made here for each rule.
@Suite struct EPUBImportTests {
    static func book(_ name: String) -> URL { TestPaths.books.appendingPathComponent("\(name).epub") }

    static func make(_ folder: TemporaryFolder, _ name: String, opf: String, files: [(String, String)]) throws -> URL {
        try EPUBFixtures.make(folder.url.appendingPathComponent(name), opf: opf, files: files)
    }

    static func xhtml(_ body: String) -> String { EPUBFixtures.xhtml(body) }

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
        let url = try Self.make(
            folder, "little.epub", opf: Self.opf,
            files: [
                ("OEBPS/text/title.xhtml", Self.xhtml(#"<section epub:type="titlepage"><h1>The Little Book</h1><p>Published by Nobody</p></section>"#)),
                (
                    "OEBPS/text/one.xhtml",
                    Self.xhtml(
                        #"""
                        <h2>Chapter&nbsp;One</h2><p>It&rsquo;s a&nbsp;fine day.<a epub:type="noteref" href="notes.xhtml#n1">1</a></p>
                        <img src="../images/cat.png" alt="A grey cat on a wall"/><img src="../images/line.png" alt=""/>
                        <aside><p>A sidebar never read.</p></aside><p>The end of one.</p>
                        """#)
                ),
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
        #expect(
            blocks == [
                .heading("Chapter One"), .paragraph("It’s a fine day."), .picture("A grey cat on a wall"),
                .paragraph("The end of one."), .page, .heading("Chapter Two"), .paragraph("Second & last."),
            ])
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
        try add(
            "c.opf",
            Data(
                #"<package><metadata><title>Vieux</title></metadata><manifest><item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>"#
                    .utf8))
        let chapter = #"<?xml version="1.0" encoding="windows-1252"?><html><body><p>Le caf&#233; et le th"# + "\u{E9}" + #" « chaud »</p></body></html>"#
        try add("a.xhtml", try #require(chapter.data(using: .windowsCP1252)))
        let book = try EPUBBook(url: url)
        #expect(book.works.first?.blocks == [.paragraph("Le café et le thé « chaud »")], "\(book.warnings)")
    }

    /// A zip bomb is refused with a message: too many files, too much in all, or one chapter too
    /// large (that chapter only is skipped, named).
    @Test func zipBombsAreRefusedWithAMessage() throws {
        let folder = try TemporaryFolder("epub-bomb")
        defer { folder.remove() }
        let many = try Self.make(folder, "many.epub", opf: Self.opf, files: (0..<30).map { ("OEBPS/f\($0).txt", "") })
        #expect(throws: BookProblem.self) { try EPUBBook(url: many, limits: EPUBBook.Limits(entries: 20)) }
        let big = String(repeating: "All work and no play. ", count: 5_000)
        let url = try Self.make(
            folder, "big.epub", opf: Self.opf,
            files: [
                ("OEBPS/text/one.xhtml", Self.xhtml("<p>\(big)</p>")), ("OEBPS/text/two b.xhtml", Self.xhtml("<p>Small.</p>")),
            ])
        do {
            _ = try EPUBBook(url: url, limits: EPUBBook.Limits(totalBytes: 50_000))
            Issue.record("a book unpacking to more than the limit was read")
        } catch {
            #expect(error.description.contains("big.epub") && error.description.contains("zip bomb"), "\(error)")
        }
        let book = try EPUBBook(url: url, limits: EPUBBook.Limits(entryBytes: 50_000))
        #expect(book.works[0].blocks == [.paragraph("Small.")])
        #expect(book.warnings.contains { $0.contains("big.epub, OEBPS/text/one.xhtml") && $0.contains("chapter skipped") }, "\(book.warnings)")
        #expect(throws: BookProblem.self) { try EPUBBook(url: folder.url.appendingPathComponent("not-there.epub")) }
    }

    /// Standard Ebooks' The Wind in the Willows: one story, its 12 chapters as headings on their
    /// own pages, no title page, imprint, colophon or licence.
    @Test func theWindInTheWillowsIsOneStoryOfTwelveChapters() throws {
        let url = Self.book("wind-in-the-willows")
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
        let url = Self.book("aesop-fables")
        let book = try EPUBBook(url: url)
        #expect(book.works.count == 284)
        #expect(book.works.first?.title == "The Fox and the Grapes")
        #expect(try EPUBBook(url: url, split: false).works.count == 1, "--as-one")
        let stories = book.stories(bookID: "fables")
        #expect(Set(stories.map(\.id)).count == 284)
    }

    static func opf3(_ manifest: String, spine: String, metadata: String = "") -> String {
        """
        <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <metadata><dc:title>Tales &amp; Verses</dc:title><dc:creator id="a">Ann Author</dc:creator><meta refines="#a" property="role">aut</meta>
        <dc:language>en</dc:language>\(metadata)</metadata>
        <manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>\(manifest)</manifest>
        <spine>\(spine)</spine></package>
        """
    }

    /// A package that names its documents with `../` and percent-encoded names, and a nav that
    /// links to them the same way: every chapter is found, in order, and named by the nav.
    @Test func hrefsWithDotDotAndPercentEncodingAreResolved() throws {
        let folder = try TemporaryFolder("epub-hrefs")
        defer { folder.remove() }
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>Paths</dc:title><dc:language>en</dc:language></metadata>
            <manifest><item id="nav" href="../nav/toc%20page.xhtml" properties="nav" media-type="application/xhtml+xml"/>
            <item id="a" href="../Text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
            <item id="b" href="./../Text/./chapter%C3%A9.xhtml" media-type="application/xhtml+xml"/></manifest>
            <spine><itemref idref="a"/><itemref idref="b"/></spine></package>
            """
        let url = try EPUBFixtures.make(
            folder.url.appendingPathComponent("paths.epub"), opf: opf,
            files: [
                (
                    "nav/toc page.xhtml",
                    EPUBFixtures.xhtml(
                        #"<nav epub:type="toc"><ol><li><a href="../Text/chapter%201.xhtml">The First</a></li><li><a href="../Text/chapter%C3%A9.xhtml#top">The Second</a></li></ol></nav>"#
                    )
                ),
                ("Text/chapter 1.xhtml", EPUBFixtures.xhtml("<p>One fox ran.</p>")),
                ("Text/chapteré.xhtml", EPUBFixtures.xhtml("<p>Two owls flew.</p>")),
            ])
        let book = try EPUBBook(url: url)
        #expect(book.warnings.isEmpty, "\(book.warnings)")
        #expect(book.works.count == 1)
        #expect(book.works[0].blocks == [.heading("The First"), .paragraph("One fox ran."), .page, .heading("The Second"), .paragraph("Two owls flew.")])
    }

    /// A one-story book whose documents say they are French (xml:lang on their html element) is
    /// read in French although its package says English; without xml:lang dc:language holds.
    @Test func theDocumentsLanguageOverridesThePackages() throws {
        let folder = try TemporaryFolder("epub-lang")
        defer { folder.remove() }
        for (documentLanguage, expected) in [("fr", "fr"), (nil, "en")] as [(String?, String)] {
            let url = try EPUBFixtures.make(
                folder.url.appendingPathComponent("conte-\(expected).epub"),
                opf: EPUBFixtures.opf3(title: "Le Conte", author: "Ann Author", language: "en", documents: [("a", "a.xhtml"), ("b", "b.xhtml")]),
                files: [
                    (
                        "OEBPS/nav.xhtml",
                        EPUBFixtures.xhtml(#"<nav epub:type="toc"><ol><li><a href="a.xhtml">Un</a></li><li><a href="b.xhtml">Deux</a></li></ol></nav>"#)
                    ),
                    ("OEBPS/a.xhtml", EPUBFixtures.xhtml("<h1>Un</h1><p>Il était une fois un renard.</p>", language: documentLanguage)),
                    ("OEBPS/b.xhtml", EPUBFixtures.xhtml("<h1>Deux</h1><p>Le renard dormait.</p>", language: documentLanguage)),
                ])
            let book = try EPUBBook(url: url)
            #expect(book.language == expected)
            #expect(book.stories(bookID: "conte").map(\.language) == [expected])
        }
    }

    /// EPUB 3: works titled by the nav when they have no heading, each in its own language;
    /// verse lines, ruby, captions, the spaces between inline elements; note marks of every kind
    /// never read.
    @Test func anEPUB3CollectionReadsItsWorksAsTheNavNamesThem() throws {
        let folder = try TemporaryFolder("epub3")
        defer { folder.remove() }
        let url = try Self.make(
            folder, "tales.epub",
            opf: Self.opf3(
                #"<item id="t" href="tales.xhtml" media-type="application/xhtml+xml"/>"#,
                spine: #"<itemref idref="t"/>"#),
            files: [
                (
                    "OEBPS/nav.xhtml",
                    Self.xhtml(
                        #"""
                        <nav epub:type="toc"><ol><li><a href="tales.xhtml#rain">The&nbsp;Rain <span>Song</span></a></li>
                        <li><a href="tales.xhtml#fox">Le Renard</a></li></ol></nav>
                        """#)
                ),
                (
                    "OEBPS/tales.xhtml",
                    Self.xhtml(
                        #"""
                        <article id="rain" epub:type="z3998:poem"><p>Rain on the <em>roof</em> <strong>and</strong> the hill,<br/>
                        <span>rain on the window sill.</span></p>
                        <figure><img src="../img/rain.jpg" alt=""/><figcaption>The rain, drawn by Ann.</figcaption></figure></article>
                        <article id="fox" epub:type="z3998:fiction" xml:lang="fr"><p>Le <ruby>狐<rp>(</rp><rt>kitsune</rt><rp>)</rp></ruby> dort.<a href="#n1" epub:type="noteref">1</a>
                        Il rêve.<a href="notes.xhtml#n2"><sup>2</sup></a> Encore<sup>[3]</sup>.</p>
                        <p class="footnote">3. A note in an EPUB 2 way.</p><span epub:type="pagebreak" title="4">4</span></article>
                        """#)
                ),
            ])
        let book = try EPUBBook(url: url)
        #expect(book.title == "Tales & Verses")
        #expect(book.author == "Ann Author")
        #expect(book.works.map(\.title) == ["The Rain Song", "Le Renard"])
        #expect(book.works[0].blocks == [.paragraph("Rain on the roof and the hill,\nrain on the window sill."), .paragraph("The rain, drawn by Ann.")])
        #expect(book.works[1].blocks == [.paragraph("Le 狐 dort. Il rêve. Encore.")])
        let stories = book.stories(bookID: "tales")
        #expect(stories.map(\.id) == ["tales-the-rain-song", "tales-le-renard"])
        #expect(stories.map(\.language) == ["en", "fr"], "a work's xml:lang")
        let poem = try StoryParser.parse(text: stories[0].markdown, path: "rain.md").story
        #expect(poem.text.contains("the hill,\nrain on"), "verse keeps its lines")
        #expect(poem.summary == "From Tales & Verses.")
        #expect(try EPUBBook(url: url, split: false).works.count == 1, "--as-one")
    }

    /// An EPUB 2 novel with only an NCX: a chapter without a heading is named by it.
    @Test func anNCXNamesAChapterWithoutAHeading() throws {
        let folder = try TemporaryFolder("epub-ncx")
        defer { folder.remove() }
        let url = try Self.make(
            folder, "novel.epub", opf: Self.opf,
            files: [
                ("OEBPS/text/title.xhtml", Self.xhtml("<p>Once there was a road.</p>")),
                ("OEBPS/text/one.xhtml", Self.xhtml("<p>It went on.</p>")),
                ("OEBPS/text/two b.xhtml", Self.xhtml("<h2>The End of the Road</h2><p>It stopped.</p>")),
                (
                    "OEBPS/toc.ncx",
                    """
                    <?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap>
                    <navPoint id="a"><navLabel><text>Beginning</text></navLabel><content src="text/title.xhtml"/></navPoint>
                    <navPoint id="b"><navLabel><text>The Middle</text></navLabel><content src="text/one.xhtml"/>
                      <navPoint id="b1"><navLabel><text>A Part</text></navLabel><content src="text/one.xhtml#part"/></navPoint></navPoint>
                    <navPoint id="c"><navLabel><text>Ignored: the chapter has a heading</text></navLabel><content src="text/two%20b.xhtml"/></navPoint>
                    </navMap></ncx>
                    """
                ),
            ])
        let book = try EPUBBook(url: url)
        #expect(book.works.count == 1)
        #expect(
            book.works[0].blocks == [
                .heading("Beginning"), .paragraph("Once there was a road."), .page,
                .heading("The Middle"), .paragraph("It went on."), .page,
                .heading("The End of the Road"), .paragraph("It stopped."),
            ])
    }

    /// A fixed-layout picture book: one page per document, its picture described, text in DOM
    /// order; its Media Overlays are said to be unsupported, its text still read.
    @Test func aFixedLayoutPictureBookIsOnePagePerDocument() throws {
        let folder = try TemporaryFolder("epub-fxl")
        defer { folder.remove() }
        let pages = (1...3).map { number in
            (
                "OEBPS/p\(number).xhtml",
                Self.xhtml(
                    #"<div class="page"><img src="p\#(number).jpg" alt="Page \#(number): a bear in the snow."/><div style="position:absolute"><p>Bear walks, step \#(number).</p></div></div>"#
                )
            )
        }
        let manifest = (1...3).map {
            #"<item id="p\#($0)" href="p\#($0).xhtml" media-type="application/xhtml+xml" media-overlay="s\#($0)"/><item id="s\#($0)" href="p\#($0).smil" media-type="application/smil+xml"/>"#
        }.joined()
        let opf = Self.opf3(
            manifest, spine: (1...3).map { #"<itemref idref="p\#($0)"/>"# }.joined(),
            metadata: #"<meta property="rendition:layout">pre-paginated</meta>"#)
        let url = try Self.make(folder, "bear.epub", opf: opf, files: pages + [("OEBPS/nav.xhtml", Self.xhtml(""))])
        let book = try EPUBBook(url: url)
        #expect(book.fixedLayout)
        #expect(book.works.count == 1)
        let story = try StoryParser.parse(text: try #require(book.stories(bookID: "bear").first).markdown, path: "bear.md").story
        #expect(story.pages.count == 3)
        #expect(story.pictures.map(\.text) == ["Page 1: a bear in the snow.", "Page 2: a bear in the snow.", "Page 3: a bear in the snow."])
        #expect(story.text.contains("Bear walks, step 3."))
        #expect(book.warnings.contains { $0.contains("Media Overlays") }, "\(book.warnings)")
    }

    /// A chapter that is not well-formed XML is skipped and named with the line where it breaks,
    /// also one FoundationXML could recover from (a tag left open): the EPUB reading-system rule
    /// (W3C test pub-xml-non-validating_unclosed) is that it is an error, not half a chapter read
    /// as if whole. The rest is imported.
    @Test func aBrokenChapterIsSkippedAndNamed() throws {
        let folder = try TemporaryFolder("epub-broken")
        defer { folder.remove() }
        let url = try Self.make(
            folder, "broken.epub", opf: Self.opf,
            files: [
                ("OEBPS/text/title.xhtml", Self.xhtml("<p>Whole.</p>")),
                ("OEBPS/text/one.xhtml", Self.xhtml("<p a=>Broken.</p>")),
                ("OEBPS/text/two b.xhtml", Self.xhtml("<p>Good <b>end.</p><p>Unclosed.</p>")),
            ])
        let book = try EPUBBook(url: url)
        #expect(book.works[0].blocks == [.paragraph("Whole.")], "nothing of a chapter that is not well-formed is read")
        #expect(book.warnings.contains { $0.contains("broken.epub, OEBPS/text/one.xhtml") && $0.contains("chapter skipped") }, "\(book.warnings)")
        #expect(
            book.warnings.contains { $0.contains("broken.epub, OEBPS/text/two b.xhtml: not well-formed XHTML (line 3)") && $0.contains("chapter skipped") },
            "\(book.warnings)")
    }

    /// Entry names in CP437 (the zip default) and in UTF-8 without the zip's UTF-8 flag (what many
    /// tools write) both find the files the package names.
    @Test func entryNamesInCP437OrUnflaggedUTF8AreFound() throws {
        let folder = try TemporaryFolder("epub-cp437")
        defer { folder.remove() }
        let opf = #"""
            <package><metadata><title>Noms</title></metadata><manifest><item id="a" href="caf%C3%A9.xhtml"/><item id="b" href="th%C3%A9.xhtml"/></manifest>
            <spine><itemref idref="a"/><itemref idref="b"/></spine></package>
            """#
        let url = try Self.make(
            folder, "noms.epub", opf: opf,
            files: [
                ("OEBPS/cafX.xhtml", Self.xhtml("<p>Un café.</p>")),
                ("OEBPS/thé.xhtml", Self.xhtml("<p>Un thé.</p>")),
            ])
        // Every name unflagged; "cafX" becomes "caf" + CP437 é (0x82), "thé" stays UTF-8 bytes.
        var bytes = [UInt8](try Data(contentsOf: url))
        for index in 0..<(bytes.count - 10) {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B {
                if bytes[index + 2] == 3, bytes[index + 3] == 4 { bytes[index + 7] &= ~0x08 }
                if bytes[index + 2] == 1, bytes[index + 3] == 2 { bytes[index + 9] &= ~0x08 }
            }
            if Array(bytes[index..<index + 9]) == Array("cafX.xhtm".utf8) { bytes[index + 3] = 0x82 }
        }
        try Data(bytes).write(to: url)
        let book = try EPUBBook(url: url)
        #expect(book.works[0].blocks == [.paragraph("Un café."), .page, .paragraph("Un thé.")], "\(book.warnings)")
    }
}
