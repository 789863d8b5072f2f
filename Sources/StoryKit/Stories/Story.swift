/// A story, parsed from a Markdown (`.md`) or plain-text (`.txt`) file and sanitized.
///
/// The story's **plain text** (`text`) is what is shown, spoken and highlighted: the body without
/// markup, blocks separated by a blank line, a picture standing as its description. Every block,
/// sentence and word carries its `TextRange` in that text (Unicode scalar offsets) and the line
/// of the file it came from.
public struct Story: Sendable, Hashable, Identifiable {
    /// Stable id from the file name: lower case, letters, digits and `-` (`the-lighthouse-cat`).
    public var id: String
    public var title: String
    public var author: String?
    public var ages: AgeRange?
    /// Interests such as `animals`, `space`, `friendship`, lower case.
    public var tags: [String]
    /// An eSpeak NG voice language such as `en`, `es`, `fr`, `de`; `en` when the file says nothing.
    public var language: String
    public var summary: String?
    /// The story's licence line (`licence:` in the file), carried into exported files' tags.
    public var licence: String?
    /// The book the story is one work of (`book:`; an imported collection's title), and its place
    /// in that book (`part:`, from 1): an export of the whole book keeps the book's order.
    public var book: String?
    public var part: Int?
    /// The story's clip list (`recording:`): its recorded narration, relative to the story's
    /// folder (see `StoryRecording`).
    public var recording: String?
    /// The file the story came from, as given to the library.
    public var path: String
    /// The plain text of the body (see the type's summary).
    public var text: String
    /// Pages, split at thematic breaks (`---`); a story without breaks has one page.
    public var pages: [StoryPage]
    /// The printed book's page numbers (`print-pages:`, kept by `import` from DAISY and EPUB
    /// books), in order; empty for a story without them. Never part of `text`: never read aloud.
    public var printPages: [PrintPage] = []

    public init(
        id: String, title: String, author: String? = nil, ages: AgeRange? = nil, tags: [String] = [],
        language: String = "en", summary: String? = nil, licence: String? = nil,
        book: String? = nil, part: Int? = nil, recording: String? = nil, path: String, text: String, pages: [StoryPage]
    ) {
        self.id = id
        self.title = title
        self.author = author
        self.ages = ages
        self.tags = tags
        self.language = language
        self.summary = summary
        self.licence = licence
        self.book = book
        self.part = part
        self.recording = recording
        self.path = path
        self.text = text
        self.pages = pages
    }

    /// Every block of every page, in reading order.
    public var blocks: [StoryBlock] { pages.flatMap(\.blocks) }
    /// Every sentence of every block, in reading order.
    public var sentences: [Sentence] { blocks.flatMap(\.sentences) }
    /// Every word, in reading order.
    public var words: [Word] { sentences.flatMap(\.words) }
    /// Words in headings and paragraphs (picture descriptions are not counted).
    public var wordCount: Int {
        blocks.reduce(0) { count, block in
            if case .picture = block.kind { return count }
            return count + block.sentences.reduce(0) { $0 + $1.words.count }
        }
    }
    /// Paragraph blocks only.
    public var paragraphs: [StoryBlock] { blocks.filter { $0.kind == .paragraph } }
    /// Picture blocks only.
    public var pictures: [StoryBlock] { blocks.filter { if case .picture = $0.kind { true } else { false } } }
}

/// Where one of a printed book's pages starts: its number as printed ("12", "xii") and the
/// scalar offset in `Story.text` of its first character.
public struct PrintPage: Sendable, Hashable {
    public var label: String
    public var position: Int

    public init(label: String, position: Int) {
        self.label = label
        self.position = position
    }
}

/// An inclusive range of ages in years, such as 4–7.
public struct AgeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    public var lower: Int
    public var upper: Int

    public init(lower: Int, upper: Int) {
        self.lower = lower
        self.upper = upper
    }

    public func contains(_ age: Int) -> Bool { age >= lower && age <= upper }
    /// `4-7`, the form used in story files and JSON.
    public var description: String { lower == upper ? "\(lower)" : "\(lower)-\(upper)" }
}

/// One page of a story: the blocks between two thematic breaks.
public struct StoryPage: Sendable, Hashable {
    /// 0-based.
    public var index: Int
    public var blocks: [StoryBlock]

    public init(index: Int, blocks: [StoryBlock]) {
        self.index = index
        self.blocks = blocks
    }
}

/// A heading, a paragraph or a picture.
public struct StoryBlock: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `#` is level 1, `##` level 2, and so on.
        case heading(level: Int)
        case paragraph
        /// A picture: its text is the audio description; `file` is the optional text-art file,
        /// relative to the story's folder as written in the story.
        case picture(file: String?)
    }

    public var kind: Kind
    /// The block's plain text (for a picture, its description).
    public var text: String
    /// Where `text` stands in `Story.text`.
    public var range: TextRange
    /// The sentences of the block, in order.
    public var sentences: [Sentence]
    /// Emphasised stretches (`*like this*`), as ranges in `Story.text`.
    public var emphasis: [TextRange]
    /// 1-based line of the file where the block starts.
    public var line: Int

    public init(kind: Kind, text: String, range: TextRange, sentences: [Sentence], emphasis: [TextRange] = [], line: Int) {
        self.kind = kind
        self.text = text
        self.range = range
        self.sentences = sentences
        self.emphasis = emphasis
        self.line = line
    }
}
