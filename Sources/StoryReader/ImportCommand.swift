import ArgumentParser
import Foundation
import StoryKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy your own stories into your stories folder.",
        discussion: """
            Each FILE (.md, .markdown or .txt; see docs/story-format.md) is checked first: a file \
            with errors is refused with its message and the good ones are still copied, together \
            with the picture files they name. A story whose file name or id is already in your \
            folder is refused unless you pass --replace. Exit status 1 when any file was refused.

            A Project Gutenberg .txt file (UTF-8 or Latin-1) is recognised by its START marker: \
            its header and licence are left out, and a collection becomes one story per tale \
            (found from its contents list), with the book's title, author and language. \
            --dry-run lists what would be imported and writes nothing.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Replace a story already in your folder with the same file name.")
    var replace = false

    @Flag(help: "Show what would be imported (titles, languages, words) and write nothing.")
    var dryRun = false

    @Flag(help: "An EPUB becomes one story, even when it holds several works.")
    var asOne = false

    @Flag(help: "An EPUB's works (the articles of a collection) become one story each.")
    var split = false

    @Argument(help: ArgumentHelp("Story files to import.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one story file to import") }
    }

    func run() throws {
        let destination = global.userStoriesFolder()
        // Every story the library shows (bundled and yours): an import with the same id would be
        // hidden behind it (or hide it).
        let existing = global.loadLibrary(reportProblems: false)
        var refused = 0
        var imported = 0
        var createdFolder = false
        for file in files {
            let name = (file as NSString).lastPathComponent
            let ext = (name as NSString).pathExtension.lowercased()
            if ext == "epub" {
                do {
                    let book = try EPUBBook(url: URL(fileURLWithPath: file), split: asOne ? false : (split ? true : nil))
                    for warning in book.warnings { report(warning) }
                    let (done, failed) = importConverted(book.stories(bookID: BookStory.slug(book.title)), from: book.title, kind: "EPUB", file: file, into: destination, existing: existing)
                    imported += done
                    refused += failed
                } catch {
                    report("\(Sanitizer.sanitizeLine(file)): \(error) (not imported)")
                    refused += 1
                }
                continue
            }
            guard StoryParser.storyExtensions.contains(ext) else {
                report("\(Sanitizer.sanitizeLine(file)): not imported: a story file ends in .md, .markdown or .txt, a book in .epub")
                refused += 1
                continue
            }
            if ext == "txt", let data = FileManager.default.contents(atPath: file),
               case let text = GutenbergBook.decode(data), GutenbergBook.isGutenberg(text) {
                let (done, failed) = importGutenberg(text, file: file, into: destination, existing: existing)
                imported += done
                refused += failed
                continue
            }
            if dryRun {
                do {
                    let parsed = try StoryParser.parse(contentsOf: URL(fileURLWithPath: file), path: file)
                    print("Would import “\(parsed.story.title)” (\(parsed.story.id)), \(parsed.story.language), \(parsed.story.words.count) words")
                } catch {
                    report("\(error) (would not be imported)")
                    refused += 1
                }
                continue
            }
            let parsed: ParsedStory
            do {
                parsed = try StoryParser.parse(contentsOf: URL(fileURLWithPath: file), path: file)
            } catch {
                report("\(error) (not imported)")
                refused += 1
                continue
            }
            for warning in parsed.warnings { report(warning.description) }
            let target = destination.appendingPathComponent(name)
            let sameID = existing.entries.first {
                $0.id == parsed.story.id && URL(fileURLWithPath: $0.path).standardizedFileURL != target.standardizedFileURL
            }
            if let sameID {
                report("\(Sanitizer.sanitizeLine(file)): not imported: the story '\(sameID.title)' (\(Sanitizer.sanitizeLine(sameID.path))) has the same id '\(parsed.story.id)': rename the file")
                refused += 1
                continue
            }
            if FileManager.default.fileExists(atPath: target.path), !replace {
                report("\(Sanitizer.sanitizeLine(file)): not imported: \(Sanitizer.sanitizeLine(target.path)) already exists: pass --replace to replace it")
                refused += 1
                continue
            }
            do {
                if !createdFolder {
                    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
                    createdFolder = true
                }
                try copyReplacing(URL(fileURLWithPath: file), to: target)
                for case .picture(let picture?) in parsed.story.pictures.map(\.kind) {
                    let source = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(picture)
                    let pictureTarget = destination.appendingPathComponent(picture)
                    try FileManager.default.createDirectory(at: pictureTarget.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try copyReplacing(source, to: pictureTarget)
                }
            } catch {
                throw UserFailure(message: "could not copy \(Sanitizer.sanitizeLine(file)) into \(destination.path): \(error.localizedDescription). Check that the folder is writable, or choose another with --data-dir")
            }
            print("Imported “\(parsed.story.title)” (\(parsed.story.id)) into \(destination.path)")
            imported += 1
        }
        if refused > 0 {
            throw UserFailure(message: "\(imported) imported, \(refused) refused")
        }
    }

    /// A Project Gutenberg file: each tale of a collection (or the whole book) becomes a story
    /// file of our own format, checked by the same parser before it is written.
    private func importGutenberg(_ text: String, file: String, into destination: URL, existing: StoryLibrary) -> (imported: Int, refused: Int) {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let book = GutenbergBook(text: text, fallbackTitle: name)
        return importConverted(book.stories(bookID: BookStory.slug(book.title)), from: book.title, kind: "Project Gutenberg",
                               file: file, into: destination, existing: existing)
    }

    /// Stories made from a book, each checked by the story parser, then written beside and renamed.
    private func importConverted(_ stories: [BookStory], from bookTitle: String, kind: String, file: String,
                                 into destination: URL, existing: StoryLibrary) -> (imported: Int, refused: Int) {
        var imported = 0, refused = 0
        if !dryRun { try? FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true) }
        for story in stories {
            let id = story.id, markdown = story.markdown
            let target = destination.appendingPathComponent(id + ".md")
            let parsed: ParsedStory
            do {
                parsed = try StoryParser.parse(text: markdown, path: target.path)
            } catch {
                report("\(Sanitizer.sanitizeLine(file)), \(id): \(error) (not imported)")
                refused += 1
                continue
            }
            if dryRun {
                print("Would import “\(parsed.story.title)” (\(parsed.story.id)), \(parsed.story.language), \(parsed.story.words.count) words, \(parsed.story.pictures.count) pictures, from “\(bookTitle)”")
                continue
            }
            if let same = existing.entries.first(where: { $0.id == parsed.story.id }), URL(fileURLWithPath: same.path).standardizedFileURL != target.standardizedFileURL || !replace {
                report("\(Sanitizer.sanitizeLine(file)): “\(parsed.story.title)” not imported: the story '\(same.title)' has the same id '\(same.id)'\(replace ? "" : ": pass --replace to replace it")")
                refused += 1
                continue
            }
            do {
                let temporary = destination.appendingPathComponent(".\(id).md.import")
                try Data(markdown.utf8).write(to: temporary)
                guard rename(temporary.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
                imported += 1
            } catch {
                report("could not write \(target.path): \(error.localizedDescription)")
                refused += 1
            }
        }
        if !dryRun, imported > 0 {
            print("Imported \(imported) \(imported == 1 ? "story" : "stories") from “\(bookTitle)” (\(kind)) into \(destination.path)")
        }
        return (imported, refused)
    }

    private func copyReplacing(_ source: URL, to target: URL) throws {
        // Copy beside, then rename: a failed copy never leaves half a story.
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).import")
        try? FileManager.default.removeItem(at: temporary)
        try FileManager.default.copyItem(at: source, to: temporary)
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    private func report(_ line: String) {
        FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(line))\n".utf8))
    }
}
