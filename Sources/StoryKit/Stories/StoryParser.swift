public import Foundation

/// A story and the warnings its file gave (things ignored or repaired).
public struct ParsedStory: Sendable {
    public var story: Story
    public var warnings: [StoryProblem]
}

/// Reads story files: Markdown with front matter (`.md`, `.markdown`) and plain text with an
/// optional `Key: Value` header (`.txt`). See `docs/story-format.md`.
///
/// The parser never crashes on any input: every problem becomes a `StoryProblem`. All text from
/// the file goes through `Sanitizer` before it is stored in a `Story`.
public enum StoryParser {
    /// Files larger than this are refused (a story of 2,500 words is about 15 kB).
    public static let maximumFileBytes = 2 * 1024 * 1024
    /// Extensions the library loads as stories.
    public static let storyExtensions: Set<String> = ["md", "markdown", "txt"]
    static let maximumTitleCharacters = 200

    /// Files that describe a folder rather than tell a story (`README.md`, `INDEX.md`, `LICENSE.txt`, …):
    /// the library does not load them.
    public static func isFolderDocument(_ fileName: String) -> Bool {
        // The name before its last dot (what `deletingPathExtension` gives for a file name), without
        // bridging to NSString: the library asks this of every story file it finds.
        let stem = fileName.utf8.lastIndex(of: UInt8(ascii: ".")).map { fileName[..<$0] } ?? fileName[...]
        let base = stem.lowercased()
        return ["readme", "index", "license", "licence", "changelog", "contributing", "notes"].contains(base) || base.hasPrefix("readme")
    }
    static let maximumSummaryCharacters = 1_000

    enum Format { case markdown, plainText }

    static func format(forPath path: String) -> Format {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "markdown" ? .markdown : .plainText
    }

    /// Reads and parses the file at `url`; `path` is how problems name it.
    public static func parse(contentsOf url: URL, path: String) throws(StoryProblem) -> ParsedStory {
        let data: Data
        // Opening a pipe waits for a writer (for ever) and a device may never end: only regular
        // files (or links to them) are read.
        var info = stat()
        if stat(url.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw StoryProblem(
                .error, .unreadable, path: path,
                (info.st_mode & S_IFMT) == S_IFDIR
                    ? N_("is not a regular file (a folder): a story is a .md or .txt text file")
                    : N_("is not a regular file (a pipe or a device): a story is a .md or .txt text file"))
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            // Read one byte past the limit so a too-large file is recognised without reading it all.
            data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
        } catch {
            throw StoryProblem(
                .error, .unreadable, path: path, N_("cannot be read ({reason}): check that the file exists and its permissions allow reading"),
                ["reason": describe(error)])
        }
        if data.count > maximumFileBytes {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? data.count
            throw StoryProblem(
                .error, .tooLarge, path: path, N_("is {size}; a story file can be at most {limit}: split it into several stories"),
                ["size": formatBytes(size), "limit": formatBytes(maximumFileBytes)])
        }
        return try parse(data: data, path: path)
    }

