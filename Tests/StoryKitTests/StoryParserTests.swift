import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Parses `text` as the file `path` (the extension picks the format).
func parse(_ text: String, path: String = "stories/test.md") throws(StoryProblem) -> ParsedStory {
    try StoryParser.parse(data: Data(text.utf8), path: path)
}

/// The problem `body` throws, or nil when it throws none.
func problem(_ body: () throws -> ParsedStory) -> StoryProblem? {
    do {
        _ = try body()
        return nil
    } catch let problem as StoryProblem {
        return problem
    } catch {
        Issue.record("not a StoryProblem: \(error)")
        return nil
    }
}

@Suite struct StoryParserTests {
    // MARK: - Front matter

    @Test func frontMatterKeys() throws {
        let parsed = try parse(
            """
            ---
            title: The Lighthouse Cat
            author: Magical Stories
            ages: 4-7
            tags: animals, Sea, friendship
            language: en_US
            summary: A small grey cat keeps the lamp company.
            ---

            Once upon a time.
            """)
        let story = parsed.story
        #expect(story.id == "test")
        #expect(story.title == "The Lighthouse Cat")
        #expect(story.author == "Magical Stories")
        #expect(story.ages == AgeRange(lower: 4, upper: 7))
        #expect(story.tags == ["animals", "sea", "friendship"])
        #expect(story.language == "en-us")
        #expect(story.summary == "A small grey cat keeps the lamp company.")
        #expect(story.text == "Once upon a time.")
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
    }

    @Test(arguments: [
        ("4-7", AgeRange(lower: 4, upper: 7)),
        ("4–7", AgeRange(lower: 4, upper: 7)),
        ("4 to 7", AgeRange(lower: 4, upper: 7)),
        ("5", AgeRange(lower: 5, upper: 5)),
        ("5+", AgeRange(lower: 5, upper: 18)),
    ])
    func ages(_ written: String, _ expected: AgeRange) throws {
        let story = try parse("---\ntitle: T\nages: \(written)\n---\n\nText.\n").story
        #expect(story.ages == expected)
    }

    @Test(arguments: [
        "tags: animals, space",
        "tags: [animals, space]",
        "tags: [\"animals\", 'space']",
        "tags:\n  - animals\n  - space",
        "tags: Animals,SPACE",
    ])
    func tagForms(_ lines: String) throws {
        let story = try parse("---\ntitle: T\n\(lines)\n---\n\nText.\n").story
        #expect(story.tags == ["animals", "space"])
    }

    @Test(arguments: [("en", "en"), ("en_US", "en-us"), ("EN-gb", "en-gb"), ("pt-BR", "pt-br"), ("fr", "fr")])
    func languageNormalised(_ written: String, _ expected: String) throws {
        let story = try parse("---\ntitle: T\nlanguage: \(written)\n---\n\nText.\n").story
        #expect(story.language == expected)
    }

    /// A work of an imported collection says its book and its place in it; a place that is not
    /// a whole number from 1 is a warning, not a failure; both survive the library's cache.
    @Test func bookAndPartSayWhereAWorkComesFrom() throws {
        let parsed = try parse("---\ntitle: The Fox\nbook: Fables\npart: 12\n---\n\nA fox.\n")
        #expect(parsed.story.book == "Fables")
        #expect(parsed.story.part == 12)
        #expect(parsed.warnings.isEmpty)
        let odd = try parse("---\ntitle: The Fox\npart: twelve\n---\n\nA fox.\n")
        #expect(odd.story.part == nil)
        #expect(odd.warnings.map(\.kind) == [.badPart])

        let folder = try TemporaryFolder("book-part")
        defer { folder.remove() }
        let works = ["Zebra", "Apple", "Moon"]
        for (index, title) in works.enumerated() {
            let story = BookStory(id: title.lowercased(), title: title, author: nil, language: "en", book: "Fables", blocks: [.paragraph("A tale.")])
            var numbered = BookStory.numbered([story])[0]
            numbered.part = index + 1
            try numbered.markdown.write(to: folder.url.appendingPathComponent("\(title).md"), atomically: true, encoding: .utf8)
        }
        let cache = folder.url.appendingPathComponent("cache")
        for _ in 0..<2 {  // the second load reads the cache
            let library = StoryLibrary.load(folders: [folder.path], cache: StoryCache(url: cache))
            guard case .success(let entries) = library.stories(ofBook: "fab") else {
                Issue.record("no book")
                return
            }
            #expect(entries.map(\.title) == works, "the book's order, not the titles'")
        }
    }

