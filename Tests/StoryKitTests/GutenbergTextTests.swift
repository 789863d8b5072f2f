import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

/// Project Gutenberg text files: the licence stripped, a collection split into its tales.
@Suite struct GutenbergTextTests {
    static var englishFairyTales: URL? {
        TestPaths.shared?.appendingPathComponent("testdata/books/english-fairy-tales_7439-0.txt")
    }

    /// The real file (UTF-8 with a BOM, CRLF, curly quotes): 43 tales from Tom Tit Tot to The Three
    /// Heads of the Well, and nothing of the licence, the preface, the contents or the notes.
    @Test func englishFairyTalesSplitsIntoItsFortyThreeTales() throws {
        let url = try #require(Self.englishFairyTales, "the shared test data is missing")
        let text = GutenbergBook.decode(try Data(contentsOf: url))
        #expect(GutenbergBook.isGutenberg(text))
        let book = GutenbergBook(text: text, fallbackTitle: "english-fairy-tales")
        #expect(book.title == "English Fairy Tales")
        #expect(book.author == "Joseph Jacobs", "Anonymous, edited by Joseph Jacobs")
        #expect(book.language == "en")
        #expect(book.tales.count == 43)
        #expect(book.tales.first?.title == "Tom Tit Tot")
        #expect(book.tales.first?.paragraphs.first?.hasPrefix("Once upon a time there was a woman, and she baked five pies.") == true)
        #expect(book.tales.last?.title == "The Three Heads of the Well")
        #expect(book.tales.contains { $0.title == "Jack the Giant-Killer" })
        let all = book.tales.flatMap(\.paragraphs).joined(separator: "\n")
        for never in ["Project Gutenberg", "PROJECT GUTENBERG", "Produced by", "[Footnote", "NOTES AND REFERENCES", "OYEZ", "Who says that English folk"] {
            #expect(!all.contains(never), "«\(never)» is read")
        }
        // Every tale is a story the parser takes, with its own id.
        let stories = book.stories(bookID: "english-fairy-tales")
        #expect(Set(stories.map(\.id)).count == 43)
        for story in stories {
            let parsed = try StoryParser.parse(text: story.markdown, path: story.id + ".md")
            #expect(parsed.story.language == "en")
            #expect(!parsed.story.words.isEmpty)
        }
    }

    /// An older file: Latin-1, the "SMALL PRINT" and "End of the Project Gutenberg Etext" forms,
    /// no contents (one story).
    @Test func anOldLatinOneFileWithTheSmallPrintIsOneStory() throws {
        let text = """
            The Project Gutenberg Etext of Le Petit Conte
            Title: Le Petit Conte
            Author: Jean Dupont
            Language: French
            *END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*

            Il était une fois un petit chat.

            Il aimait la crème.

            End of the Project Gutenberg Etext of Le Petit Conte
            This etext is in the public domain.
            """
        let data = Data(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })  // Latin-1
        let decoded = GutenbergBook.decode(data)
        #expect(decoded.contains("Il était une fois"))
        let book = GutenbergBook(text: decoded, fallbackTitle: "conte")
        #expect(book.title == "Le Petit Conte")
        #expect(book.language == "fr")
        #expect(book.tales.count == 1)
        #expect(book.tales[0].paragraphs == ["Il était une fois un petit chat.", "Il aimait la crème."])
    }

    @Test func aFileWithoutMarkersIsNotGutenberg() {
        #expect(!GutenbergBook.isGutenberg("Title: A Story\n\nOnce upon a time.\n"))
        // A START marker deep inside a long text is not a header.
        #expect(!GutenbergBook.isGutenberg(String(repeating: "line\n", count: 700) + "*** START OF THE PROJECT GUTENBERG EBOOK X ***\n"))
    }
}
