import Foundation

/// A piece of a book's text, the same for every kind of book (EPUB, Project Gutenberg).
public enum BookBlock: Sendable, Hashable {
    case heading(String)
    /// A paragraph; a line break inside it is a verse line, kept.
    case paragraph(String)
    /// A picture's spoken description (its alt text).
    case picture(String)
    /// A page turn (a new chapter, a page of a picture book, a `* * *` break).
    case page
}

/// One clip of a book's recorded narration, placed in its story's text.
public struct BookClip: Sendable, Hashable {
    /// The index in `BookStory.blocks` (page turns counted).
    public var block: Int
    /// Scalar offsets in the block's text.
    public var text: Range<Int>
    /// The audio file, as the book names it (a path in an EPUB).
    public var audio: String
    /// Milliseconds in the audio file; `end` nil is its end.
    public var begin: Int
    public var end: Int?

    public init(block: Int, text: Range<Int>, audio: String, begin: Int, end: Int?) {
        self.block = block
        self.text = text
        self.audio = audio
        self.begin = begin
        self.end = end
    }
}

/// Where one of a book's print pages starts: its number as printed ("12", "xii"), the block (an
/// index in `BookStory.blocks`, page turns counted) and the scalar offset in the block's text.
public struct BookPage: Sendable, Hashable {
    public var label: String
    public var block: Int
    public var offset: Int

    public init(label: String, block: Int, offset: Int) {
        self.label = label
        self.block = block
        self.offset = offset
    }
}

/// One story made from a book, written as a story file of our own format (docs/story-format.md)
/// so that the rest of the program reads it like any other.
public struct BookStory: Sendable, Hashable {
    public var id: String
    public var title: String
    public var author: String?
    public var language: String
    /// The book's title when the story is one work of a collection ("From Fables.").
    public var book: String?
    /// The work's place in its book, from 1 (a collection's works only).
    public var part: Int?
    public var blocks: [BookBlock]
    /// The book's licence line, where it has one (a Project Gutenberg book's licence).
    public var licence: String?
    /// Its recorded narration, clip by clip (an EPUB's Media Overlays); empty when it has none.
    public var clips: [BookClip] = []
    /// The clip list the story file names (`recording:`), when the recording is kept.
    public var recordingFile: String?
    /// The printed book's page numbers, in order (never read aloud: written in the header).
    public var printPages: [BookPage] = []

    public init(id: String, title: String, author: String?, language: String, book: String?, blocks: [BookBlock], licence: String? = nil) {
        self.id = id
        self.title = title
        self.author = author
        self.language = language
        self.book = book
        self.blocks = blocks
        self.licence = licence
    }

    /// The picture descriptions, in order (what the dry run lists).
    public var pictures: [String] {
        blocks.compactMap { if case .picture(let description) = $0 { description } else { nil } }
    }