    @Test func languageDefaultsToEnglishAndAnInvalidOneWarns() throws {
        #expect(try parse("---\ntitle: T\n---\n\nText.\n").story.language == "en")
        let parsed = try parse("---\ntitle: T\nlanguage: Klingon!\n---\n\nText.\n")
        #expect(parsed.story.language == "en")
        let warning = try #require(parsed.warnings.first)
        #expect(warning.kind == .badLanguage)
        #expect(warning.line == 3)
        #expect(warning.description.hasPrefix("stories/test.md, line 3: warning:"))
    }

    @Test func plainTextHeaderLikeTheCorpus() throws {
        let parsed = try parse(
            """
            Title: The Fox and the Grapes
            Author: Aesop (translated by V. S. Vernon Jones, 1912)
            Source: github:standardebooks/aesop_fables
            Language: en

            A hungry Fox saw some fine bunches of Grapes.

            “I thought those Grapes were ripe,” he said.
            """, path: "corpus/01-the-fox-and-the-grapes.txt")
        let story = parsed.story
        #expect(story.id == "01-the-fox-and-the-grapes")
        #expect(story.title == "The Fox and the Grapes")
        #expect(story.author == "Aesop (translated by V. S. Vernon Jones, 1912)")
        #expect(story.language == "en")
        #expect(story.paragraphs.map(\.text) == ["A hungry Fox saw some fine bunches of Grapes.", "“I thought those Grapes were ripe,” he said."])
        #expect(story.paragraphs.map(\.line) == [6, 8])
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
    }

    @Test func plainTextKeepsMarkdownCharactersLiterally() throws {
        let story = try parse("Title: T\n\n# Not a heading\n\n*not emphasis* and ---\n", path: "x.txt").story
        #expect(story.blocks.map(\.kind) == [.paragraph, .paragraph])
        #expect(story.text == "# Not a heading\n\n*not emphasis* and ---")
    }

    @Test func markdownWithoutFrontMatterTakesItsFirstHeadingAsTitle() throws {
        let story = try parse("# The Snail Who Wanted to Race\n\nSlowly, Shelly set off.\n\n## Chapter two\n\nShe won.\n").story
        #expect(story.title == "The Snail Who Wanted to Race")
        // The title is not also the first block of the body.
        #expect(story.blocks.map(\.text) == ["Slowly, Shelly set off.", "Chapter two", "She won."])
    }

    @Test func headingLevels() throws {
        let story = try parse("---\ntitle: T\n---\n\n# One\n\n## Two ##\n\n### Three\n\nText.\n\n#hashtag is text\n").story
        #expect(story.blocks.map(\.kind) == [.heading(level: 1), .heading(level: 2), .heading(level: 3), .paragraph, .paragraph])
        #expect(story.blocks.map(\.text) == ["One", "Two", "Three", "Text.", "#hashtag is text"])
    }

    @Test func thematicBreakStartsANewPage() throws {
        let story = try parse("---\ntitle: T\n---\n\nPage one.\n\n---\n\nPage two.\n\n* * *\n\nPage three.\n\n___\n").story
        #expect(story.pages.count == 3)
        #expect(story.pages.map(\.index) == [0, 1, 2])
        #expect(story.pages.map { $0.blocks.map(\.text) } == [["Page one."], ["Page two."], ["Page three."]])
        #expect(StoryChecks.violations(in: story).isEmpty)
    }

