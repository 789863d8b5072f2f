import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `storyreader import` of the books families already have (EPUB, Project Gutenberg), run as a
/// parent runs it, then the stories listed, found by name and read: the book's words are read
/// in order, pictures are described, and no licence, front matter or note number is spoken.
@Suite(.serialized) struct BookImportTests {
    static var books: URL { TestPaths.books }

    func run(_ arguments: [String], _ data: TemporaryFolder) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, dataDirectory: data.path)
    }

    /// The words spoken by `read ID --events json`, and its picture descriptions.
    func read(_ id: String, _ data: TemporaryFolder) throws -> (words: [String], sentences: [[String: Any]]) {
        let result = try run(["read", id, "--no-audio", "--events", "json", "--from-start"], data)
        #expect(result.status == 0, "\(result.standardError)")
        let events = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let words = events.filter { $0["type"] as? String == "word" }.compactMap { $0["text"] as? String }
        return (WordCoverage.words(words.joined(separator: " ")), events.filter { $0["type"] as? String == "sentence" })
    }

    func listJSON(_ data: TemporaryFolder) throws -> [[String: Any]] {
        let list = try run(["list", "--json"], data)
        return try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
    }

    /// The texts read aloud of every story of `book`, in the book's order (`part` in list --json).
    func bookTexts(_ book: String, _ data: TemporaryFolder) throws -> (titles: [String], words: [String]) {
        let works = try listJSON(data).filter { $0["book"] as? String == book }
            .sorted { ($0["part"] as? Int ?? 0) < ($1["part"] as? Int ?? 0) }
        var words: [String] = []
        for work in works {
            let path = try #require(work["path"] as? String)
            words += WordCoverage.words(try StoryParser.parse(data: Data(contentsOf: URL(fileURLWithPath: path)), path: path).story.text)
        }
        return (works.compactMap { $0["title"] as? String }, words)
    }

    /// English Fairy Tales: a dry run lists the 43 tales and writes nothing; the import gives one
    /// story per tale; Tom Tit Tot is read whole, and nothing of the licence or front matter is.
    @Test func aGutenbergCollectionImportsAsOneStoryPerTale() throws {
        let book = Self.books.appendingPathComponent("english-fairy-tales_7439-0.txt")
        let data = try TemporaryFolder("gutenberg")
        defer { data.remove() }
        let dry = try run(["import", "--dry-run", book.path], data)
        #expect(dry.status == 0, "\(dry.standardError)")
        // 43 tales, then the total.
        #expect(dry.standardOutput.split(separator: "\n").count == 44)
        #expect(dry.standardOutput.split(separator: "\n").last?.hasPrefix("In all: 43 stories, ") == true, "\(dry.standardOutput.suffix(200))")
        #expect(dry.standardOutput.hasPrefix("Would import “Tom Tit Tot” (english-fairy-tales-tom-tit-tot), en, "))
        let json = try run(["import", "--dry-run", "--json", book.path], data)
        let planned = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(planned.count == 43)
        #expect(planned.allSatisfy { $0["status"] as? String == "would-import" && $0["author"] as? String == "Joseph Jacobs" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).isEmpty, "a dry run writes nothing")

        let imported = try run(["import", book.path], data)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "Imported 43 stories from “English Fairy Tales” (Project Gutenberg) into \(data.path)/stories\n")
        let tales = try listJSON(data).filter { ($0["id"] as? String)?.hasPrefix("english-fairy-tales-") == true }
        #expect(tales.count == 43)
        #expect(tales.allSatisfy { $0["language"] as? String == "en" })

        // Tom Tit Tot as the file has it (after its heading, up to the next tale's), read in order.
        let lines = try String(contentsOf: book, encoding: .utf8).components(separatedBy: "\r\n")
        let reference = WordCoverage.words(lines[215..<459].joined(separator: "\n"))
        let (words, sentences) = try read("english-fairy-tales-tom-tit-tot", data)
        let share = WordCoverage.share(of: reference, in: words)
        print("Tom Tit Tot: \(String(format: "%.2f", share * 100)) % of \(reference.count) words read in order")
        #expect(share >= 0.995)
        let spoken = sentences.compactMap { $0["text"] as? String }.joined(separator: " ")
        for never in ["Gutenberg", "Produced by", "ENGLISH FAIRY TALES", "Who says that English folk"] {
            #expect(!spoken.contains(never), "«\(never)» is read")
        }
        // Again: refused, the stories are there already.
        let again = try run(["import", book.path], data)
        #expect(again.status == 1)
        #expect(again.standardError.contains("pass --replace"))
        #expect(again.standardError.contains("0 imported, 43 refused"))
    }

    /// The Wind in the Willows: one story whose twelve chapters are read in order (≥ 99.5 % of
    /// their words), starting at the first chapter: no title page, imprint, colophon or licence.
    @Test func aNovelEPUBIsOneStoryReadWhole() throws {
        let book = Self.books.appendingPathComponent("wind-in-the-willows.epub")
        let data = try TemporaryFolder("epub-novel")
        defer { data.remove() }
        let imported = try run(["import", book.path], data)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("Imported 1 story from “The Wind in the Willows” (EPUB)"))
        #expect(try listJSON(data).contains { $0["id"] as? String == "the-wind-in-the-willows" && $0["language"] as? String == "en" })

        var chapters = ""
        for number in 1...12 {
            let xhtml = try EPUBFixtures.entryText("epub/text/chapter-\(number).xhtml", in: book)
            let body = xhtml.components(separatedBy: "<body").last ?? ""
            chapters +=
                " "
                + body.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "&[#a-zA-Z0-9]+;", with: " ", options: .regularExpression)
        }
        let reference = WordCoverage.words(chapters)
        let (words, sentences) = try read("the-wind-in-the-willows", data)
        let share = WordCoverage.share(of: reference, in: words)
        print("The Wind in the Willows: \(String(format: "%.2f", share * 100)) % of \(reference.count) words read in order (\(words.count) read)")
        #expect(share >= 0.995)
        #expect(Double(words.count) <= Double(reference.count) * 1.005, "nothing but the chapters is read")
        let first = try #require(sentences.first)
        #expect(first["kind"] as? String == "heading" && first["text"] as? String == "I: The River Bank")
        let spoken = sentences.compactMap { $0["text"] as? String }.joined(separator: " ")
        #expect(!spoken.contains("Standard Ebooks") && !spoken.contains("public domain"))
    }

    /// Every tale of English Fairy Tales, in the book's order, is the book's text from the first
    /// tale to the last (≥ 99.5 % of its words in order, both ways: nothing lost, nothing added),
    /// and no licence, preface, contents or note is in any of them.
    @Test func everyTaleOfAGutenbergCollectionIsTheBooksTextInItsOrder() throws {
        let book = Self.books.appendingPathComponent("english-fairy-tales_7439-0.txt")
        let data = try TemporaryFolder("gutenberg-all")
        defer { data.remove() }
        #expect(try run(["import", book.path], data).status == 0)
        let (titles, read) = try bookTexts("English Fairy Tales (Project Gutenberg)", data)
        #expect(titles.count == 43)
        #expect(titles.first == "Tom Tit Tot")
        #expect(titles.last == "The Three Heads of the Well")
        // The tales run from line 215 (TOM TIT TOT) to the "OYEZ-OYEZ-OYEZ" that closes them.
        let lines = try String(contentsOf: book, encoding: .utf8).components(separatedBy: "\r\n")
        let end = try #require(lines.firstIndex(of: "OYEZ-OYEZ-OYEZ"))
        let reference = WordCoverage.words(lines[214..<end].joined(separator: "\n"))
        // Every word read matched in order in the book is a common subsequence of both: the share
        // of the book it covers is a lower bound of what was kept.
        let added = WordCoverage.share(of: read, in: reference)
        let kept = added * Double(read.count) / Double(reference.count)
        print(
            "English Fairy Tales, all 43 tales: \(String(format: "%.2f", kept * 100)) % of the book's \(reference.count) words in order; \(String(format: "%.2f", added * 100)) % of the \(read.count) words read are the book's, in order"
        )
        #expect(kept >= 0.995)
        #expect(added >= 0.995)
        let all = read.joined(separator: " ")
        for junk in ["project gutenberg", "preface", "notes and references", "produced by"] {
            #expect(!all.contains(junk), "«\(junk)» is read")
        }
    }

    /// On a terminal a book's import says how far it is, document by document, and clears the
    /// line before its summary; in a pipe it says nothing of it.
    @Test func aBooksImportShowsItsProgressOnATerminal() throws {
        let book = Self.books.appendingPathComponent("wind-in-the-willows.epub")
        let script = try #require(ExternalProcess.find("script"), "script (util-linux) is missing")
        let data = try TemporaryFolder("import-progress")
        defer { data.remove() }
        let log = data.url.appendingPathComponent("typescript")
        let command = "stty cols 120; \(TestPaths.binary.path) import --data-dir \(data.path)/data \(book.path)"
        let result = try ExternalProcess.run(
            script, ["-qfec", command, log.path], environment: ProcessInfo.processInfo.environment.merging(["TERM": "xterm"]) { $1 })
        #expect(result.status == 0, "\(result.standardError)")
        let seen = try String(contentsOf: log, encoding: .utf8)
        #expect(seen.contains("Reading wind-in-the-willows.epub: 1 of 16 documents"), "\(seen.prefix(600))")
        #expect(seen.contains("Reading wind-in-the-willows.epub: 15 of 16 documents"))
        #expect(seen.contains("\r\u{1B}[KImported 1 story from “The Wind in the Willows”"), "the line is cleared before the summary: \(seen.suffix(300))")
        let piped = try run(["import", "--dry-run", book.path], data)
        #expect(piped.status == 0)
        #expect(!piped.standardError.contains("documents") && !piped.standardOutput.contains("documents"))
    }

    /// Aesop's Fables: 284 stories, each found by its title and read.
    @Test func aCollectionEPUBIsOneStoryPerWork() throws {
        let book = Self.books.appendingPathComponent("aesop-fables.epub")
        let data = try TemporaryFolder("epub-fables")
        defer { data.remove() }
        let imported = try run(["import", book.path], data)
        #expect(imported.standardOutput.contains("Imported 284 stories from “Fables” (EPUB)"), "\(imported.standardOutput)\(imported.standardError)")
        #expect(try listJSON(data).filter { ($0["id"] as? String)?.hasPrefix("fables-") == true }.count == 284)
        let show = try run(["show", "The Fox and the Grapes", "--json"], data)
        let story = try #require(try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any])
        #expect(story["id"] as? String == "fables-the-fox-and-the-grapes")
        #expect(story["summary"] as? String == "From Fables.")
        let (words, _) = try read("fables-the-fox-and-the-grapes", data)
        #expect(words.prefix(5) == ["a", "hungry", "fox", "saw", "some"])
        #expect(words.suffix(4) == ["they", "are", "quite", "sour"])

        // All 284, in the book's order, are the fables file's text (the titles, each a story's
        // title and not a line of its text, left out).
        let (titles, read) = try bookTexts("Fables", data)
        #expect(titles.count == 284)
        let xhtml = try EPUBFixtures.entryText("epub/text/fables.xhtml", in: book)
        #expect(titles.first.map { xhtml.contains(">\($0)</h2>") } == true, "\(titles.first ?? "")")
        let body = xhtml[xhtml.range(of: "<body")!.lowerBound...].replacing(/<h2[^>]*>[^<]*<\/h2>/, with: " ").replacing(/<[^>]*>/, with: " ")
        let reference = WordCoverage.words(String(body).replacingOccurrences(of: "&nbsp;", with: " "))
        let added = WordCoverage.share(of: read, in: reference)
        let kept = added * Double(read.count) / Double(reference.count)
        print(
            "Fables, all 284: \(String(format: "%.2f", kept * 100)) % of the file's \(reference.count) words in order; \(String(format: "%.2f", added * 100)) % of the \(read.count) words read are the file's, in order"
        )
        #expect(kept >= 0.995)
        #expect(added >= 0.995)
        #expect(!read.joined(separator: " ").contains("standard ebooks"))
    }

    /// A small picture book made here: its pictures are described as picture events, the
    /// decorative one is silent, its note number and the note are never read, and a broken
    /// chapter is named while the rest is imported.
    @Test func picturesAreDescribedAndNotesNeverRead() throws {
        let data = try TemporaryFolder("epub-pictures")
        defer { data.remove() }
        let opf = EPUBFixtures.opf3(
            title: "Pip&apos;s Kite", author: "Ann Author", language: "en-GB",
            documents: [("c1", "one.xhtml"), ("c2", "two.xhtml"), ("c3", "broken.xhtml")])
        let url = try EPUBFixtures.make(
            data.url.appendingPathComponent("kite.epub"), opf: opf,
            files: [
                ("OEBPS/nav.xhtml", EPUBFixtures.xhtml(#"<nav epub:type="toc"><ol><li><a href="one.xhtml">The Kite</a></li></ol></nav>"#)),
                (
                    "OEBPS/one.xhtml",
                    EPUBFixtures.xhtml(
                        #"""
                        <img src="../images/kite.png" alt="A red kite above a green hill."/><img src="rule.png" alt=""/>
                        <p>Pip&rsquo;s kite flew high.<a href="notes.xhtml#n1" epub:type="noteref">1</a></p>
                        """#)
                ),
                ("OEBPS/two.xhtml", EPUBFixtures.xhtml("<p>Then it came down.</p><aside epub:type=\"footnote\"><p>Kites are old.</p></aside>")),
                ("OEBPS/broken.xhtml", "<html><body><p a=>x</p></body></html>"),
            ])
        let dry = try run(["import", "--dry-run", url.path], data)
        #expect(dry.standardOutput.hasPrefix("Would import “Pip's Kite” (pip-s-kite), en, "), "\(dry.standardOutput)")
        #expect(dry.standardOutput.contains(" words, 1 picture, from “Pip's Kite”"), "\(dry.standardOutput)")
        #expect(dry.standardOutput.contains("  picture: A red kite above a green hill."))
        #expect(dry.standardOutput.contains("  warning: kite.epub, OEBPS/broken.xhtml"))
        let imported = try run(["import", url.path], data)
        #expect(imported.status == 0, "a broken chapter is a warning, not a refusal: \(imported.standardError)")
        #expect(imported.standardError.contains("kite.epub, OEBPS/broken.xhtml") && imported.standardError.contains("chapter skipped"))
        let (words, sentences) = try read("pip-s-kite", data)
        #expect(
            words == [
                "the", "kite", "a", "red", "kite", "above", "a", "green", "hill", "pip", "s", "kite", "flew", "high",
                "then", "it", "came", "down",
            ], "\(words)")
        #expect(sentences.contains { $0["kind"] as? String == "picture" && $0["text"] as? String == "A red kite above a green hill." })
    }

    /// Books that cannot be read: one clear message each, naming the file; the good one is imported.
    @Test func badBooksAreRefusedOneMessageEach() throws {
        let data = try TemporaryFolder("epub-bad")
        defer { data.remove() }
        let notZip = try data.write("not-a-zip.epub", "hello")
        let missing = data.url.appendingPathComponent("missing.epub")
        let noContainer = try EPUBFixtures.make(data.url.appendingPathComponent("no-container.epub"), opf: "<package/>", files: [], container: false)
        let emptySpine = try EPUBFixtures.make(data.url.appendingPathComponent("empty.epub"), opf: "<package><manifest/><spine/></package>", files: [])
        let good = try data.write("good.md", "---\ntitle: A Good One\n---\n\nOnce upon a time.\n")
        let result = try run(["import", notZip.path, missing.path, noContainer.path, emptySpine.path, good.path], data)
        #expect(result.status == 1)
        let messages = result.standardError.split(separator: "\n")
        #expect(messages.count == 5, "\(result.standardError)")
        guard messages.count == 5 else { return }
        #expect(messages[0].contains("not-a-zip.epub is not an EPUB"))
        #expect(messages[1].contains("missing.epub") && messages[1].contains("no such file"))
        #expect(messages[2].contains("no-container.epub") && messages[2].contains("META-INF/container.xml"))
        #expect(messages[3].contains("empty.epub") && messages[3].contains("empty spine"))
        #expect(messages[4].contains("1 imported, 4 refused"))
        #expect(FileManager.default.fileExists(atPath: data.path + "/stories/good.md"))
    }

    /// Lookup with real titles: two stories of the same title are ambiguous (both listed with
    /// author and id); a title with a no-break space is found as it is shown.
    @Test func sameTitlesAreAmbiguousAndNoBreakSpacesAreSpaces() throws {
        let data = try TemporaryFolder("lookup")
        defer { data.remove() }
        try data.write("stories/les-fees-perrault.md", "---\ntitle: Les Fées\nauthor: Charles Perrault\nlanguage: fr\n---\n\nIl était une fois.\n")
        try data.write("stories/les-fees-aulnoy.md", "---\ntitle: Les Fées\nauthor: Madame d’Aulnoy\nlanguage: fr\n---\n\nIl était une fois.\n")
        try data.write("stories/mr-tod.md", "---\ntitle: The Tale of Mr.\u{00A0}Tod\n---\n\nOnce.\n")
        let ambiguous = try run(["show", "Les Fées"], data)
        #expect(ambiguous.status == 1)
        #expect(ambiguous.standardError.contains("Les Fées by Charles Perrault (les-fees-perrault)"))
        #expect(ambiguous.standardError.contains("Les Fées by Madame d’Aulnoy (les-fees-aulnoy)"))
        for typed in ["The Tale of Mr. Tod", "The Tale of Mr.\u{00A0}Tod", "the tale of mr.\u{202F}tod"] {
            let found = try run(["show", typed, "--json"], data)
            #expect(found.status == 0 && found.standardOutput.contains("\"id\" : \"mr-tod\""), "\(typed): \(found.standardError)")
        }
    }
}
