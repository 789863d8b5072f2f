import Foundation

/// Turns the body lines of a story file into pages of blocks and the story's plain text.
struct BodyBuilder {
    let path: String
    let format: StoryParser.Format

    private struct PendingBlock {
        var kind: StoryBlock.Kind
        var text: String
        var emphasis: [TextRange]  // local scalar offsets in `text`
        var line: Int
    }

    private var pages: [[PendingBlock]] = [[]]
    private var paragraphLines: [String] = []
    private var paragraphLine = 0

    init(path: String, format: StoryParser.Format) {
        self.path = path
        self.format = format
    }

    mutating func build(lines: [String], from start: Int, warnings: inout [StoryProblem]) {
        var index = start
        while index < lines.count {
            let line = lines[index]
            let lineNumber = index + 1
            index += 1
            let trimmed = line.trimmedWhitespace()
            if trimmed.isEmpty {
                flushParagraph()
                continue
            }
            guard format == .markdown else {
                appendParagraphLine(trimmed, lineNumber: lineNumber)
                continue
            }
            if Self.isThematicBreak(trimmed) {
                flushParagraph()
                if !(pages.last?.isEmpty ?? true) { pages.append([]) }
                continue
            }
            if let (level, heading) = Self.heading(trimmed) {
                flushParagraph()
                let inline = InlineMarkdown.render(heading)
                if !inline.text.trimmedWhitespace().isEmpty {
                    pages[pages.count - 1].append(PendingBlock(kind: .heading(level: level), text: inline.text, emphasis: inline.emphasis, line: lineNumber))
                }
                continue
            }
            if let (description, file) = Self.picture(trimmed) {
                flushParagraph()
                let inline = InlineMarkdown.render(description)
                let text = inline.text.trimmedWhitespace()
                var pictureFile: String? = file.isEmpty ? nil : file
                if let name = pictureFile {
                    if name.hasPrefix("/") || name.split(separator: "/").contains("..") {
                        warnings.append(
                            StoryProblem(
                                .warning, .pictureFileMissing, path: path, line: lineNumber,
                                N_("picture file '{name}' must be in the story's folder or below it: the picture is shown without it"),
                                ["name": StoryParser.shorten(name)]))
                        pictureFile = nil
                    } else {
                        let folder = (path as NSString).deletingLastPathComponent
                        let full = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
                        if !FileManager.default.fileExists(atPath: full) {
                            warnings.append(
                                StoryProblem(
                                    .warning, .pictureFileMissing, path: path, line: lineNumber,
                                    N_("picture file '{name}' was not found: its description is still spoken"),
                                    ["name": StoryParser.shorten(name)]))
                            pictureFile = nil
                        }
                    }
                }
                if text.isEmpty {
                    warnings.append(
                        StoryProblem(
                            .warning, .pictureWithoutDescription, path: path, line: lineNumber,
                            N_("a picture needs a description between [ and ], which is spoken to children who cannot see it: picture skipped")))
                    continue
                }
                pages[pages.count - 1].append(PendingBlock(kind: .picture(file: pictureFile), text: text, emphasis: [], line: lineNumber))
                continue
            }
            var content = trimmed
            if trimmed.hasPrefix(">") {
                content = String(trimmed.dropFirst()).trimmedWhitespace()
            }
            appendParagraphLine(content, lineNumber: lineNumber)
        }
        flushParagraph()
    }

    /// `line` comes trimmed of white space.
    private mutating func appendParagraphLine(_ line: String, lineNumber: Int) {
        if paragraphLines.isEmpty { paragraphLine = lineNumber }
        paragraphLines.append(line)
    }

    private mutating func flushParagraph() {
        guard !paragraphLines.isEmpty else { return }
        // A line break in the file is kept (verse keeps its lines); the renderer wraps.
        let joined = paragraphLines.joined(separator: "\n")
        paragraphLines.removeAll()
        if format == .markdown {
            let inline = InlineMarkdown.render(joined)
            guard !inline.text.trimmedWhitespace().isEmpty else { return }
            pages[pages.count - 1].append(PendingBlock(kind: .paragraph, text: inline.text, emphasis: inline.emphasis, line: paragraphLine))
        } else {
            pages[pages.count - 1].append(PendingBlock(kind: .paragraph, text: joined, emphasis: [], line: paragraphLine))
        }
    }

    /// The first `#` heading, when it is the first block (a Markdown title without front matter).
    func firstLevelOneHeading() -> (text: String, line: Int)? {
        guard let first = pages.first?.first, case .heading(level: 1) = first.kind else { return nil }
        return (Sanitizer.sanitizeLine(first.text), first.line)
    }