    /// The story file: a header, then the blocks separated by blank lines.
    public var markdown: String {
        var header = "---\ntitle: \(Self.headerValue(title))\n"
        if let author { header += "author: \(Self.headerValue(author))\n" }
        header += "language: \(language)\n"
        if let book {
            header += "summary: From \(Self.headerValue(book)).\nbook: \(Self.headerValue(book))\n"
            if let part { header += "part: \(part)\n" }
        }
        if let licence { header += "licence: \(Self.headerValue(licence))\n" }
        if let recordingFile { header += "recording: \(Self.headerValue(recordingFile))\n" }
        let pages = printPageLines
        if !pages.isEmpty { header += "print-pages:\n" + pages.map { "- \($0)\n" }.joined() }
        header += "---\n\n"
        var lines: [String] = []
        for block in blocks {
            switch block {
            case .heading(let text): lines.append("# " + Self.oneLine(text))
            case .paragraph(let text): lines.append(Self.escapeMarkdown(text))
            // The description is all a listener gets: the book's picture file is not copied.
            case .picture(let description): lines.append("![\(Self.oneLine(description).replacingOccurrences(of: "]", with: ")"))]()")
            case .page: if !lines.isEmpty, lines.last != "---" { lines.append("---") }
            }
        }
        while lines.last == "---" { lines.removeLast() }
        return header + lines.joined(separator: "\n\n") + "\n"
    }

    /// The print pages as the story file's header lists them (`print-pages:`, docs/story-format.md):
    /// `BLOCK:OFFSET LABEL`, the block counted from 1 among the text's blocks (page turns are not
    /// blocks). A page that starts after its block's text (or on a page turn) starts with the
    /// next block; one after the whole text is left out.
    var printPageLines: [String] {
        var number: [Int] = []
        var count = 0
        for block in blocks {
            if case .page = block {
                number.append(-1)
            } else {
                count += 1
                number.append(count)
            }
        }
        return printPages.compactMap { page in
            var block = max(page.block, 0)
            var offset = page.offset
            while block < blocks.count {
                switch blocks[block] {
                case .heading(let text), .paragraph(let text), .picture(let text):
                    if offset < text.unicodeScalars.count {
                        let label = Self.oneLine(page.label).trimmingCharacters(in: .whitespaces)
                        return label.isEmpty ? nil : "\(number[block]):\(max(offset, 0)) \(label)"
                    }
                case .page: break
                }
                block += 1
                offset = 0
            }
            return nil
        }
    }

    /// The story's clips as a clip list for `story` (this book story written and parsed again),
    /// the audio files renamed by `audioNames`: each clip is placed in the parsed block whose
    /// text it covers, found again by its text where the parser changed the block; a clip whose
    /// text is not found is left out (eSpeak NG reads that text) and counted.
    public func recording(for story: Story, audioNames: [String: String]) -> (recording: StoryRecording, dropped: Int) {
        let parsed = story.blocks
        var placed: [Int: Int] = [:]
        var next = 0
        for (index, block) in blocks.enumerated() {
            let text: String
            switch block {
            case .heading(let value), .paragraph(let value), .picture(let value): text = value
            case .page: continue
            }
            guard next < parsed.count else { break }
            // The parser may drop a block (a picture without a description): look a little ahead.
            let found = (next..<min(next + 4, parsed.count)).first { parsed[$0].text == text } ?? next
            placed[index] = found
            next = found + 1
        }
        var kept: [StoryRecording.Clip] = []
        var dropped = 0
        var searchFrom: (block: Int, offset: Int) = (-1, 0)
        // Each block's scalars once (a paragraph of 32,000 word clips made them 32,000 times:
        // import was quadratic in the clips of one paragraph).
        var scalars: [Int: [Unicode.Scalar]] = [:]
        var previous: BookClip?
        for clip in clips(placedIn: placed) {
            guard let target = clip.target, let audio = audioNames[clip.source.audio] else {
                dropped += 1
                continue
            }
            let wanted = Array(clip.fragment.unicodeScalars)
            let have = scalars[target] ?? Array(parsed[target].text.unicodeScalars)
            scalars[target] = have
            var range = clip.source.text
            if let last = kept.last, let previous, previous.block == clip.source.block, previous.text == clip.source.text {
                // The same text's audio going on in another file: placed where its first clip was.
                range = last.text ?? range
            } else if range.upperBound > have.count || !have[range].elementsEqual(wanted) {
                let from = searchFrom.block == target ? searchFrom.offset : 0
                let last = max(from, have.count - wanted.count + 1)
                let start = (from..<last).first { (at: Int) -> Bool in have[at..<(at + wanted.count)].elementsEqual(wanted) }
                guard !wanted.isEmpty, let start else {
                    dropped += 1
                    continue
                }
                range = start..<(start + wanted.count)
            }
            searchFrom = (target, range.upperBound)
            previous = clip.source
            kept.append(StoryRecording.Clip(block: target, text: range, audio: audio, begin: clip.source.begin, end: clip.source.end))
        }
        return (StoryRecording(clips: kept), dropped)
    }

    private func clips(placedIn placed: [Int: Int]) -> [(source: BookClip, target: Int?, fragment: String)] {
        var blockScalars: [Int: [Unicode.Scalar]] = [:]
        return self.clips.map { clip in
            guard clip.block < blocks.count else { return (clip, nil, "") }
            let text: String
            switch blocks[clip.block] {
            case .heading(let value), .paragraph(let value), .picture(let value): text = value
            case .page: return (clip, nil, "")
            }
            let scalars = blockScalars[clip.block] ?? Array(text.unicodeScalars)
            blockScalars[clip.block] = scalars
            guard clip.text.upperBound <= scalars.count else { return (clip, nil, "") }
            return (clip, placed[clip.block], String(String.UnicodeScalarView(scalars[clip.text])))
        }
    }

    /// A collection's works numbered in the book's order (an export of the whole book keeps it).
    static func numbered(_ stories: [BookStory]) -> [BookStory] {
        stories.enumerated().map { index, story in
            var story = story
            if story.book != nil { story.part = index + 1 }
            return story
        }
    }

    /// Ids made unique within one book: `book-the-fox`, then `book-the-fox-2`.
    static func uniqueIDs(_ ids: [String]) -> [String] {
        var used = Set<String>()
        return ids.map { wanted in
            var id = wanted
            var number = 2
            while !used.insert(id).inserted {
                id = "\(wanted)-\(number)"
                number += 1
            }
            return id
        }
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// A header value on one line; quoted when a plain value would be read otherwise (a leading
    /// quote or spaces would be taken off).
    static func headerValue(_ text: String) -> String {
        let line = oneLine(text).trimmingCharacters(in: .whitespaces)
        return line.first == "\"" || line.first == "'" ? "\"\(line.replacingOccurrences(of: "\"", with: "'"))\"" : line
    }

    /// Book text is plain text, never Markdown: every character our format would read as markup
    /// (emphasis, code, links, escapes; a heading, quote or picture at a line's start) is escaped.
    /// Each verse line is checked, as each starts a line of the file.
    static func escapeMarkdown(_ paragraph: String) -> String {
        paragraph.split(separator: "\n").map { line in
            var escaped = ""
            for character in line {
                if "\\`*_[".contains(character) { escaped.append("\\") }
                escaped.append(character)
            }
            if let first = escaped.first, "#>!-+=|".contains(first) { escaped = "\\" + escaped }
            return escaped
        }.joined(separator: "\n")
    }

    /// An id from a title: lower case letters and digits joined by `-` (`The Fox & the Grapes` →
    /// `the-fox-the-grapes`).
    public static func slug(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var slug = ""
        for scalar in folded.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar)) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("-"), !slug.isEmpty {
                slug.append("-")
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "story" : String(String(slug.prefix(60)).trimmingSuffix("-"))
    }
}

extension String {
    fileprivate func trimmingSuffix(_ character: Character) -> String {
        var result = self
        while result.last == character { result.removeLast() }
        return result
    }
}
