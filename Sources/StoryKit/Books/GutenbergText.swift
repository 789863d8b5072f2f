import Foundation

/// A Project Gutenberg plain-text book turned into stories: the header and the licence stripped by
/// their START/END markers, "Produced by" lines and the table of contents dropped, and a collection
/// split into its tales by the contents list (each tale's ALL-CAPS heading, with the most blank
/// lines before it of any heading the contents names; fewer blank lines mark a part of a tale or a
/// note). Title, author and language come from the header.
public struct GutenbergBook: Sendable, Hashable {
    public struct Tale: Sendable, Hashable {
        public var title: String
        public var paragraphs: [String]
    }

    public var title: String
    public var author: String?
    /// An ISO 639-1 code ("en") from the header's `Language:`.
    public var language: String
    public var tales: [Tale]

    /// Whether `text` is a Project Gutenberg file: a START marker near its beginning.
    public static func isGutenberg(_ text: String) -> Bool {
        startLine(in: lines(of: text)) != nil
    }

    /// Decodes a file: UTF-8 (with or without a byte order mark), else Latin-1 as older files are.
    public static func decode(_ data: Data) -> String {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(data: bytes, encoding: .utf8) { return text }
        // Latin-1: every byte is the code point of the same number.
        var text = ""
        text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return text
    }

    static func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The line of the START marker (or the end of the old "SMALL PRINT"), looked for only near
    /// the beginning.
    static func startLine(in lines: [String]) -> Int? {
        for (index, line) in lines.prefix(600).enumerated() {
            let upper = line.uppercased()
            if upper.hasPrefix("***") && upper.contains("START OF") && upper.contains("PROJECT GUTENBERG") { return index }
            if upper.contains("*END*THE SMALL PRINT") { return index }
        }
        return nil
    }

    /// The line of the END marker, looked for only after the start.
    static func endLine(in lines: [String], after start: Int) -> Int {
        for index in (start + 1)..<lines.count {
            let upper = lines[index].uppercased()
            if upper.hasPrefix("***") && upper.contains("END OF") && upper.contains("PROJECT GUTENBERG") { return index }
            if upper.hasPrefix("END OF THE PROJECT GUTENBERG") || upper.hasPrefix("END OF PROJECT GUTENBERG") { return index }
        }
        return lines.count
    }

    static let languages = ["english": "en", "french": "fr", "spanish": "es", "german": "de", "italian": "it", "dutch": "nl"]

    /// Headings that are never tales, even when the contents names them.
    static let apparatus: Set<String> = ["CONTENTS", "PREFACE", "INTRODUCTION", "NOTES", "NOTES AND REFERENCES", "APPENDIX",
                                         "INDEX", "GLOSSARY", "BIBLIOGRAPHY", "FOOTNOTES", "THE END"]

    public init(text: String, fallbackTitle: String) {
        let lines = Self.lines(of: text)
        let start = Self.startLine(in: lines) ?? -1
        let end = Self.endLine(in: lines, after: max(start, 0))
        func header(_ key: String) -> String? {
            lines.prefix(max(start, 0)).first { $0.hasPrefix(key + ":") }
                .map { String($0.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces) }
                .flatMap { $0.isEmpty ? nil : $0 }
        }
        title = header("Title") ?? fallbackTitle
        author = header("Author").flatMap { $0.lowercased() == "anonymous" ? header("Editor") : $0 }
        language = header("Language").flatMap { Self.languages[$0.lowercased()] } ?? "en"
        var body = Array(lines[(start + 1)..<end])
        // "Produced by …" and the paragraph it starts.
        if let produced = body.firstIndex(where: { $0.hasPrefix("Produced by") }) {
            var last = produced
            while last + 1 < body.count, !body[last + 1].trimmingCharacters(in: .whitespaces).isEmpty { last += 1 }
            body.removeSubrange(produced...last)
        }
        tales = Self.split(body, title: title)
    }

    /// A heading: an ALL-CAPS line, with its count of blank lines before it.
    struct Heading { var line: Int; var text: String; var blanksBefore: Int }

    static func isAllCaps(_ line: String) -> Bool {
        let letters = line.unicodeScalars.filter { $0.properties.isAlphabetic }
        return letters.count >= 2 && letters.allSatisfy { !$0.properties.isLowercase } && line.count <= 80
    }

