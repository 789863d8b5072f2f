import ArgumentParser
import Foundation
import StoryKit

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: helpMessages.tr("List the stories."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "On a terminal: a table. Otherwise one story a line, fields separated by tabs: id, title, author, language, ages, words, tags (comma-separated). With --json: an array of objects with id, title, author, language, ages, tags, words, summary, pages, pictures and path."
            ),
            helpMessages.tr(
                "With --profile NAME each story also shows that child's progress: the read count and whether it is a favourite (two more tab-separated fields, `readCount` and `favourite` in JSON)."
            ),
            helpMessages.tr("Problems with story files are reported on standard error; the exit status is 0 when at least one story loaded."))
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON.")))
    var json = false

    @Option(help: ArgumentHelp(helpMessages.tr("Only stories suitable for a child of this age."), valueName: "years"))
    var age: Int?

    @Option(help: ArgumentHelp(helpMessages.tr("Only stories with this interest tag (animals, space, …)."), valueName: "tag"))
    var tag: String?

    @Option(help: ArgumentHelp(helpMessages.tr("Only stories whose title, author or summary contain these words."), valueName: "words"))
    var search: String?

    @Option(help: ArgumentHelp(helpMessages.tr("Show this child's read counts and favourites."), valueName: "name"), completion: ShellCompletion.profiles)
    var profile: String?

    func validate() throws {
        if let age, !(0...18).contains(age) {
            throw ValidationError(helpMessages.tr("--age {value} is out of range: use an age from 0 to 18", ["value": String(age)]))
        }
    }

    func run() throws {
        let library = global.loadLibrary()
        if library.entries.isEmpty {
            throw UserFailure(
                message: global.messages.tr("no stories were found: add stories with 'storyreader import FILE' or name a folder with --stories DIR"))
        }
        let stories = library.search(words: search, age: age, tag: tag)
        let progress = try profile.map { try profileProgress(named: $0) }
        if json {
            print(try StoryListing.json(stories, progress: progress))
        } else if TerminalIO.outputIsTerminal {
            let messages = global.messages
            print(StoryListing.table(stories, width: TerminalIO.size().columns, progress: progress, messages: messages), terminator: "")
            if stories.isEmpty { print(messages.tr("No stories match.")) }
        } else {
            for story in stories { print(StoryListing.line(story, progress: progress)) }
        }
    }

    /// The child's read counts and favourites, by story id.
    private func profileProgress(named name: String) throws -> [String: StoryProgress] {
        let store = try StoreCommandSupport.openStore(global, readOnly: true)
        do {
            let profile = try store.requireProfile(named: name)
            return try store.progress(profileID: profile.id ?? 0)
        } catch {
            throw StoreCommandSupport.fail(error, global.messages)
        }
    }
}

/// The ways `list` prints stories.
enum StoryListing {
    struct Listed: Encodable {
        var id: String
        var title: String
        var author: String?
        var language: String
        var ages: String?
        var tags: [String]
        var words: Int
        var summary: String?
        var pages: Int
        var pictures: Int
        var path: String
        /// An imported collection's work: its book and its place in it.
        var book: String?
        var part: Int?
        /// Its recorded narration: the clip list, and how long it plays (see `show --json`).
        var recording: StoryDetails.Recording?
        /// With `--profile`: how many times the child finished the story, and whether it is a favourite.
        var readCount: Int?
        var favourite: Bool?
    }

    static func listed(_ entry: StoryEntry, progress: [String: StoryProgress]? = nil) -> Listed {
        let mine = progress.map { $0[entry.id] ?? StoryProgress() }
        return Listed(
            id: entry.id, title: entry.title, author: entry.author, language: entry.language,
            ages: entry.ages?.description, tags: entry.tags, words: entry.words, summary: entry.summary,
            pages: entry.pages, pictures: entry.pictures, path: entry.path,
            book: entry.book, part: entry.part, recording: recording(entry), readCount: mine?.readCount, favourite: mine?.isFavourite)
    }

    /// The recording of a story that names one, read from its file (only those stories are read).
    static func recording(_ entry: StoryEntry) -> StoryDetails.Recording? {
        guard entry.recording != nil, let story = try? StoryParser.parse(contentsOf: URL(fileURLWithPath: entry.path), path: entry.path).story else {
            return nil
        }
        return StoryDetails.recording(story, messages: .english)
    }

    static func json(_ entries: [StoryEntry], progress: [String: StoryProgress]? = nil) throws -> String {
        try JSONText.encode(entries.map { listed($0, progress: progress) })
    }

    static func line(_ entry: StoryEntry, progress: [String: StoryProgress]? = nil) -> String {
        var fields = [
            entry.id, entry.title, entry.author ?? "", entry.language, entry.ages?.description ?? "",
            String(entry.words), entry.tags.joined(separator: ","),
        ]
        if let progress {
            let mine = progress[entry.id] ?? StoryProgress()
            fields += [String(mine.readCount), mine.isFavourite ? "favourite" : ""]
        }
        return fields.joined(separator: "\t")
    }

    /// A table that fits `width` columns: the title column takes what the others leave.
    static func table(_ entries: [StoryEntry], width: Int, progress: [String: StoryProgress]? = nil, messages: MessageCatalog = .english) -> String {
        var headers = [messages.tr("Title"), messages.tr("Ages"), messages.tr("Lang"), messages.tr("Words"), messages.tr("Tags")]
        var rows = entries.map { entry in
            [entry.title, entry.ages?.description ?? messages.tr("all"), entry.language, String(entry.words), entry.tags.joined(separator: ", ")]
        }
        if let progress {
            // With --profile: "Reads" and "Fav" after the tags.
            headers += [messages.tr("Reads"), messages.tr("Fav")]
            for (index, entry) in entries.enumerated() {
                let mine = progress[entry.id] ?? StoryProgress()
                rows[index] += [String(mine.readCount), mine.isFavourite ? messages.tr("yes") : ""]
            }
        }
        rows.insert(headers, at: 0)
        var widths = (0..<headers.count).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        let gaps = 2 * (headers.count - 1)
        let fixed = widths[1] + widths[2] + widths[3] + widths.dropFirst(5).reduce(0, +) + gaps
        let available = max(10, width - fixed)
        // Share what is left between title and tags, title first.
        widths[0] = min(widths[0], max(10, available - min(widths[4], available / 3)))
        widths[4] = max(4, min(widths[4], available - widths[0]))
        var output = ""
        for (index, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, text in
                let fitted = TextFit.truncate(text, to: widths[column])
                let padding = String(repeating: " ", count: max(0, widths[column] - DisplayWidth.of(fitted)))
                return column == 3 || column == 5 ? padding + fitted : fitted + padding
            }
            output += cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
            if index == 0 {
                output += widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return output
    }
}

enum TextFit {
    /// `text` cut to `width` columns with an ellipsis when it does not fit.
    static func truncate(_ text: String, to width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }
}

enum JSONText {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