    mutating func removeBlock(_ block: (text: String, line: Int)) {
        guard !pages.isEmpty, !pages[0].isEmpty, pages[0][0].line == block.line else { return }
        pages[0].removeFirst()
    }

    /// The story text and its pages with ranges, sentences and words.
    func finish() -> (String, [StoryPage]) {
        var text = ""
        var offset = 0
        var result: [StoryPage] = []
        for pending in pages where !pending.isEmpty {
            var blocks: [StoryBlock] = []
            for block in pending {
                if offset > 0 {
                    text += "\n\n"
                    offset += 2
                }
                let length = block.text.unicodeScalars.count
                let range = TextRange(start: offset, end: offset + length)
                text += block.text
                let sentences = Segmenter.sentences(in: block.text, startingAt: offset)
                blocks.append(
                    StoryBlock(
                        kind: block.kind, text: block.text, range: range, sentences: sentences,
                        emphasis: block.emphasis.map { $0.shifted(by: offset) }, line: block.line))
                offset += length
            }
            result.append(StoryPage(index: result.count, blocks: blocks))
        }
        return (text, result)
    }

    static func isThematicBreak(_ line: String) -> Bool {
        // Most lines are text: answered from the first byte, without filtering the line.
        guard let byte = line.utf8.first, byte == UInt8(ascii: "-") || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "_") else { return false }
        let compact = line.filter { $0 != " " }
        guard compact.count >= 3, let first = compact.first, "-*_".contains(first) else { return false }
        return compact.allSatisfy { $0 == first }
    }

    static func heading(_ line: String) -> (Int, String)? {
        guard line.utf8.first == UInt8(ascii: "#") else { return nil }
        var level = 0
        var index = line.startIndex
        while index < line.endIndex, line[index] == "#" {
            level += 1
            index = line.index(after: index)
        }
        guard (1...6).contains(level), index == line.endIndex || line[index] == " " else { return nil }
        var text = line[index...].trimmedWhitespace()
        // A closing run of #s is not part of the heading.
        while text.hasSuffix("#") { text.removeLast() }
        return (level, text.trimmedWhitespace())
    }

    /// `![description](file)` on a line of its own.
    static func picture(_ line: String) -> (String, String)? {
        guard line.hasPrefix("!["), line.hasSuffix(")"), let close = line.range(of: "](", options: .backwards) else { return nil }
        let description = String(line[line.index(line.startIndex, offsetBy: 2)..<close.lowerBound])
        var file = String(line[close.upperBound..<line.index(before: line.endIndex)]).trimmedWhitespace()
        // `![d](file "title")`: drop the title.
        if let space = file.firstIndex(of: " ") { file = String(file[..<space]) }
        if file.hasPrefix("<"), file.hasSuffix(">") { file = String(file.dropFirst().dropLast()) }
        return (description, file)
    }
}

/// The inline Markdown a story uses: emphasis (`*a*`, `_a_`, `**a**`), links (their text), code
/// spans (their text) and backslash escapes. Everything else is literal.
enum InlineMarkdown {
    struct Rendered {
        var text: String
        /// Emphasised stretches, as scalar offsets in `text`.
        var emphasis: [TextRange]
    }

    private enum Piece {
        case text(String)
        case delimiter(Character, count: Int)
    }