    /// Parses the bytes of a story file.
    public static func parse(data: Data, path: String) throws(StoryProblem) -> ParsedStory {
        if data.count > maximumFileBytes {
            throw StoryProblem(
                .error, .tooLarge, path: path, N_("is {size}; a story file can be at most {limit}: split it into several stories"),
                ["size": formatBytes(data.count), "limit": formatBytes(maximumFileBytes)])
        }
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw StoryProblem(.error, .empty, path: path, N_("is empty: write a story in it (see docs/story-format.md) or remove it"))
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw StoryProblem(.error, .binary, path: path, N_("is UTF-16 text: save it as UTF-8 and try again"))
        }
        if bytes.prefix(8_192).contains(0) {
            throw StoryProblem(.error, .binary, path: path, N_("is not a text file (it contains binary data): a story is a .md or .txt text file"))
        }
        var warnings: [StoryProblem] = []
        let text: String
        if let valid = String(validating: bytes, as: UTF8.self) {
            text = valid
        } else {
            let line = firstInvalidUTF8Line(bytes)
            warnings.append(
                StoryProblem(
                    .warning, .invalidUTF8, path: path, line: line,
                    N_("is not valid UTF-8: the broken characters are shown as � (save the file as UTF-8 to fix it)")))
            text = String(decoding: bytes, as: UTF8.self)
        }
        var parsed = try parse(text: text, path: path)
        parsed.warnings.insert(contentsOf: warnings, at: 0)
        return parsed
    }

    /// Parses the text of a story file; `path` gives the format (by extension), the id (by file
    /// name) and the folder that picture files are relative to.
    public static func parse(text rawText: String, path: String) throws(StoryProblem) -> ParsedStory {
        var warnings: [StoryProblem] = []
        if let line = firstUnsafeLine(rawText) {
            warnings.append(
                StoryProblem(
                    .warning, .controlCharacters, path: path, line: line,
                    N_("escape sequences or control characters were removed (they could take over the terminal)")))
        }
        let text = Sanitizer.sanitize(rawText)
        // Split at the LF bytes: a line feed is always a character of its own, and the sanitizer
        // has made it the only line break; splitting the String by Characters costs far more.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
        let format = format(forPath: path)

        var header = Header()
        var bodyStart = 0
        switch format {
        case .markdown:
            bodyStart = try parseFrontMatter(lines, path: path, into: &header, warnings: &warnings)
        case .plainText:
            bodyStart = parseTextHeader(lines, path: path, into: &header, warnings: &warnings)
        }

        var builder = BodyBuilder(path: path, format: format)
        builder.build(lines: lines, from: bodyStart, warnings: &warnings)

        if header.title == nil, format == .markdown, let first = builder.firstLevelOneHeading() {
            header.title = first.text
            header.titleLine = first.line
            builder.removeBlock(first)
        }
        if let error = warnings.first(where: \.isError) {
            throw error
        }
        guard let title = header.title, !title.isEmpty else {
            throw StoryProblem(
                .error, .missingTitle, path: path, line: 1,
                format == .markdown
                    ? N_("a story needs a title: add a 'title:' line to the front matter")
                    : N_("a story needs a title: add a 'Title:' line at the top, then a blank line"))
        }
        let (storyText, pages) = builder.finish()
        if pages.isEmpty || !pages.contains(where: { $0.blocks.contains { !$0.sentences.isEmpty } }) {
            throw StoryProblem(.error, .noText, path: path, line: bodyStart + 1, N_("has a title but no story text: write the story below the title"))
        }
        let sentenceCount = pages.reduce(0) { $0 + $1.blocks.reduce(0) { $0 + $1.sentences.count } }
        if sentenceCount > maximumSentences {
            // Each sentence is one synthesis call (about a millisecond even for one word): a file of
            // tens of thousands of one-word lines would take minutes to read or export.
            throw StoryProblem(
                .error, .tooLarge, path: path,
                N_("has {count} sentences; a story can have at most {limit}: split it into several stories"),
                ["count": grouped(sentenceCount), "limit": grouped(maximumSentences)])
        }

        var story = Story(
            id: storyID(forPath: path),
            title: title,
            author: header.author,
            ages: header.ages,
            tags: header.tags,
            language: header.language ?? "en",
            summary: header.summary,
            licence: header.licence,
            book: header.book,
            part: header.part,
            recording: header.recording,
            path: path,
            text: storyText,
            pages: pages
        )
        story.printPages = placePrintPages(header.printPages, in: pages, path: path, warnings: &warnings)
        return ParsedStory(story: story, warnings: warnings)
    }

    /// The stable id of a story file: its name without extension, lower case, ASCII letters and
    /// digits with `-` between words (`Grandma’s Umbrella Boat.md` → `grandma-s-umbrella-boat`).
    public static func storyID(forPath path: String) -> String {
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil).lowercased()
        var id = ""
        var pendingDash = false
        for scalar in folded.unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                if pendingDash, !id.isEmpty { id.append("-") }
                pendingDash = false
                id.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return id.isEmpty ? "story" : id
    }

    // MARK: - Header

    struct Header {
        var title: String?
        var titleLine: Int?
        var author: String?
        var ages: AgeRange?
        var tags: [String] = []
        var language: String?
        var summary: String?
        var licence: String?
        var book: String?
        var part: Int?
        var recording: String?
        /// `print-pages:` entries as written: block (from 1), offset in it, label, line.
        var printPages: [(block: Int, offset: Int, label: String, line: Int)] = []
        var seen: Set<String> = []
    }

    static let knownKeys: [String: String] = [
        "title": "title", "author": "author", "authors": "author", "by": "author",
        "ages": "ages", "age": "ages",
        "tags": "tags", "tag": "tags", "interests": "tags",
        "language": "language", "lang": "language",
        "summary": "summary", "description": "summary",
        "licence": "licence", "license": "licence", "rights": "licence",
        // Written by `import` for each work of a collection: the book and the work's place in it.
        "book": "book", "part": "part",
        "recording": "recording",
        // Written by `import` for a book with print page numbers: one `- BLOCK:OFFSET LABEL` a line.
        "print-pages": "print-pages",
        // Kept by the corpus and by librarians; accepted and not used.
        "source": "", "translator": "", "illustrator": "", "date": "", "year": "",
    ]

    /// Returns the index of the first body line.
    static func parseFrontMatter(_ lines: [String], path: String, into header: inout Header, warnings: inout [StoryProblem]) throws(StoryProblem) -> Int {
        var index = 0
        while index < lines.count, lines[index].trimmedWhitespace().isEmpty { index += 1 }
        guard index < lines.count, lines[index].trimmedWhitespace() == "---" else { return 0 }
        let opening = index
        index += 1
        var lastKey: String?
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmedWhitespace()
            if trimmed == "---" || trimmed == "..." {
                return index + 1
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") {
                index += 1
                continue
            }
            if trimmed.hasPrefix("- "), lastKey == "tags" {
                header.tags.append(contentsOf: parseTags(String(trimmed.dropFirst(2))))
            } else if trimmed.hasPrefix("- "), lastKey == "print-pages" {
                addPrintPage(String(trimmed.dropFirst(2)), line: index + 1, path: path, to: &header, warnings: &warnings)
            } else if let (key, value) = splitKeyValue(line) {
                lastKey = apply(key: key, value: value, line: index + 1, path: path, format: .markdown, to: &header, warnings: &warnings)
            } else {
                warnings.append(
                    StoryProblem(
                        .warning, .unknownKey, path: path, line: index + 1, N_("'{line}' is not a 'key: value' line: ignored"), ["line": shorten(trimmed)]))
            }
            index += 1
        }
        throw StoryProblem(
            .error, .unterminatedFrontMatter, path: path, line: opening + 1,
            N_("the front matter that starts here has no closing '---' line: add one after the last 'key: value' line"))
    }

    /// A `.txt` header: `Key: Value` lines at the top, ended by a blank line. Returns the first body line.
    static func parseTextHeader(_ lines: [String], path: String, into header: inout Header, warnings: inout [StoryProblem]) -> Int {
        guard let first = lines.first, let (key, _) = splitKeyValue(first),
            knownKeys[key.lowercased()] != nil
        else { return 0 }
        var index = 0
        while index < lines.count, !lines[index].trimmedWhitespace().isEmpty {
            if let (key, value) = splitKeyValue(lines[index]) {
                _ = apply(key: key, value: value, line: index + 1, path: path, format: .plainText, to: &header, warnings: &warnings)
            } else {
                warnings.append(
                    StoryProblem(
                        .warning, .unknownKey, path: path, line: index + 1,
                        N_("'{line}' in the header is not a 'Key: Value' line: ignored (end the header with a blank line)"),
                        ["line": shorten(lines[index])]))
            }
            index += 1
        }
        return index
    }

    static func splitKeyValue(_ line: String) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon].trimmedWhitespace()
        guard !key.isEmpty, key.count <= 32,
            key.first!.isLetter,
            key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " })
        else { return nil }
        var value = line[line.index(after: colon)...].trimmedWhitespace()
        if value.count >= 2, let first = value.first, let last = value.last,
            (first == "\"" && last == "\"") || (first == "'" && last == "'")
        {
            value = String(value.dropFirst().dropLast())
        }
        return (key, value)
    }

    /// Applies one header line; returns the canonical key.
    static func apply(key rawKey: String, value: String, line: Int, path: String, format: Format, to header: inout Header, warnings: inout [StoryProblem])
        -> String?
    {
        let lowered = rawKey.lowercased()
        guard let key = knownKeys[lowered] else {
            let known = "title, author, ages, tags, language, summary"
            warnings.append(
                StoryProblem(
                    .warning, .unknownKey, path: path, line: line, N_("unknown key '{key}' ignored (known keys: {known})"),
                    ["key": shorten(rawKey), "known": known]))
            return nil
        }
        if key.isEmpty { return lowered }
        if header.seen.contains(key) {
            warnings.append(
                StoryProblem(.warning, .duplicateKey, path: path, line: line, N_("'{key}' appears more than once: the first one is used"), ["key": rawKey]))
            return key
        }
        header.seen.insert(key)
        let singleLine = Sanitizer.sanitizeLine(value)
        switch key {
        case "title":
            header.title = limit(singleLine, to: maximumTitleCharacters, what: "title", line: line, path: path, warnings: &warnings)
            header.titleLine = line
        case "author":
            header.author =
                singleLine.isEmpty ? nil : limit(singleLine, to: maximumTitleCharacters, what: "author", line: line, path: path, warnings: &warnings)
        case "licence":
            header.licence =
                singleLine.isEmpty ? nil : limit(singleLine, to: maximumSummaryCharacters, what: "licence", line: line, path: path, warnings: &warnings)
        case "book":
            header.book = singleLine.isEmpty ? nil : limit(singleLine, to: maximumTitleCharacters, what: "book", line: line, path: path, warnings: &warnings)
        case "part":
            if let part = Int(singleLine), part >= 1, part <= 1_000_000 {
                header.part = part
            } else if !singleLine.isEmpty {
                warnings.append(
                    StoryProblem(
                        .warning, .badPart, path: path, line: line,
                        N_("part '{value}' is not a whole number from 1 (the story's place in its book): it is not used"),
                        ["value": shorten(singleLine)]))
            }
        case "print-pages":
            // Its entries follow, one `- ` line each.
            if !singleLine.isEmpty { addPrintPage(singleLine, line: line, path: path, to: &header, warnings: &warnings) }
        case "recording":
            // The clip list of the story's recorded narration; checked when the story is read.
            header.recording = singleLine.isEmpty ? nil : singleLine
        case "summary":
            header.summary =
                singleLine.isEmpty ? nil : limit(singleLine, to: maximumSummaryCharacters, what: "summary", line: line, path: path, warnings: &warnings)
        case "tags":
            header.tags.append(contentsOf: parseTags(singleLine))
        case "language":
            if let language = normaliseLanguage(singleLine) {
                header.language = language
            } else if !singleLine.isEmpty {
                warnings.append(
                    StoryProblem(
                        .warning, .badLanguage, path: path, line: line,
                        N_("language '{value}' is not a language code such as en, es, fr or en-us: English (en) is used"),
                        ["value": shorten(singleLine)]))
            }
        case "ages":
            switch parseAges(singleLine) {
            case .success(let ages): header.ages = ages
            case .failure(let reason):
                warnings.append(StoryProblem(.error, .badAges, path: path, line: line, reason.template, reason.values))
            }
        default:
            break
        }
        return key
    }

    /// One `print-pages:` entry, `BLOCK:OFFSET LABEL` (`3:0 12`, `5:14 xii`); anything else is a warning.
    static func addPrintPage(_ entry: String, line: Int, path: String, to header: inout Header, warnings: inout [StoryProblem]) {
        let clean = Sanitizer.sanitizeLine(entry).trimmedWhitespace()
        let parts = clean.split(separator: " ", maxSplits: 1).map(String.init)
        let place = parts.first?.split(separator: ":").map { Int($0) } ?? []
        guard parts.count == 2, place.count == 2, let block = place[0], let offset = place[1], block >= 1, offset >= 0 else {
            warnings.append(
                StoryProblem(
                    .warning, .badPrintPage, path: path, line: line,
                    N_("print page '{value}' is not 'BLOCK:OFFSET LABEL' (like 3:0 12): it is left out"), ["value": shorten(clean)]))
            return
        }
        header.printPages.append((block, offset, String(parts[1].trimmedWhitespace().prefix(40)), line))
    }

    /// The header's print pages placed in the story's text; one naming a block the story does not
    /// have, or a place past its block's text, is a warning and left out.
    static func placePrintPages(
        _ entries: [(block: Int, offset: Int, label: String, line: Int)], in pages: [StoryPage], path: String, warnings: inout [StoryProblem]
    )
        -> [PrintPage]
    {
        let blocks = pages.flatMap(\.blocks)
        var placed: [PrintPage] = []
        for entry in entries {
            guard entry.block <= blocks.count, entry.offset < max(blocks[entry.block - 1].range.length, 1) else {
                warnings.append(
                    StoryProblem(
                        .warning, .badPrintPage, path: path, line: entry.line,
                        N_("print page '{label}' is at {place}, which the story's text does not have ({count} blocks): it is left out"),
                        ["label": shorten(entry.label), "place": "\(entry.block):\(entry.offset)", "count": String(blocks.count)]))
                continue
            }
            placed.append(PrintPage(label: entry.label, position: blocks[entry.block - 1].range.start + entry.offset))
        }
        return placed
    }

    static func limit(_ value: String, to count: Int, what: String, line: Int, path: String, warnings: inout [StoryProblem]) -> String {
        guard value.count > count else { return value }
        warnings.append(
            StoryProblem(
                .warning, .tooLong, path: path, line: line, N_("the {what} is {length} characters long: only the first {count} are kept"),
                ["what": what, "length": String(value.count), "count": String(count)]))
        return String(value.prefix(count))
    }

    static func parseTags(_ value: String) -> [String] {
        var list = value.trimmedWhitespace()
        if list.hasPrefix("["), list.hasSuffix("]") { list = String(list.dropFirst().dropLast()) }
        return list.split(separator: ",").map {
            String(Sanitizer.sanitizeLine(String($0)).lowercased().trimmingCharacters(in: CharacterSet(charactersIn: " \"'")).prefix(40))
        }.filter { !$0.isEmpty }
    }

    /// `en`, `en-US`, `en_us`, `pt-BR` → `en`, `en-us`, `en-us`, `pt-br`; nil for anything else.
    public static func normaliseLanguage(_ value: String) -> String? {
        let lowered = value.lowercased().replacingOccurrences(of: "_", with: "-")
        let parts = lowered.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0 >= "a" && $0 <= "z" }) else { return nil }
        for part in parts.dropFirst() where part.isEmpty || part.count > 8 || !part.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }) {
            return nil
        }
        return lowered
    }

    static let agesAllowed = 0...18

    /// The most sentences a story may have (a long novel has about 10,000; reading or exporting
    /// 20,000 takes well under a minute here).
    public static let maximumSentences = 20_000

    /// 50000 → "50,000".
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        return String(
            digits.enumerated().flatMap { index, digit in
                index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
            })
    }

    /// `4-7`, `4–7`, `4 to 7`, `6`, `5+` (5 to 18).
    public static func parseAges(_ value: String) -> Result<AgeRange, StoryProblemReason> {
        let trimmed = value.trimmedWhitespace()
        if trimmed.isEmpty { return .failure(StoryProblemReason(N_("ages is empty: write two ages like 4-7, or remove the line"))) }
        let limits = ["min": String(agesAllowed.lowerBound), "max": String(agesAllowed.upperBound)]
        var numbers: [Int] = []
        var plus = false
        var current = ""
        var separators = ""
        for character in trimmed {
            if character.isASCII, character.isNumber {
                current.append(character)
            } else {
                if !current.isEmpty {
                    numbers.append(Int(current) ?? Int.max)
                    current = ""
                }
                if character == "+" { plus = true } else { separators.append(character) }
            }
        }
        if !current.isEmpty { numbers.append(Int(current) ?? Int.max) }
        let separatorWords = separators.lowercased().replacingOccurrences(of: " ", with: "")
        if let first = trimmed.first, ["-", "−", "–", "—"].contains(first), !numbers.isEmpty {
            // "-1" is a minus sign, not a range with its first age missing.
            return .failure(
                StoryProblemReason(
                    N_("ages '{value}' is below zero: ages go from {min} to {max}, like 4-7"), limits.merging(["value": shorten(trimmed)]) { $1 }))
        }
        // A separator needs an age on each side: "6-" is as wrong as "-6".
        let separatorOK = separatorWords.isEmpty ? true : numbers.count == 2 && ["-", "–", "—", "to", "a", "à", "bis"].contains(separatorWords)
        guard separatorOK, numbers.count == 1 || numbers.count == 2, !(plus && numbers.count != 1) else {
            return .failure(StoryProblemReason(N_("ages '{value}' is not an age range: write two ages like 4-7"), ["value": shorten(trimmed)]))
        }
        let lower = numbers[0]
        let upper = numbers.count == 2 ? numbers[1] : (plus ? agesAllowed.upperBound : numbers[0])
        guard agesAllowed.contains(lower), agesAllowed.contains(upper) else {
            return .failure(
                StoryProblemReason(
                    N_("ages '{value}' is out of range: ages go from {min} to {max}, like 4-7"), limits.merging(["value": shorten(trimmed)]) { $1 }))
        }
        guard lower <= upper else {
            return .failure(
                StoryProblemReason(
                    N_("ages '{value}' goes backwards: write the younger age first, like {upper}-{lower}"),
                    ["value": shorten(trimmed), "upper": String(upper), "lower": String(lower)]))
        }
        return .success(AgeRange(lower: lower, upper: upper))
    }

    // MARK: - Helpers

    static func shorten(_ text: String) -> String {
        let single = Sanitizer.sanitizeLine(text)
        return single.count > 40 ? String(single.prefix(40)) + "…" : single
    }

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    static func formatBytes(_ count: Int) -> String {
        if count >= 1_048_576 { return String(format: "%.1f MB", Double(count) / 1_048_576) }
        if count >= 1024 { return String(format: "%.0f kB", Double(count) / 1024) }
        return "\(count) bytes"
    }

    /// The 1-based line of the first byte sequence that is not valid UTF-8.
    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int {
        var line = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return line
            }
            if index + length > bytes.count { return line }
            if length > 1 {
                let slice = Array(bytes[index..<(index + length)])
                if String(validating: slice, as: UTF8.self) == nil { return line }
            }
            if byte == 0x0A { line += 1 }
            index += length
        }
        return line
    }

    /// The 1-based line of the first character the sanitizer would remove or rewrite, other than
    /// tabs and line endings.
    static func firstUnsafeLine(_ text: String) -> Int? {
        var line = 1
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: line += 1
            case 0x09, 0x0D: continue
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0xE0000...0xE007F: return line
            default: continue
            }
        }
        return nil
    }
}

/// Why a header value was refused, in words for the person who wrote it: its template (marked
/// with N_ where it is made) and values, translated where it is shown; `description` is English.
public struct StoryProblemReason: Error, Sendable, Hashable, CustomStringConvertible {
    public var template: String
    public var values: [String: String]
    public init(_ template: String, _ values: [String: String] = [:]) {
        self.template = template
        self.values = values
    }
    public var description: String { MessageCatalog.fill(template, values) }
    public func localized(_ messages: MessageCatalog) -> String { messages.text(template, values) }
}
