import Foundation
import StoryKit
import StoryKitTestSupport
import Testing
import ZIPFoundation

/// `storyreader export` to read-along books (EPUB 3 with Media Overlays) and to one file of several
/// stories with chapters; its progress line; a worker that dies.
@Suite(.serialized) struct ExportBookTests {
    /// epubcheck's jar: Debian's /usr/bin/epubcheck is a bare jar, so it runs through java.
    static let epubcheckJar = "/usr/share/java/epubcheck.jar"

    /// epubcheck's verdict on `epub`; a failure naming what installs them when java or epubcheck is missing.
    static func check(_ epub: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let java = RequiredTool.find("java", package: "default-jre-headless", for: "the EPUB check", sourceLocation: sourceLocation) else { return "" }
        guard FileManager.default.fileExists(atPath: epubcheckJar) else {
            Issue.record(Comment(rawValue: RequiredTool.missing([(epubcheckJar, "epubcheck")], for: "the EPUB check")), sourceLocation: sourceLocation)
            return ""
        }
        let result = try ExternalProcess.run(java, ["-jar", epubcheckJar, epub.path], environment: ProcessInfo.processInfo.environment)
        let output = result.standardOutput + result.standardError
        #expect(result.status == 0, "\(output)")
        #expect(output.contains("No errors or warnings detected"), "\(output)")
        return output
    }

    /// The archive's text entries by path.
    static func entries(_ epub: URL) throws -> [String: String] {
        let archive = try Archive(url: epub, accessMode: .read)
        var texts: [String: String] = [:]
        for entry in archive where !entry.path.hasSuffix(".mp3") {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            texts[entry.path] = String(decoding: data, as: UTF8.self)
        }
        return texts
    }

    static func seconds(_ clock: Substring) -> Double {
        let parts = clock.split(separator: ":").compactMap { Double($0) }
        return parts.reduce(0) { $0 * 60 + $1 }
    }

    static func story(_ file: String) throws -> Story {
        let url = TestPaths.stories.appendingPathComponent(file)
        return try StoryParser.parse(contentsOf: url, path: url.path).story
    }

    /// The words of a text, lower case, without punctuation, for comparing in order.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// How many of `expected`, in order, `found` holds (each taken at most once, never going back).
    static func inOrder(_ expected: [String], in found: [String]) -> Int {
        var at = 0
        var matched = 0
        for word in expected {
            if let index = found[at...].prefix(40).firstIndex(of: word) {
                matched += 1
                at = index + 1
            }
        }
        return matched
    }

