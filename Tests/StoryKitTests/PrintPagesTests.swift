import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Print page numbers (issue 46 item 2): kept by the import from DAISY 2.02, DAISY 3 and EPUB 3
/// books, written in the story file's header, read back into the story, never in its text.
@Suite struct PrintPagesTests {
    /// A book story written as a story file and parsed back (what `import` writes and checks).
    static func parsed(_ story: BookStory) throws -> ParsedStory {
        try StoryParser.parse(text: story.markdown, path: "/stories/\(story.id).md")
    }

    /// The text each print page starts with, up to its first sentence's end.
    static func starts(_ story: Story) -> [String: String] {
        let scalars = Array(story.text.unicodeScalars)
        var starts: [String: String] = [:]
        for page in story.printPages {
            let sentence = story.sentences.first { $0.range.end > page.position }
            let end = sentence.map { max($0.range.end, page.position) } ?? scalars.count
            starts[page.label] = String(String.UnicodeScalarView(scalars[page.position..<end]))
        }
        return starts
    }

    /// A copy of `book` in `folder` with its file `name` changed by `edit` (which must change it).
    static func edited(_ book: URL, in folder: TemporaryFolder, _ name: String, _ edit: (String) throws -> String) throws -> URL {
        let copy = try DAISYBookTests.copy(book, into: folder)
        let file = copy.appendingPathComponent(name)
        let text = try String(contentsOf: file, encoding: .utf8)
        let changed = try edit(text)
        #expect(changed != text, "\(name) unchanged")
        try changed.write(to: file, atomically: true, encoding: .utf8)
        return copy
    }

