import ArgumentParser
import Foundation
import StoryKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: helpMessages.tr("Copy your own stories, EPUBs and Project Gutenberg books into your stories folder."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "Each FILE (.md, .markdown or .txt; see docs/story-format.md) is checked first: a file with errors is refused with its message and the good ones are still copied, together with the picture files they name. A story whose file name or id is already in your folder is refused unless you pass --replace. Exit status 1 when any file was refused."
            ),
            helpMessages.tr(
                "A Project Gutenberg .txt file (UTF-8 or Latin-1) is recognised by its START marker: its header and licence are left out, and a collection becomes one story per tale (found from its contents list), with the book's title, author and language."
            ),
            helpMessages.tr(
                "An EPUB (2 or 3) is read in its reading order without its title page, imprint, licence, footnotes or page numbers; a picture's alt text becomes its spoken description. A novel becomes one story with its chapters as headings on their own pages; a collection (several works with their own titles) one story per work, which --as-one and --split decide instead. A chapter that cannot be read is named and skipped, the rest imported."
            ),
            helpMessages.tr(
                "A DAISY 2.02 or DAISY 3 talking book (a folder with ncc.html or an .opf package, or a zip of one) becomes one story that plays the book's own recording, sentence by sentence as its text is highlighted; an audio-only book's headings are its text, each playing its part of the recording."
            ),
            helpMessages.tr(
                "--dry-run lists what would be imported (title, id, language, words, pictures with their descriptions, warnings) and writes nothing; --json prints the same as JSON."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader import --dry-run tales.txt",
                "  storyreader import aesop-fables.epub",
                "  storyreader import --as-one --json picture-book.epub"))
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: ArgumentHelp(helpMessages.tr("Replace a story already in your folder with the same file name.")))
    var replace = false

    @Flag(help: ArgumentHelp(helpMessages.tr("Show what would be imported (titles, languages, words, pictures) and write nothing.")))
    var dryRun = false

    @Flag(help: ArgumentHelp(helpMessages.tr("Print what was (or, with --dry-run, would be) imported as JSON, for scripts.")))
    var json = false

    @Flag(help: ArgumentHelp(helpMessages.tr("An EPUB becomes one story, even when it holds several works.")))
    var asOne = false

    @Flag(help: ArgumentHelp(helpMessages.tr("An EPUB's works (the articles of a collection) become one story each.")))
    var split = false

    @Argument(help: ArgumentHelp(helpMessages.tr("Story files, EPUBs or Project Gutenberg .txt files to import."), valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError(helpMessages.tr("name at least one story file to import")) }
        if asOne, split { throw ValidationError(helpMessages.tr("--as-one and --split ask for opposite things: give one of them")) }
    }

    func run() throws {
        // Every story the library shows (bundled and yours): an import with the same id would be
        // hidden behind it (or hide it).
        // A dry run writes nothing, not even the library's cache.
        let existing = dryRun ? StoryLibrary.load(folders: global.storyFolderPaths().0) : global.loadLibrary(reportProblems: false)
        var importer = StoryImporter(
            destination: global.userStoriesFolder(), existing: existing,
            replace: replace, dryRun: dryRun, split: asOne ? false : (split ? true : nil))
        if !json && StatusLine.isShown { importer.showStatus = StatusLine.show }
        importer.messages = global.messages
        for file in files {
            do { try importer.importFile(file) } catch let failure as ImportFailure { throw UserFailure(message: failure.message) }
        }
        let results = importer.results
        if json {
            try StoreCommandSupport.printJSON(results)
        } else {
            for line in ImportResult.summary(results, dryRun: dryRun, destination: importer.destination.path, messages: global.messages) { print(line) }
        }
        let refused = results.filter { $0.status == .refused }.count
        if refused > 0 {
            let done = results.count - refused
            let messages = global.messages
            let values = ["done": String(done), "refused": messages.trn("{count} refused", "{count} refused", refused)]
            throw UserFailure(
                message: dryRun
                    ? messages.trn("{count} would be imported, {refused}", "{count} would be imported, {refused}", done, values)
                    : messages.trn("{count} imported, {refused}", "{count} imported, {refused}", done, values))
        }
    }
}
