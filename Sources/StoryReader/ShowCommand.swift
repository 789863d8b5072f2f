import ArgumentParser
import Foundation
import StoryKit

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: helpMessages.tr("Show one story's details, or its text."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "STORY is a story's id, its title, or a unique beginning of either ('lighthouse' for 'The Lighthouse Cat'). An unknown or ambiguous name exits with status 1 and lists the closest matches."
            ),
            helpMessages.tr(
                "--text prints the story's plain text: the text that is spoken and highlighted. The offsets in --json and in 'read --events json' count Unicode scalars in this text."
            ))
    )

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(helpMessages.tr("The story: an id, a title, or a unique beginning of either."), valueName: "story"),
        completion: ShellCompletion.stories)
    var story: String

    @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON: the details, and every page, block and sentence with its offsets.")))
    var json = false

    @Flag(help: ArgumentHelp(helpMessages.tr("Print the story's plain text.")))
    var text = false

    func run() throws {
        let story = try global.resolveStory(self.story)
        if json {
            print(try JSONText.encode(StoryDetails(story, includeText: text, messages: global.messages)))
        } else if text {
            print(story.text)
        } else {
            print(StoryDetails.describe(story, messages: global.messages), terminator: "")
        }
    }
}

/// `show --json`.
struct StoryDetails: Encodable {
    struct Block: Encodable {
        var kind: String
        var level: Int?
        var file: String?
        var text: String
        var start: Int
        var end: Int
        var line: Int
        var sentences: [SentenceDetails]
    }

    struct SentenceDetails: Encodable {
        var text: String
        var start: Int
        var end: Int
        var words: Int
    }

    struct Page: Encodable {
        var index: Int
        var blocks: [Block]
    }

    /// The story's recorded narration: its clip list, how many sentences it says, and its length.
    struct Recording: Encodable {
        var clips: String
        var sentences: Int
        var of: Int
        var milliseconds: Int
        /// Why it cannot be used (then eSpeak NG reads the story).
        var problem: String?
    }

    var id: String
    var title: String
    var author: String?
    var language: String
    var ages: String?
    var tags: [String]
    var summary: String?
    var words: Int
    var path: String
    var pages: [Page]
    var text: String?
    var recording: Recording?
    /// The printed book's page numbers (`print-pages:`), each with where it starts in the text.
    var printPages: [PrintPageDetails]?

    struct PrintPageDetails: Encodable {
        var label: String
        var start: Int
    }

    init(_ story: Story, includeText: Bool, messages: MessageCatalog = .english) {
        id = story.id
        title = story.title
        author = story.author
        language = story.language
        ages = story.ages?.description
        tags = story.tags
        summary = story.summary
        words = story.wordCount
        path = story.path
        text = includeText ? story.text : nil
        recording = Self.recording(story, messages: messages)
        printPages = story.printPages.isEmpty ? nil : story.printPages.map { PrintPageDetails(label: $0.label, start: $0.position) }
        pages = story.pages.map { page in
            Page(
                index: page.index,
                blocks: page.blocks.map { block in
                    var kind = "paragraph"
                    var level: Int?
                    var file: String?
                    switch block.kind {
                    case .heading(let headingLevel):
                        kind = "heading"
                        level = headingLevel
                    case .paragraph: break
                    case .picture(let pictureFile):
                        kind = "picture"
                        file = pictureFile
                    }
                    return Block(
                        kind: kind, level: level, file: file, text: block.text, start: block.range.start,
                        end: block.range.end, line: block.line,
                        sentences: block.sentences.map { SentenceDetails(text: $0.text, start: $0.range.start, end: $0.range.end, words: $0.words.count) })
                })
        }
    }

    static func recording(_ story: Story, messages: MessageCatalog) -> Recording? {
        guard let clips = story.recording, let narration = try? Narration(story: story) else { return nil }
        do {
            let resolved = try StoryRecording.load(for: story, narration: narration)
            return Recording(
                clips: clips, sentences: resolved?.recordedCount ?? 0, of: narration.items.count,
                milliseconds: resolved?.durationMilliseconds ?? 0)
        } catch {
            return Recording(clips: clips, sentences: 0, of: narration.items.count, milliseconds: 0, problem: error.localized(messages))
        }
    }

    /// The readable form.
    static func describe(_ story: Story, messages: MessageCatalog = .english) -> String {
        var lines: [String] = [story.title]
        if let author = story.author { lines.append(messages.tr("by {author}", ["author": author])) }
        var facts: [String] = []
        facts.append(story.ages.map { messages.tr("ages {ages}", ["ages": $0.description]) } ?? messages.tr("all ages"))
        facts.append("\(messages.tr(LanguageNames.name(for: story.language))) (\(story.language))")
        facts.append(messages.trn("{count} word", "{count} words", story.wordCount))
        facts.append(messages.trn("{count} page", "{count} pages", story.pages.count))
        let pictures = story.pictures
        if !pictures.isEmpty { facts.append(messages.trn("{count} picture", "{count} pictures", pictures.count)) }
        lines.append(facts.joined(separator: ", "))
        if !story.tags.isEmpty { lines.append(messages.tr("Tags: {tags}", ["tags": story.tags.joined(separator: ", ")])) }
        if let recording = recording(story, messages: messages) {
            if let problem = recording.problem {
                lines.append(messages.tr("Recording: not used ({problem}); eSpeak NG reads it", ["problem": problem]))
            } else {
                lines.append(
                    messages.trn(
                        "Recording: {duration}, {count} sentence of {total} (the rest is read by eSpeak NG)",
                        "Recording: {duration}, {count} sentences of {total} (the rest is read by eSpeak NG)", recording.sentences,
                        [
                            "duration": ExportCommand.duration(recording.milliseconds), "total": String(recording.of),
                        ]))
            }
        }
        if let first = story.printPages.first, let last = story.printPages.last {
            // Never read aloud: kept to find a page of the printed book (`page 12`, the g key).
            lines.append(
                messages.tr(
                    "Print pages: {count} ({first} to {last})", ["count": String(story.printPages.count), "first": first.label, "last": last.label]))
        }
        if let summary = story.summary { lines += ["", summary] }
        let headings = story.blocks.filter { if case .heading = $0.kind { true } else { false } }
        if !headings.isEmpty {
            lines += ["", messages.tr("Chapters:")]
            lines += headings.map { "  • \($0.text)" }
        }
        if !pictures.isEmpty {
            lines += ["", messages.tr("Pictures:")]
            lines += pictures.map { "  • \($0.text)" }
        }
        lines += [
            "", messages.tr("Read it: {command}", ["command": "storyreader read \(story.id)"]),
            messages.tr("File: {path}", ["path": Sanitizer.sanitizeLine(story.path)]),
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

enum LanguageNames {
    static let names = [
        "en": N_("English"), "en-us": N_("English (America)"), "es": N_("Spanish"), "fr": N_("French"), "de": N_("German"),
        "it": N_("Italian"), "pt": N_("Portuguese"), "nl": N_("Dutch"), "sv": N_("Swedish"), "pl": N_("Polish"),
    ]

    /// The language's English name (marked for the catalogs: translate it where it is shown).
    static func name(for code: String) -> String {
        names[code] ?? names[String(code.prefix(while: { $0 != "-" }))] ?? code
    }
}