    static func fold(_ text: String) -> String {
        text.uppercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0 == " " }
            .reduce(into: "") { $0.unicodeScalars.append($1) }
            .split(separator: " ").joined(separator: " ")
    }

    static func split(_ body: [String], title: String) -> [Tale] {
        var headings: [Heading] = []
        var blanks = 0
        for (index, line) in body.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { blanks += 1; continue }
            if blanks >= 2, isAllCaps(trimmed) { headings.append(Heading(line: index, text: trimmed, blanksBefore: blanks)) }
            blanks = 0
        }
        // The contents: the text after a CONTENTS heading, up to the next heading.
        guard let contentsIndex = headings.firstIndex(where: { fold($0.text) == "CONTENTS" }) else {
            return [Tale(title: title, paragraphs: paragraphs(body[...]))]
        }
        let contentsEnd = contentsIndex + 1 < headings.count ? headings[contentsIndex + 1].line : body.count
        let contents = " " + fold(body[(headings[contentsIndex].line + 1)..<contentsEnd].joined(separator: " ")) + " "
        let named = headings.filter { heading in
            let folded = fold(heading.text)
            return heading.line > contentsEnd - 1 && !apparatus.contains(folded) && !folded.isEmpty
                && contents.contains(" " + folded + " ")
                // "I. TOM TIT TOT." heads a note about a tale, not the tale.
                && heading.text.range(of: #"^[IVXLC]+\. "#, options: .regularExpression) == nil
        }
        // Tales have the most blank lines before them; fewer mark parts and notes.
        guard let taleBlanks = named.map(\.blanksBefore).max() else { return [Tale(title: title, paragraphs: paragraphs(body[...]))] }
        let boundaries = headings.filter { $0.blanksBefore >= taleBlanks && $0.line > contentsEnd - 1 }
        var tales: [Tale] = []
        var seen = Set<String>()
        for heading in named where heading.blanksBefore == taleBlanks && seen.insert(fold(heading.text)).inserted {
            let next = boundaries.first { $0.line > heading.line }?.line ?? body.count
            let text = paragraphs(body[(heading.line + 1)..<next])
            if !text.isEmpty { tales.append(Tale(title: titleCase(heading.text), paragraphs: text)) }
        }
        return tales.isEmpty ? [Tale(title: title, paragraphs: paragraphs(body[...]))] : tales
    }

    /// Paragraphs: lines joined, blank lines between; inline footnotes are not read.
    static func paragraphs(_ lines: ArraySlice<String>) -> [String] {
        var result: [String] = []
        var current: [String] = []
        for line in lines + [""] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if !current.isEmpty { result.append(current.joined(separator: " ")) }
                current = []
            } else {
                current.append(trimmed)
            }
        }
        return result.map { paragraph in
            paragraph.replacingOccurrences(of: #"\s*\[Footnote:[^\]]*\]"#, with: "", options: .regularExpression)
        }.filter { !$0.isEmpty }
    }

    /// "THE THREE SILLIES" → "The Three Sillies"; small words stay small inside a title.
    static func titleCase(_ text: String) -> String {
        let small: Set<String> = ["a", "an", "and", "the", "of", "to", "in", "on", "at", "for", "his", "her"]
        let words = text.trimmingCharacters(in: CharacterSet(charactersIn: ". ")).lowercased().split(separator: " ")
        return words.enumerated().map { index, word in
            let string = String(word)
            if index > 0, small.contains(string) { return string }
            return string.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
        }.joined(separator: " ")
    }

    /// Each tale as a story in our format (Markdown with a header), named by `id`.
    public func stories(bookID: String) -> [(id: String, markdown: String)] {
        var used = Set<String>()
        return tales.map { tale in
            var id = bookID + "-" + Self.slug(tale.title)
            while !used.insert(id).inserted { id += "-2" }
            var markdown = "---\ntitle: \(Self.headerValue(tale.title))\n"
            if let author { markdown += "author: \(Self.headerValue(author))\n" }
            markdown += "language: \(language)\n"
            if tales.count > 1 { markdown += "summary: From \(Self.headerValue(title)) (Project Gutenberg).\n" }
            markdown += "---\n\n" + tale.paragraphs.map(Self.escapeMarkdown).joined(separator: "\n\n") + "\n"
            return (id, markdown)
        }
    }

    static func headerValue(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ") }

    /// A paragraph that would read as Markdown syntax (a heading, a rule, a list) is kept as text.
    static func escapeMarkdown(_ paragraph: String) -> String {
        if let first = paragraph.first, "#>-*+=!|".contains(first) { return "\\" + paragraph }
        return paragraph
    }

    public static func slug(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        var slug = ""
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar)) { slug.unicodeScalars.append(scalar) }
            else if !slug.hasSuffix("-"), !slug.isEmpty { slug.append("-") }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "tale" : String(slug.prefix(60))
    }
}