    @Test func picturesSpeakTheirDescriptionAndFindTheirFile() throws {
        let folder = try TemporaryFolder("pictures")
        defer { folder.remove() }
        try folder.write("pictures/cat.art", " /\\_/\\\n( o.o )\n")
        let file = try folder.write(
            "cat.md",
            """
            ---
            title: Cat
            ---

            The cat sat.

            ![A grey cat *asleep* on a rail.](pictures/cat.art)

            ![A dog that was never drawn.](pictures/dog.art)

            ![A bird with no file.]()
            """)
        let parsed = try StoryParser.parse(contentsOf: file, path: file.path)
        let pictures = parsed.story.pictures
        #expect(pictures.map(\.text) == ["A grey cat asleep on a rail.", "A dog that was never drawn.", "A bird with no file."])
        #expect(pictures.map(\.kind) == [.picture(file: "pictures/cat.art"), .picture(file: nil), .picture(file: nil)])
        // The description is spoken: it is part of the text, with sentences and words.
        #expect(parsed.story.sentences.map(\.text).contains("A grey cat asleep on a rail."))
        // Picture descriptions are not counted as the story's words.
        #expect(parsed.story.wordCount == 3)
        #expect(parsed.warnings.count == 1)
        let warning = try #require(parsed.warnings.first)
        #expect(warning.kind == .pictureFileMissing)
        #expect(warning.severity == .warning)
        #expect(warning.line == 9)
        #expect(warning.description.contains(file.path))
        #expect(warning.message.contains("pictures/dog.art"))
    }

    @Test func pictureOutsideTheStoryFolderIsRefused() throws {
        let parsed = try parse("---\ntitle: T\n---\n\n![A key.](../../etc/passwd)\n\nText.\n")
        #expect(parsed.story.pictures.first?.kind == .picture(file: nil))
        #expect(parsed.warnings.map(\.kind) == [.pictureFileMissing])
    }

    @Test func emphasisIsStrippedAndItsRangesRecorded() throws {
        let story = try parse("---\ntitle: T\n---\n\nThe *big* dog said **no** and _meant_ it; snake_case stays, a lone * too.\n").story
        let block = try #require(story.blocks.first)
        #expect(block.text == "The big dog said no and meant it; snake_case stays, a lone * too.")
        #expect(block.emphasis.map { story.text.scalars(in: $0) } == ["big", "no", "meant"])
        #expect(StoryChecks.violations(in: story).isEmpty)
    }

    @Test func linksBecomeTheirText() throws {
        let story = try parse("---\ntitle: T\n---\n\nRead [the owl’s book](https://example.com/owl) tonight. A `code` span and a \\*star\\*.\n").story
        #expect(story.text == "Read the owl’s book tonight. A code span and a *star*.")
    }

    @Test func verseKeepsItsLineBreaks() throws {
        let story = try parse("---\ntitle: T\n---\n\nTwinkle, twinkle, little star,\n  How I wonder what you are!\n\nThe end.\n").story
        #expect(story.blocks.first?.text == "Twinkle, twinkle, little star,\nHow I wonder what you are!")
        #expect(story.text == "Twinkle, twinkle, little star,\nHow I wonder what you are!\n\nThe end.")
    }

    @Test func blocksRememberTheirLines() throws {
        let story = try parse("---\ntitle: T\n---\n\n# Chapter\n\nFirst line\nsecond line.\n\nNext.\n").story
        #expect(story.blocks.map(\.line) == [5, 7, 10])
    }

    // MARK: - Text and ranges

    static let awkwardText = """
        “Help!” cried Pip’s friend. “I don’t like star-shaped clouds.”

        There were 3,000 stars, and Robot K-9 counted them all. The café was
        open; the cafe\u{301} was not. 🌻 The farmer 🧑‍🌾 waved: “Olé!”

        ¿Dónde está la niña? ¡Aquí!
        """

    @Test func everyRangeMapsBackToItsText() throws {
        let story = try parse("---\ntitle: T\n---\n\n# Chapter *one*\n\n\(Self.awkwardText)\n\n---\n\n![A sunflower 🌻 by Pip’s door.]()\n")
            .story
        #expect(story.text == story.blocks.map(\.text).joined(separator: "\n\n"))
        #expect(StoryChecks.violations(in: story) == [])
        #expect(story.sentences.count >= 8)
    }