    /// Whether a byte can start markup; a text with none of them is its own rendering.
    private static func startsMarkup(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "["), UInt8(ascii: "*"), UInt8(ascii: "_"): true
        default: false
        }
    }

    static func render(_ source: String) -> Rendered {
        // Most paragraphs have no markup at all: every character would go to the one text piece.
        // (`!` only starts markup before `[`.)
        if !source.utf8.contains(where: startsMarkup) { return Rendered(text: source, emphasis: []) }
        let characters = Array(source)
        // Where the next `]`, `)` and backtick stand at or after each index (characters.count when
        // none), found in one pass: looking ahead from every `[` or backtick again would make a
        // long line of them take quadratic time (a 1 MB line of `[`: hours).
        let nextBracket = nextIndices(of: "]", in: characters)
        let nextParenthesis = nextIndices(of: ")", in: characters)
        let nextBacktick = nextIndices(of: "`", in: characters)
        var pieces: [Piece] = []
        var buffer = ""
        var index = 0
        func flush() {
            if !buffer.isEmpty {
                pieces.append(.text(buffer))
                buffer = ""
            }
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, characters[index + 1].isASCII,
                characters[index + 1].isPunctuation || characters[index + 1].isSymbol
            {
                buffer.append(characters[index + 1])
                index += 2
                continue
            }
            if character == "`", nextBacktick[index + 1] < characters.count {
                let close = nextBacktick[index + 1]
                buffer += String(characters[(index + 1)..<close])
                index = close + 1
                continue
            }
            if character == "[" || (character == "!" && index + 1 < characters.count && characters[index + 1] == "["),
                let (label, end) = link(
                    characters, at: character == "!" ? index + 1 : index,
                    nextBracket: nextBracket, nextParenthesis: nextParenthesis)
            {
                buffer += label
                index = end
                continue
            }
            if character == "*" || character == "_" {
                var end = index
                while end < characters.count, characters[end] == character { end += 1 }
                flush()
                pieces.append(.delimiter(character, count: end - index))
                index = end
                continue
            }
            buffer.append(character)
            index += 1
        }
        flush()
        return resolve(pieces)
    }

    private static func link(_ characters: [Character], at index: Int, nextBracket: [Int], nextParenthesis: [Int]) -> (String, Int)? {
        guard characters[index] == "[" else { return nil }
        let close = nextBracket[index + 1]
        guard close + 1 < characters.count, characters[close + 1] == "(" else { return nil }
        let end = nextParenthesis[close + 2]
        guard end < characters.count else { return nil }
        return (String(characters[(index + 1)..<close]), end + 1)
    }

    /// For each index of `characters` (and one past the end), the index of the first `target` at
    /// or after it, or `characters.count`.
    private static func nextIndices(of target: Character, in characters: [Character]) -> [Int] {
        var result = [Int](repeating: characters.count, count: characters.count + 2)
        var next = characters.count
        for index in stride(from: characters.count - 1, through: 0, by: -1) {
            if characters[index] == target { next = index }
            result[index] = next
        }
        return result
    }

    /// Pairs delimiters into emphasis; unpaired ones stay as literal text.
    private static func resolve(_ pieces: [Piece]) -> Rendered {
        func characterBefore(_ position: Int) -> Character? {
            var probe = position - 1
            while probe >= 0 {
                switch pieces[probe] {
                case .text(let text): if let last = text.last { return last }
                case .delimiter(let character, _): return character
                }
                probe -= 1
            }
            return nil
        }
        func characterAfter(_ position: Int) -> Character? {
            var probe = position + 1
            while probe < pieces.count {
                switch pieces[probe] {
                case .text(let text): if let first = text.first { return first }
                case .delimiter(let character, _): return character
                }
                probe += 1
            }
            return nil
        }
        var matched: [Int: Int] = [:]  // opener index → closer index
        var openerOf: [Int: Int] = [:]  // closer index → opener index
        var openers: [Int] = []
        // The openers of each kind (character and run length), newest last; an opener removed
        // from `openers` is removed from here lazily. Searching `openers` backwards for each
        // closer instead takes quadratic time on a long line of unmatched openers.
        var openersByKind: [String: [Int]] = [:]
        var removed = Set<Int>()
        for (position, piece) in pieces.enumerated() {
            guard case .delimiter(let character, let count) = piece else { continue }
            let before = characterBefore(position)
            let after = characterAfter(position)
            let canOpen = after.map { !$0.isWhitespace } ?? false
            var canClose = before.map { !$0.isWhitespace } ?? false
            var opens = canOpen
            if character == "_" {
                // Intraword underscores (snake_case) are literal.
                if let before, before.isLetter || before.isNumber { opens = false }
                if let after, after.isLetter || after.isNumber { canClose = false }
            }
            let kind = "\(character)\(count)"
            if canClose {
                while let last = openersByKind[kind]?.last, removed.contains(last) { openersByKind[kind]?.removeLast() }
                if let opener = openersByKind[kind]?.popLast() {
                    matched[opener] = position
                    openerOf[position] = opener
                    // The opener and every opener after it are used up.
                    while let last = openers.popLast() {
                        removed.insert(last)
                        if last == opener { break }
                    }
                    continue
                }
            }
            if opens {
                openers.append(position)
                openersByKind[kind, default: []].append(position)
            }
        }
        var text = ""
        var offset = 0
        var openAt: [Int: Int] = [:]
        var emphasis: [TextRange] = []
        for (position, piece) in pieces.enumerated() {
            switch piece {
            case .text(let chunk):
                text += chunk
                offset += chunk.unicodeScalars.count
            case .delimiter(let character, let count):
                if matched[position] != nil {
                    openAt[position] = offset
                } else if let opener = openerOf[position], let start = openAt[opener] {
                    if offset > start { emphasis.append(TextRange(start: start, end: offset)) }
                } else {
                    let literal = String(repeating: character, count: count)
                    text += literal
                    offset += count
                }
            }
        }
        return Rendered(text: text, emphasis: emphasis.sorted())
    }
}