    /// The DAISY 3 test book with pages "i" (at its title) and "2", read and parsed back.
    static func happyPages(_ book: URL) throws -> (DAISYBook, ParsedStory) {
        let read = try DAISYBook(url: book)
        #expect(read.printPages.map(\.label) == ["i", "2"])
        let parsed = try Self.parsed(try #require(read.stories(bookID: "happy").first))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        #expect(Self.starts(parsed.story)["i"] == "Don't Worry, Be Happy")
        return (read, parsed)
    }

    /// The fixture DAISY 2.02 book's three pages: before the first heading, between two
    /// paragraphs, after the second heading; the numbers are nowhere in the text.
    @Test func aDAISY202BookKeepsItsThreePages() throws {
        let book = try DAISYBook(url: DAISYBookTests.pip)
        #expect(
            book.printPages == [
                BookPage(label: "1", block: 0, offset: 0), BookPage(label: "2", block: 2, offset: 0), BookPage(label: "3", block: 4, offset: 0),
            ])
        let story = try #require(book.stories(bookID: "pip").first)
        #expect(story.markdown.contains("print-pages:\n- 1:0 1\n- 3:0 2\n- 5:0 3\n"))
        let parsed = try Self.parsed(story)
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        #expect(parsed.story.printPages.map(\.label) == ["1", "2", "3"])
        #expect(
            Self.starts(parsed.story) == ["1": "Pip goes out", "2": "She sniffed a buttercup.", "3": "The sun came out."])
        #expect(!parsed.story.words.contains { ["1", "2", "3"].contains($0.text) }, "never read aloud")
    }

    /// A DAISY 2.02 book whose text marks no pages takes them from its NCC's page spans, each
    /// where the SMIL `par` it links to starts; `page N` and where-am-I then work as with marks.
    @Test func aDAISY202BookWithoutPageMarksTakesItsNCCsPages() throws {
        let folder = try TemporaryFolder("daisy-ncc-pages")
        defer { folder.remove() }
        let book = try Self.edited(DAISYBookTests.pip, in: folder, "content.html") { html in
            html.replacing(try Regex(#"<span class="page-normal" id="page\d">\d</span>\n"#), with: "")
        }
        let read = try DAISYBook(url: book)
        #expect(read.problems.isEmpty && !read.audioOnly)
        #expect(
            read.printPages == [
                BookPage(label: "1", block: 1, offset: 0), BookPage(label: "2", block: 2, offset: 0), BookPage(label: "3", block: 4, offset: 0),
            ])
        let parsed = try Self.parsed(try #require(read.stories(bookID: "pip").first))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        #expect(Self.starts(parsed.story) == ["1": "Pip the snail woke up early.", "2": "She sniffed a buttercup.", "3": "The sun came out."])
    }

    /// An audio-only DAISY 2.02 book (its content document gone): each NCC page is at the heading
    /// whose section holds its `par`.
    @Test func anAudioOnlyDAISY202BookTakesItsNCCsPagesAtTheirHeadings() throws {
        let folder = try TemporaryFolder("daisy-audio-pages")
        defer { folder.remove() }
        let book = try DAISYBookTests.copy(DAISYBookTests.pip, into: folder)
        try FileManager.default.removeItem(at: book.appendingPathComponent("content.html"))
        let read = try DAISYBook(url: book)
        #expect(read.audioOnly)
        #expect(read.blocks == [.heading("Pip goes out"), .page, .heading("Pip goes home")])
        #expect(
            read.printPages == [
                BookPage(label: "1", block: 0, offset: 0), BookPage(label: "2", block: 0, offset: 0), BookPage(label: "3", block: 2, offset: 0),
            ])
        let parsed = try Self.parsed(try #require(read.stories(bookID: "pip").first))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        #expect(parsed.story.printPages.map(\.label) == ["1", "2", "3"])
        #expect(Self.starts(parsed.story)["3"] == "Pip goes home")
    }

    /// DAISY 3: a text without `pagenum`s takes the NCX's `pageList` (its labels as written).
    @Test func aDAISY3BookWithoutPagenumsTakesItsNCXsPageList() throws {
        let folder = try TemporaryFolder("daisy3-pagelist")
        defer { folder.remove() }
        let list = """
            </navMap>
            <pageList><navLabel><text>Pages</text></navLabel>
            <pageTarget id="pt1" type="front" value="1" playOrder="1"><navLabel><text>i</text></navLabel><content src="speechgen0001.smil#doctitle"/></pageTarget>
            <pageTarget id="pt2" type="normal" value="2" playOrder="4"><navLabel><text>2</text></navLabel><content src="speechgen0003.smil#tcp16"/></pageTarget>
            </pageList>
            """
        let book = try Self.edited(DAISYBookTests.happy3, in: folder, "navigation.ncx") { $0.replacingOccurrences(of: "</navMap>", with: list) }
        let (read, parsed) = try Self.happyPages(book)
        #expect(Self.starts(parsed.story)["2"] == "Versa media, pre peripetum")
        #expect(!read.blocks.contains(.heading("Pages")) && !read.blocks.contains(.heading("i")), "the page list is no heading")
    }

    /// DAISY 3's `pagenum`: one before a heading, one in the middle of a paragraph (its page
    /// starts at the next sentence), labels as printed ("i").
    @Test func aDAISY3BookKeepsItsPagenums() throws {
        let folder = try TemporaryFolder("daisy3-pages")
        defer { folder.remove() }
        let book = try Self.edited(DAISYBookTests.happy3, in: folder, "content.xml") { xml in
            xml.replacingOccurrences(of: #"<h1 id="h1classtitle""#, with: #"<pagenum id="p1" page="front">i</pagenum><h1 id="h1classtitle""#)
                .replacingOccurrences(of: #"<sent id="dtb4""#, with: #"<pagenum id="p2" page="normal">2</pagenum> <sent id="dtb4""#)
        }
        let (_, parsed) = try Self.happyPages(book)
        #expect(Self.starts(parsed.story)["2"] == "originally Performed by Bobby McFerrin.")
        #expect(!parsed.story.text.contains("From the Movie \"Cocktails\". 2"), "the number is not text")
    }

    /// EPUB 3: page breaks (`epub:type="pagebreak"` and `role="doc-pagebreak"`) labelled by the
    /// nav's page list ("xii" for a break whose own text says otherwise), across two documents.
    @Test func anEPUB3BookKeepsItsPageListsPages() throws {
        let folder = try TemporaryFolder("epub-pages")
        defer { folder.remove() }
        let nav = EPUBFixtures.xhtml(
            """
            <nav epub:type="toc"><ol><li><a href="one.xhtml">One</a></li><li><a href="two.xhtml">Two</a></li></ol></nav>
            <nav epub:type="page-list"><ol><li><a href="one.xhtml#pg11">xi</a></li><li><a href="one.xhtml#pg12">xii</a></li>
            <li><a href="two.xhtml#pg13">13</a></li></ol></nav>
            """)
        let one = EPUBFixtures.xhtml(
            """
            <span epub:type="pagebreak" id="pg11" title="xi"/><h1>The Owl</h1><p>The owl sat still. The moon rose
            <span role="doc-pagebreak" id="pg12">12</span> over the hill. She blinked.</p>
            """)
        let two = EPUBFixtures.xhtml(#"<h1>The Mouse</h1><p>A mouse ran by.</p><div epub:type="pagebreak" id="pg13" aria-label="13"></div><p>It hid.</p>"#)
        let url = try EPUBFixtures.make(
            folder.url.appendingPathComponent("owl.epub"),
            opf: EPUBFixtures.opf3(title: "Owl", author: "A", language: "en", documents: [("one", "one.xhtml"), ("two", "two.xhtml")]),
            files: [("OEBPS/nav.xhtml", nav), ("OEBPS/one.xhtml", one), ("OEBPS/two.xhtml", two)])
        let book = try EPUBBook(url: url)
        #expect(book.printPages.map(\.label) == ["xi", "xii", "13"])
        let parsed = try Self.parsed(try #require(book.stories(bookID: "owl").first))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        let starts = Self.starts(parsed.story)
        #expect(starts == ["xi": "The Owl", "xii": "over the hill.", "13": "It hid."], "\(starts)")
        #expect(parsed.story.text.contains("The moon rose over the hill."), "the number is not text")
    }

    /// A hand-written header: entries out of the text or not of the form are named and left out;
    /// the story still loads.
    @Test func badEntriesAreWarningsAndLeftOut() throws {
        let text = """
            ---
            title: Pages
            print-pages:
            - 1:0 1
            - 2:4 two
            - 9:0 9
            - twelve
            ---

            One sentence here.

            Two more words.
            """
        let parsed = try StoryParser.parse(text: text, path: "/s/pages.md")
        #expect(parsed.story.printPages == [PrintPage(label: "1", position: 0), PrintPage(label: "two", position: 24)])
        #expect(parsed.warnings.map(\.kind) == [.badPrintPage, .badPrintPage])
        #expect(parsed.warnings.compactMap(\.line).sorted() == [6, 7])
    }
}