    @Test func wordsAreWhatAReaderSees() throws {
        let story = try parse("Title: T\n\n\(Self.awkwardText)\n", path: "t.txt").story
        #expect(StoryChecks.violations(in: story) == [])
        let words = story.words.map(\.text)
        #expect(
            words == [
                "Help", "cried", "Pip’s", "friend", "I", "don’t", "like", "star-shaped", "clouds",
                "There", "were", "3,000", "stars", "and", "Robot", "K-9", "counted", "them", "all", "The", "café", "was",
                "open", "the", "cafe\u{301}", "was", "not", "🌻", "The", "farmer", "🧑‍🌾", "waved", "Olé",
                "Dónde", "está", "la", "niña", "Aquí",
            ])
        // The decomposed é stays two scalars (what the file says is what is spoken and counted);
        // the farmer emoji is three. (String's == would not tell café from cafe + U+0301.)
        #expect(story.words.contains { $0.text.unicodeScalars.elementsEqual("cafe\u{301}".unicodeScalars) && $0.range.length == 5 })
        #expect(story.words.contains { $0.text.unicodeScalars.elementsEqual("café".unicodeScalars) && $0.range.length == 4 })
        let farmer = try #require(story.words.first { $0.text == "🧑‍🌾" })
        #expect(farmer.range.length == 3)
    }

    @Test func aByteOrderMarkAndWindowsLineEndingsAreHarmless() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data("---\r\ntitle: T\r\n---\r\n\r\nOne line.\r\nTwo.\r\n".utf8))
        let parsed = try StoryParser.parse(data: data, path: "t.md")
        #expect(parsed.story.title == "T")
        #expect(parsed.story.text == "One line.\nTwo.")
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
    }

    @Test(arguments: [
        ("stories/The Lighthouse Cat.md", "the-lighthouse-cat"),
        ("Grandma’s Umbrella Boat.md", "grandma-s-umbrella-boat"),
        ("la-petite-étoile.md", "la-petite-etoile"),
        ("01-the-fox.txt", "01-the-fox"),
        ("🌻.md", "story"),
    ])
    func idsComeFromTheFileName(_ path: String, _ id: String) {
        #expect(StoryParser.storyID(forPath: path) == id)
    }
}

/// Item 5 of issue 2: every bad file gets one clear message naming the file (and line where it
/// applies) and saying what to do; nothing crashes.
@Suite struct BadInputTests {
    @Test(arguments: ["", "\n\n  \n", "\u{FEFF}"])
    func emptyFile(_ text: String) throws {
        let error = try #require(problem { try parse(text, path: "shelf/empty.md") })
        #expect(error.kind == .empty)
        #expect(error.isError)
        #expect(error.description.hasPrefix("shelf/empty.md: "))
        #expect(error.message.contains("write a story"))
    }