    /// A read-along book of a story with pictures, word by word: epubcheck passes with no error
    /// and no warning; every SMIL `text` points at an element that exists; clips increase and end
    /// within the audio; the book's text holds the story's words in order; the accessibility
    /// metadata names synchronised audio and text.
    @Test func aReadAlongBookPassesEpubcheckAndEveryClipPointsAtItsWord() throws {
        let folder = try TemporaryFolder("export-epub")
        defer { folder.remove() }
        let epub = folder.url.appendingPathComponent("pip.epub")
        let result = try StoryReaderProcess.run(["export", "Pip and the Puddle", "--to", epub.path, "--overlay", "words", "--jobs", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("Exported “Pip and the Puddle”:"))
        _ = try Self.check(epub)
        let files = try Self.entries(epub)
        let xhtml = try #require(files["OEBPS/story-001.xhtml"])
        let smil = try #require(files["OEBPS/story-001.smil"])
        let opf = try #require(files["OEBPS/package.opf"])
        let ids = Set(xhtml.matches(of: /id="([^"]+)"/).map { String($0.1) })
        let pars = smil.matches(of: /<text src="story-001\.xhtml#([^"]+)"\/><audio src="audio\/book\.mp3" clipBegin="([0-9:.]+)" clipEnd="([0-9:.]+)"\/>/)
        let story = try Self.story("pip-and-the-puddle.md")
        #expect(pars.count >= story.wordCount - 5, "\(pars.count) clips for \(story.wordCount) words")
        var previous = 0.0
        for par in pars {
            #expect(ids.contains(String(par.1)), "the clip points at #\(par.1), which the text lacks")
            let begin = Self.seconds(par.2)
            let end = Self.seconds(par.3)
            #expect(begin >= previous - 0.0005 && end > begin, "\(par.1): \(begin)–\(end) after \(previous)")
            previous = end
        }
        // The audio in the book is as long as the clips say, or longer.
        let archive = try Archive(url: epub, accessMode: .read)
        let mp3 = try #require(archive["OEBPS/audio/book.mp3"])
        #expect(mp3.compressedSize == mp3.uncompressedSize, "audio is stored, not deflated")
        if let ffprobe = RequiredTool.find("ffprobe", package: "ffmpeg", for: "the read-along book's audio length") {
            let audio = folder.url.appendingPathComponent("book.mp3")
            _ = try archive.extract(mp3, to: audio)
            let probe = try ExternalProcess.run(
                ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", audio.path],
                environment: ProcessInfo.processInfo.environment)
            let duration = try #require(Double(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(previous <= duration, "the last clip ends at \(previous) s, the audio at \(duration) s")
        }
        // The story's words, pictures' descriptions included, in order in the book's text.
        let text = xhtml.replacing(/<[^>]+>/, with: " ").replacingOccurrences(of: "&amp;", with: "&")
        let expected = Self.words(story.blocks.map(\.text).joined(separator: " "))
        let found = Self.words(text)
        let share = Double(Self.inOrder(expected, in: found)) / Double(expected.count)
        #expect(share >= 0.995, "the book holds \(share * 100) % of the story's words in order")
        for property in [
            "synchronizedAudioText", "schema:accessMode\">auditory", "schema:accessModeSufficient\">textual",
            "schema:accessibilitySummary", "media:active-class", "media:duration\" refines=\"#story-001-overlay\"",
            "media-overlay=\"story-001-overlay\"", "<dc:language>en</dc:language>", "<dc:creator>Magical Stories</dc:creator>",
        ] {
            #expect(opf.contains(property), "package.opf lacks \(property)")
        }
        // The pictures are described in the text, apart from the story.
        let bookText = found.joined(separator: " ")
        for picture in story.pictures { #expect(bookText.contains(Self.words(picture.text).joined(separator: " ")), "«\(picture.text)»") }
        #expect(xhtml.contains("<figure class=\"picture\">"))
    }

    /// Several stories in one book, a Spanish one among them: a chapter each in the contents, each
    /// with its own language and overlay, sentence by sentence; epubcheck passes.
    @Test func severalStoriesMakeOneBookWithAChapterEach() throws {
        let folder = try TemporaryFolder("export-epub")
        defer { folder.remove() }
        let epub = folder.url.appendingPathComponent("bedtime.epub")
        let result = try StoryReaderProcess.run([
            "export", "pip", "el-dragon-que-tenia-hipo", "lighthouse", "--one-file", "--to", epub.path,
            "--title", "Bedtime", "--quiet",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        _ = try Self.check(epub)
        let files = try Self.entries(epub)
        let nav = try #require(files["OEBPS/nav.xhtml"])
        for title in ["Pip and the Puddle", "El dragón que tenía hipo", "The Lighthouse Cat"] { #expect(nav.contains(">\(title)</a>"), "\(title)") }
        #expect(try #require(files["OEBPS/story-002.xhtml"]).contains("xml:lang=\"es\""))
        #expect(try #require(files["OEBPS/package.opf"]).contains("<dc:title>Bedtime</dc:title>"))
        // Sentence by sentence: each clip's element is a whole sentence.
        let smil = try #require(files["OEBPS/story-003.smil"])
        #expect(!smil.contains("-w"), "words are not highlighted one by one unless asked")
        // Clips of the third story start after the first two and the second of silence between.
        let first = try #require(smil.firstMatch(of: /clipBegin="([0-9:.]+)"/))
        #expect(Self.seconds(first.1) > 60)
    }

    /// Opus and MP3 of three stories in one file: a chapter each, named, the second starting a
    /// second after the first ends, as opusinfo and ffprobe read them.
    @Test func oneFileOfSeveralStoriesHasChaptersPlayersRead() throws {
        guard let tools = RequiredTool.findAll([("ffprobe", "ffmpeg"), ("opusinfo", "opus-tools")], for: "the chapter check") else { return }
        let (ffprobe, opusinfo) = (tools[0], tools[1])
        let folder = try TemporaryFolder("export-chapters")
        defer { folder.remove() }
        let titles = ["Pip and the Puddle", "The Lighthouse Cat", "Bedtime for Bear"]
        var starts: [String: [Int]] = [:]
        for format in ["opus", "mp3"] {
            let file = folder.url.appendingPathComponent("three.\(format)")
            let result = try StoryReaderProcess.run([
                "export", "pip", "lighthouse", "bedtime-for-bear", "--one-file", "--to", file.path, "--captions", "lrc", "--force",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("(3 stories)"))
            let probe = try ExternalProcess.run(
                ffprobe, ["-v", "error", "-show_chapters", "-of", "compact", file.path], environment: ProcessInfo.processInfo.environment)
            #expect(probe.status == 0, "\(probe.standardError)")
            let chapters = probe.standardOutput.matches(of: /start=(\d+)\|start_time=[0-9.]+\|end=(\d+)\|end_time=[0-9.]+\|tag:title=([^\n]+)/)
            #expect(chapters.map { String($0.3) } == titles, "\(format): \(probe.standardOutput)")
            starts[format] = chapters.map { Int($0.1) ?? -1 }
            // The second chapter starts a second (the gap) after the first ends.
            if chapters.count == 3, format == "mp3" {
                #expect(abs((Int(chapters[1].1) ?? 0) - (Int(chapters[0].2) ?? 0) - 1000) <= 1)
            }
            // One LRC for the whole file: its times run on across the stories.
            let lrc = try String(contentsOf: folder.url.appendingPathComponent("three.lrc"), encoding: .utf8)
            #expect(lrc.contains("Bedtime") || lrc.split(separator: "\n").count > 50)
        }
        #expect(starts["opus"] == starts["mp3"], "the same chapter times in both")
        let info = try ExternalProcess.run(opusinfo, [folder.url.appendingPathComponent("three.opus").path], environment: ProcessInfo.processInfo.environment)
        #expect(info.standardOutput.contains("CHAPTER002NAME=The Lighthouse Cat"))
        #expect(info.standardOutput.contains("CHAPTER001=00:00:00.000"))
        #expect(info.standardOutput.firstMatch(of: /CHAPTER003=00:0\d:\d\d\.\d\d\d/) != nil, "\(info.standardOutput)")
    }

    /// An imported collection exported whole with --book: a chapter a work in the book's order
    /// (not the titles' alphabetical one), the book as the album; a book that is not there is
    /// named with the books there are.
    @Test func aWholeImportedBookIsOneFileWithAChapterAWorkAndTheBookAsAlbum() throws {
        let data = try TemporaryFolder("export-book")
        defer { data.remove() }
        let titles = ["Zebra Stripes", "Apple Tree", "Moon Song"]
        let works = titles.enumerated().map { index, title in
            #"<article id="w\#(index)" epub:type="z3998:fiction"><h2>\#(title)</h2><p>This is the \#(title.lowercased()) tale. It is short.</p></article>"#
        }.joined()
        let nav = titles.enumerated().map { #"<li><a href="tales.xhtml#w\#($0.offset)">\#($0.element)</a></li>"# }.joined()
        let epub = try EPUBFixtures.make(
            data.url.appendingPathComponent("tiny.epub"),
            opf: EPUBFixtures.opf3(title: "Tiny Tales", author: "Ann Author", language: "en", documents: [("t", "tales.xhtml")]),
            files: [
                ("OEBPS/nav.xhtml", EPUBFixtures.xhtml(#"<nav epub:type="toc"><ol>\#(nav)</ol></nav>"#)),
                ("OEBPS/tales.xhtml", EPUBFixtures.xhtml(works)),
            ])
        let imported = try StoryReaderProcess.run(["import", epub.path], dataDirectory: data.path)
        #expect(imported.status == 0, "\(imported.standardError)")
        let file = data.url.appendingPathComponent("tiny.mp3")
        let result = try StoryReaderProcess.run(["export", "--book", "tiny tales", "--one-file", "--to", file.path], dataDirectory: data.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("(3 stories)"), "\(result.standardOutput)")
        let ffprobe = try #require(ExternalProcess.find("ffprobe"), "ffprobe is missing: scripts/setup.sh --test installs ffmpeg")
        let format = try ExternalProcess.run(ffprobe, ["-v", "error", "-show_format", file.path], environment: ProcessInfo.processInfo.environment)
        #expect(format.standardOutput.contains("TAG:album=Tiny Tales"), "\(format.standardOutput)")
        #expect(format.standardOutput.contains("TAG:artist=Ann Author"))
        let probe = try ExternalProcess.run(
            ffprobe, ["-v", "error", "-show_chapters", "-of", "compact", file.path], environment: ProcessInfo.processInfo.environment)
        let chapters = probe.standardOutput.matches(of: /tag:title=([^\n]+)/).map { String($0.1) }
        #expect(chapters == titles, "\(probe.standardOutput)")
        let missing = try StoryReaderProcess.run(
            ["export", "--book", "Big Tales", "--to", data.url.appendingPathComponent("x.mp3").path], dataDirectory: data.path)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no one book is called 'Big Tales': the books are ‘Tiny Tales’"), "\(missing.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.url.appendingPathComponent("x.mp3").path))
    }

    /// Issue 43: a read-along book made from a bundled story imports, under a free id the import
    /// says (the bundled story keeps its own); importing it again with --replace replaces that copy.
    @Test func aBookExportedFromABundledStoryImportsUnderAFreeId() throws {
        let data = try TemporaryFolder("export-reimport")
        defer { data.remove() }
        let epub = data.url.appendingPathComponent("cat.epub")
        let exported = try StoryReaderProcess.run(["export", "lighthouse", "--to", epub.path, "--jobs", "1"], dataDirectory: data.path)
        #expect(exported.status == 0, "\(exported.standardError)")
        let imported = try StoryReaderProcess.run(["import", epub.path], dataDirectory: data.path)
        #expect(imported.status == 0, "\(imported.standardOutput)\(imported.standardError)")
        let said = imported.standardOutput + imported.standardError
        #expect(said.contains("has the id 'the-lighthouse-cat' already, so it is imported as 'the-lighthouse-cat-2'"), "\(said)")
        let list = try StoryReaderProcess.run(["list", "--json"], dataDirectory: data.path)
        #expect(list.standardOutput.contains("\"the-lighthouse-cat\""), "\(list.standardOutput)")
        #expect(list.standardOutput.contains("\"the-lighthouse-cat-2\""), "\(list.standardOutput)")
        let again = try StoryReaderProcess.run(["import", epub.path, "--replace"], dataDirectory: data.path)
        #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
        #expect((again.standardOutput + again.standardError).contains("imported as 'the-lighthouse-cat-2'"), "the same free id, replaced")
    }

    /// On a terminal a long export says how far it is; the line is cleared before the summary.
    @Test func aLongExportShowsItsProgressOnATerminal() throws {
        let corpus = TestPaths.corpus
        guard let script = RequiredTool.find("script", package: "bsdutils", for: "the export progress test") else { return }
        let folder = try TemporaryFolder("export-progress")
        defer { folder.remove() }
        let opus = folder.url.appendingPathComponent("cat.opus")
        let log = folder.url.appendingPathComponent("typescript")
        // A wide terminal: the line is cut to the terminal's width (80 columns would cut it here).
        let command = "stty cols 160; \(TestPaths.binary.path) export --stories \(corpus.path) 'The Cat That Walked by Himself' --to \(opus.path) --jobs 1"
        let result = try ExternalProcess.run(
            script, ["-qfec", command, log.path], environment: ProcessInfo.processInfo.environment.merging(["TERM": "xterm"]) { $1 })
        #expect(result.status == 0, "\(result.standardError)")
        let seen = try String(contentsOf: log, encoding: .utf8)
        #expect(
            seen.firstMatch(of: /Exporting The Cat That Walked by Himself: \d+ % \([0-9,]+ of 4,0\d\d words\), about \d+ s left/) != nil, "\(seen.suffix(400))")
        #expect(seen.contains("\r\u{1B}[KExported “The Cat That Walked by Himself”"), "the line is cleared before the summary")
        // In a pipe: no progress, only the summary.
        let piped = try StoryReaderProcess.run([
            "export", "--stories", corpus.path, "The Cat That Walked by Himself", "--to", opus.path, "--force", "--jobs", "2",
        ])
        #expect(piped.status == 0)
        #expect(!piped.standardError.contains("Exporting"), "\(piped.standardError)")
    }

    /// A worker killed with SIGKILL: exit 1 with one message naming the story, no file, and no
    /// other worker left running.
    @Test func aKilledWorkerEndsTheExportWithAMessageAndNoFile() throws {
        let corpus = TestPaths.corpus
        let folder = try TemporaryFolder("export-kill")
        defer { folder.remove() }
        let opus = folder.url.appendingPathComponent("cat.opus")
        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["export", "--stories", corpus.path, "The Cat That Walked by Himself", "--to", opus.path, "--jobs", "3"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let workers = ProcessTree.waitForChildren(of: process, running: "export-worker", count: 2, within: 15)
        try #require(workers.count == 2, "two workers started (with --jobs 3: the export says the first run itself)")
        kill(workers[1], SIGKILL)
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1, "\(message)")
        #expect(message.contains("The Cat That Walked by Himself") && message.contains("export worker"), "\(message)")
        #expect(message.split(separator: "\n").count == 1, "one message: \(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [], "no file, no part")
        Thread.sleep(forTimeInterval: 0.3)
        for worker in workers { #expect(!ProcessTree.commandLine(worker).contains("export-worker"), "worker \(worker) still runs") }
    }
}

extension ExportBookTests {
    /// A story's licence line is its Opus LICENSE comment, its MP3 copyright frame and its book's
    /// dc:rights; a story without one gets none.
    @Test func theLicenceLineTravelsIntoEveryFormat() throws {
        let folder = try TemporaryFolder("export-licence")
        defer { folder.remove() }
        try folder.write("stories/owl.md", "---\ntitle: The Owl\nauthor: Ann Example\nlicense: CC BY 4.0\n---\n\nThe owl said hoo.\n")
        let stories = folder.url.appendingPathComponent("stories").path
        for format in ["opus", "mp3", "epub"] {
            let result = try StoryReaderProcess.run([
                "export", "--stories", stories, "owl", "--to", folder.url.appendingPathComponent("owl.\(format)").path, "-q",
            ])
            #expect(result.status == 0, "\(format): \(result.standardError)")
        }
        if let opusinfo = RequiredTool.find("opusinfo", package: "opus-tools", for: "the Opus licence tag") {
            let info = try ExternalProcess.run(opusinfo, [folder.url.appendingPathComponent("owl.opus").path], environment: ProcessInfo.processInfo.environment)
            #expect(info.standardOutput.contains("LICENSE=CC BY 4.0"), "\(info.standardOutput)")
            #expect(info.standardOutput.contains("ARTIST=Ann Example"))
        }
        if let ffprobe = RequiredTool.find("ffprobe", package: "ffmpeg", for: "the MP3 licence tag") {
            let probe = try ExternalProcess.run(
                ffprobe, ["-v", "error", "-show_format", folder.url.appendingPathComponent("owl.mp3").path],
                environment: ProcessInfo.processInfo.environment)
            #expect(probe.standardOutput.contains("TAG:copyright=CC BY 4.0"), "\(probe.standardOutput)")
        }
        let opf = try #require(try Self.entries(folder.url.appendingPathComponent("owl.epub"))["OEBPS/package.opf"])
        #expect(opf.contains("<dc:rights>CC BY 4.0</dc:rights>"))
        #expect(try Self.entries(folder.url.appendingPathComponent("owl.epub"))["OEBPS/story-001.xhtml"]?.contains("The owl said hoo.") == true)
        let pip = folder.url.appendingPathComponent("pip.epub")
        #expect(try StoryReaderProcess.run(["export", "pip", "--to", pip.path, "-q"]).status == 0)
        #expect(try Self.entries(pip)["OEBPS/package.opf"]?.contains("dc:rights") == false)
    }
}
