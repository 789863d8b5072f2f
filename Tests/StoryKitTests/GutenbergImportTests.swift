import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Project Gutenberg text files: the licence stripped, a collection split into its tales.
@Suite struct GutenbergImportTests {
    static var englishFairyTales: URL { TestPaths.books.appendingPathComponent("english-fairy-tales_7439-0.txt") }

    /// The real file (UTF-8 with a BOM, CRLF, curly quotes): 43 tales from Tom Tit Tot to The Three
    /// Heads of the Well, and nothing of the licence, the preface, the contents or the notes.
    @Test func englishFairyTalesSplitsIntoItsFortyThreeTales() throws {
        let url = Self.englishFairyTales
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

    /// A small collection with every trap: a header title on two lines, "Produced by" notes, a
    /// contents list, a part heading with fewer blank lines than a tale's, verse, a `* * *` break,
    /// an illustration, a footnote, italics, Markdown-looking text, and an afterword after `*****`.
    static let collection = """
        The Project Gutenberg EBook of Small Tales
        Title: Small Tales
               and Other Stories
        Author: Various
        Editor: Ann Editor
        Language: German
        *** START OF THE PROJECT GUTENBERG EBOOK SMALL TALES ***
        Produced by Somebody
        and the Online Distributed Proofreading Team



        CONTENTS

        THE FIRST TALE. THE SECOND TALE.




        THE FIRST TALE


        Once upon a time a _very_ small fox[Footnote: A fennec.] sat
        on a hill.

        [Illustration: The fox on the hill.]

          Twinkle, twinkle, little star,
          How I wonder what you are!

        * * *

        # Not a heading, 3 * 4 = 12.


        PART TWO

        The fox went home.




        THE SECOND TALE


        A short second tale.

        *****

        Afterword by the editor, never a tale.
        *** END OF THE PROJECT GUTENBERG EBOOK SMALL TALES ***
        Licence text.
        """

    @Test func aSmallCollectionKeepsTheTalesAndLeavesOutTheRest() throws {
        let book = GutenbergBook(text: Self.collection, fallbackTitle: "small")
        #expect(book.title == "Small Tales and Other Stories", "a title continued on an indented line")
        #expect(book.author == "Ann Editor", "Various, edited by Ann Editor")
        #expect(book.language == "de")
        #expect(book.tales.map(\.title) == ["The First Tale", "The Second Tale"])
        #expect(
            book.tales[0].blocks == [
                .paragraph("Once upon a time a very small fox sat on a hill."),
                .picture("The fox on the hill."),
                .paragraph("Twinkle, twinkle, little star,\nHow I wonder what you are!"),
                .page,
                .paragraph("# Not a heading, 3 * 4 = 12."),
                .page,
                .heading("Part Two"),
                .paragraph("The fox went home."),
            ])
        #expect(book.tales[1].paragraphs == ["A short second tale."], "the afterword after ***** is not a tale's")
        // Written as stories and read back, the text is the same: nothing is taken as Markdown.
        let stories = book.stories(bookID: "small-tales")
        #expect(stories.map(\.id) == ["small-tales-the-first-tale", "small-tales-the-second-tale"])
        let parsed = try StoryParser.parse(text: stories[0].markdown, path: "first.md").story
        #expect(parsed.text.contains("# Not a heading, 3 * 4 = 12."))
        #expect(parsed.text.contains("Twinkle, twinkle, little star,\nHow I wonder what you are!"), "verse keeps its lines")
        #expect(parsed.pages.count == 3, "the break and the part")
        #expect(parsed.pictures.count == 1)
        #expect(parsed.language == "de")
        #expect(parsed.summary == "From Small Tales and Other Stories (Project Gutenberg).")
        #expect(parsed.licence == "Project Gutenberg License, www.gutenberg.org/license", "the licence travels with each tale")
        #expect(!parsed.text.contains("Somebody") && !parsed.text.contains("fennec"))
    }

    /// A book that is not a collection is one story, without its contents list or production note.
    @Test func aNovelIsOneStoryWithoutItsContents() {
        let text = """
            Title: The Long Road
            Language: English
            *** START OF THE PROJECT GUTENBERG EBOOK THE LONG ROAD ***
            Produced by Somebody



            CONTENTS

            CHAPTER I. The start



            CHAPTER I. THE START

            It began at dawn.
            *** END OF THE PROJECT GUTENBERG EBOOK THE LONG ROAD ***
            """
        let book = GutenbergBook(text: text, fallbackTitle: "road")
        #expect(book.tales.count == 1)
        #expect(book.tales[0].title == "The Long Road")
        #expect(book.tales[0].blocks == [.heading("Chapter I. The Start"), .paragraph("It began at dawn.")])
    }

    @Test(arguments: [("English", "en"), ("French", "fr"), ("Finnish", "fi"), ("English, Spanish", "en"), ("Klingon", nil)] as [(String, String?)])
    func languageNamesBecomeCodes(name: String, code: String?) {
        #expect(GutenbergFile.languageCode(name) == code)
    }
}