    @Test func binaryFile() throws {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]
        bytes += (0..<200).map { UInt8($0) }
        let error = try #require(problem { try StoryParser.parse(data: Data(bytes), path: "shelf/picture.md") })
        #expect(error.kind == .binary)
        #expect(error.description.hasPrefix("shelf/picture.md: "))
        #expect(error.message.contains("not a text file"))
    }

    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian])
    func utf16(_ encoding: String.Encoding) throws {
        let bom: [UInt8] = encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
        let data = Data(bom) + "---\ntitle: T\n---\n\nHello.\n".data(using: encoding)!
        let error = try #require(problem { try StoryParser.parse(data: data, path: "shelf/wide.md") })
        #expect(error.description.hasPrefix("shelf/wide.md: "))
        #expect(error.message.contains("UTF-16"))
        #expect(error.message.contains("save it as UTF-8"))
    }

    @Test func utf16WithoutByteOrderMarkIsNotText() throws {
        let data = "---\ntitle: T\n---\n\nHello.\n".data(using: .utf16LittleEndian)!
        let error = try #require(problem { try StoryParser.parse(data: data, path: "shelf/wide.txt") })
        #expect(error.kind == .binary)
        #expect(error.description.hasPrefix("shelf/wide.txt: "))
    }

    @Test func invalidUTF8LoadsWithReplacementCharactersAndAWarningNamingTheLine() throws {
        var data = Data("---\ntitle: Caf".utf8) + Data([0xE9]) + Data("\n---\n\nLine five.\nLine six ".utf8)
        data += Data([0xFF, 0xC3]) + Data(" end.\n".utf8)
        let parsed = try StoryParser.parse(data: data, path: "shelf/latin1.md")
        #expect(parsed.story.title == "Caf\u{FFFD}")
        #expect(parsed.story.text.contains("Line six \u{FFFD}\u{FFFD} end."))
        #expect(parsed.warnings.count == 1)
        let warning = try #require(parsed.warnings.first)
        #expect(warning.kind == .invalidUTF8)
        #expect(warning.line == 2)
        #expect(warning.description.hasPrefix("shelf/latin1.md, line 2: warning: "))
        #expect(warning.message.contains("save the file as UTF-8"))
        #expect(StoryChecks.violations(in: parsed.story) == [])
    }

    @Test func invalidUTF8LineCountsLinesBeforeIt() throws {
        let data = Data("Title: T\n\nOne.\nTwo.\n".utf8) + Data([0xC0, 0x80]) + Data("\n".utf8)
        let parsed = try StoryParser.parse(data: data, path: "t.txt")
        #expect(parsed.warnings.map(\.line) == [5])
    }

    @Test(arguments: [
        ("---\nauthor: Someone\n---\n\nA story.\n", "a.md", "add a 'title:' line"),
        ("A story with no header.\n", "a.txt", "add a 'Title:' line"),
        ("---\ntitle:\n---\n\nA story.\n", "a.md", "add a 'title:' line"),
    ])
    func missingTitle(_ text: String, _ path: String, _ advice: String) throws {
        let error = try #require(problem { try parse(text, path: "shelf/" + path) })
        #expect(error.kind == .missingTitle)
        #expect(error.description.hasPrefix("shelf/\(path), line 1: "))
        #expect(error.message.contains(advice))
    }

    @Test(arguments: [
        ("7-4", "write the younger age first, like 4-7"),
        ("abc", "write two ages like 4-7"),
        ("4-99", "ages go from 0 to 18"),
        ("", "write two ages like 4-7"),
        ("4-7-9", "write two ages like 4-7"),
        ("99999999999999999999999", "ages go from 0 to 18"),
        ("-1", "is below zero"),
        ("6-", "write two ages like 4-7"),
    ])
    func badAges(_ ages: String, _ advice: String) throws {
        let error = try #require(problem { try parse("---\ntitle: T\nages: \(ages)\n---\n\nText.\n", path: "shelf/a.md") })
        #expect(error.kind == .badAges)
        #expect(error.isError)
        #expect(error.description.hasPrefix("shelf/a.md, line 3: "))
        #expect(error.message.contains(advice))
    }

    @Test func unknownKeyWarnsAndTheStoryLoads() throws {
        let parsed = try parse("---\ntitle: T\ncolour: blue\n---\n\nText.\n", path: "shelf/a.md")
        #expect(parsed.story.title == "T")
        #expect(parsed.warnings.count == 1)
        let warning = try #require(parsed.warnings.first)
        #expect(warning.kind == .unknownKey)
        #expect(warning.severity == .warning)
        #expect(warning.description.hasPrefix("shelf/a.md, line 3: warning: "))
        #expect(warning.message.contains("'colour'"))
        #expect(warning.message.contains("known keys"))
    }

    @Test func aVeryLongTitleIsShortenedWithAWarning() throws {
        let parsed = try parse("---\ntitle: \(String(repeating: "Long ", count: 100))\n---\n\nText.\n", path: "shelf/a.md")
        #expect(parsed.story.title.count == 200)
        #expect(parsed.warnings.map(\.kind) == [.tooLong])
        #expect(parsed.warnings.first?.description.hasPrefix("shelf/a.md, line 2: warning: the title is 499 characters long") == true)
    }

    @Test func unterminatedFrontMatter() throws {
        let error = try #require(problem { try parse("\n---\ntitle: T\n\nText.\n", path: "shelf/a.md") })
        #expect(error.kind == .unterminatedFrontMatter)
        #expect(error.description.hasPrefix("shelf/a.md, line 2: "))
        #expect(error.message.contains("add one"))
    }

    @Test func aTitleWithoutAStory() throws {
        let error = try #require(problem { try parse("---\ntitle: T\n---\n\n---\n\n", path: "shelf/a.md") })
        #expect(error.kind == .noText)
        #expect(error.description.hasPrefix("shelf/a.md, line "))
        #expect(error.message.contains("write the story"))
    }

    @Test func aFiveMegabyteStoryIsRefusedWithItsSize() throws {
        let folder = try TemporaryFolder("large")
        defer { folder.remove() }
        let paragraph = String(repeating: "The fox ran over the hill and far away. ", count: 25) + "\n\n"
        let text = "---\ntitle: Huge\n---\n\n" + String(repeating: paragraph, count: 5 * 1024 * 1024 / paragraph.utf8.count + 1)
        let file = try folder.write("huge.md", text)
        let error = try #require(problem { try StoryParser.parse(contentsOf: file, path: file.path) })
        #expect(error.kind == .tooLarge)
        #expect(error.description.hasPrefix(file.path + ": "))
        #expect(error.message.contains("is 5.0 MB"))
        #expect(error.message.contains("split it"))
        // The same bytes handed over directly are refused the same way.
        let direct = try #require(problem { try StoryParser.parse(data: Data(text.utf8), path: "huge.md") })
        #expect(direct.kind == .tooLarge)
    }

    @Test func aSingleOneMegabyteLineLoads() throws {
        let words = ["the", "fox", "ran", "over", "a", "little", "hill", "Pip’s", "🌻", "star-shaped"]
        var line = ""
        var index = 0
        while line.utf8.count < 1_048_576 {
            line += words[index % words.count] + " "
            index += 1
        }
        let clock = ContinuousClock()
        let start = clock.now
        let parsed = try parse("---\ntitle: Long\n---\n\n" + line + "\n", path: "long.md")
        // No timing assertion (speed is for benchmarks), but record it for whoever reads the log.
        print("a 1 MB line parsed in \(clock.now - start)")
        let story = parsed.story
        #expect(story.paragraphs.count == 1)
        #expect(story.wordCount == index)
        let longest = story.sentences.map { $0.text.unicodeScalars.count }.max() ?? 0
        #expect(longest <= Segmenter.maximumSentenceScalars + "star-shaped ".count)
        #expect(StoryChecks.violations(in: story) == [])
    }

    @Test(arguments: [
        "[", "`", "*", "_", "![", "[a](", "**", "\\", "*a*", "x**y*", "**a*",
    ])
    func aLongLineOfMarkdownPunctuationLoads(_ piece: String) throws {
        // Unclosed brackets, code spans and delimiters must not make the parser scan the rest of
        // the line again for each one (300 kB of them took hours; a megabyte, days).
        let line = String(repeating: piece + "a ", count: 300_000 / (piece.utf8.count + 2))
        let parsed = try parse("---\ntitle: Long\n---\n\n" + line + "\n", path: "long.md")
        #expect(parsed.story.paragraphs.count == 1)
        #expect(StoryChecks.violations(in: parsed.story) == [])
    }

    @Test func escapeSequencesAndBidiOverridesAreRemovedWithAWarning() throws {
        let parsed = try parse(
            """
            ---
            title: The \u{1B}[31mRed\u{1B}[0m Cat \u{202E}tac\u{202C}
            ---

            A line.
            The cat said \u{1B}]0;owned\u{07} hello \u{2067}there\u{2069}.
            """, path: "shelf/evil.md")
        let story = parsed.story
        for text in [story.title, story.text] {
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        }
        let warning = try #require(parsed.warnings.first { $0.kind == .controlCharacters })
        #expect(warning.line == 2)
        #expect(warning.description.hasPrefix("shelf/evil.md, line 2: warning: "))
        #expect(parsed.warnings.count == 1)
        #expect(StoryChecks.violations(in: story) == [])
        let bidi: Set<UInt32> = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        let keepsBidi = Sanitizer.sanitize("\u{202E}").unicodeScalars.contains { bidi.contains($0.value) }
        // The sanitizer in this branch is a placeholder that keeps bidi controls; the real one
        // (TERMINAL.md) removes them. Record that as a known issue until it lands, never silently.
        withKnownIssue("the placeholder Sanitizer keeps bidi overrides", isIntermittent: false) {
            #expect(!story.title.unicodeScalars.contains { bidi.contains($0.value) })
            #expect(!story.text.unicodeScalars.contains { bidi.contains($0.value) })
        } when: {
            keepsBidi
        }
    }

    @Test func escapeSequencesInATextHeaderAreRemovedWithAWarning() throws {
        let parsed = try parse("Title: Bell\u{07}\u{1B}[2J\nAuthor: Me\n\nHello.\n", path: "shelf/evil.txt")
        #expect(!parsed.story.title.unicodeScalars.contains { $0.value < 0x20 })
        #expect(parsed.warnings.map(\.kind) == [.controlCharacters])
        #expect(parsed.warnings.first?.line == 1)
    }
}
