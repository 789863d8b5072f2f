import Foundation

/// A Gutenberg book's text (between its markers) as tales. A collection is recognised by its
/// contents list: each tale's ALL-CAPS heading is named there and has the most blank lines before
/// it of any heading the contents names (fewer blank lines mark a part of a tale or a note).
enum GutenbergTales {
    /// A heading: an ALL-CAPS line, with its count of blank lines before it.
    struct Heading {
        var line: Int
        var text: String
        var blanksBefore: Int
    }

    /// Headings that are never tales, even when the contents names them.
    static let apparatus: Set<String> = [
        "CONTENTS", "TABLE OF CONTENTS", "PREFACE", "INTRODUCTION", "NOTES", "NOTES AND REFERENCES",
        "APPENDIX", "INDEX", "GLOSSARY", "BIBLIOGRAPHY", "FOOTNOTES", "THE END", "ILLUSTRATIONS",
        "LIST OF ILLUSTRATIONS",
    ]

    static func split(_ body: [String], title: String) -> [GutenbergBook.Tale] {
        let body = withoutProductionNotes(body)
        let headings = self.headings(in: body)
        guard let contentsIndex = headings.firstIndex(where: { ["CONTENTS", "TABLE OF CONTENTS"].contains(fold($0.text)) }) else {
            return [GutenbergBook.Tale(title: title, blocks: blocks(body, 0..<body.count, headings: headings))]
        }
        // The contents: the text after its heading, up to the next heading.
        let contentsStart = headings[contentsIndex].line
        let contentsEnd = contentsIndex + 1 < headings.count ? headings[contentsIndex + 1].line : body.count
        let contents = " " + fold(body[(contentsStart + 1)..<contentsEnd].joined(separator: " ")) + " "
        let named = headings.filter { heading in
            let folded = fold(heading.text)
            return heading.line >= contentsEnd && !apparatus.contains(folded) && !folded.isEmpty
                && contents.contains(" " + folded + " ")
                // "I. TOM TIT TOT." heads a note about a tale, not the tale.
                && heading.text.range(of: #"^[IVXLC]+\. "#, options: .regularExpression) == nil
                // A novel's chapters are named in its contents too: they stay in one story.
                && !isChapter(heading.text)
        }
        guard let taleBlanks = named.map(\.blanksBefore).max() else {
            // One story (a novel: its ALL-CAPS chapter headings are headings), without its contents.
            var withoutContents = body
            withoutContents.replaceSubrange(contentsStart..<contentsEnd, with: Array(repeating: "", count: contentsEnd - contentsStart))
            return [
                GutenbergBook.Tale(
                    title: title,
                    blocks: blocks(
                        withoutContents, 0..<body.count,
                        headings: headings.filter { !(contentsStart..<contentsEnd).contains($0.line) }))
            ]
        }
        let boundaries = headings.filter { $0.blanksBefore >= taleBlanks && $0.line >= contentsEnd }
        var tales: [GutenbergBook.Tale] = []
        var seen = Set<String>()
        let taleHeadings = named.filter { $0.blanksBefore == taleBlanks && seen.insert(fold($0.text)).inserted }
        for (number, heading) in taleHeadings.enumerated() {
            var next = boundaries.first { $0.line > heading.line }?.line ?? body.count
            // After the last tale, a lone "*****" starts the book's afterword.
            if number == taleHeadings.count - 1,
                let afterword = body[(heading.line + 1)..<next].firstIndex(where: {
                    $0.trimmingCharacters(in: .whitespaces).range(of: #"^\*{5,}$"#, options: .regularExpression) != nil
                })
            {
                next = afterword
            }
            // A heading with fewer blank lines before it inside a tale is a part of it.
            let text = blocks(body, (heading.line + 1)..<next, headings: headings)
            if text.contains(where: { if case .paragraph = $0 { true } else { false } }) {
                tales.append(GutenbergBook.Tale(title: titleCase(heading.text), blocks: text))
            }
        }
        return tales.isEmpty ? [GutenbergBook.Tale(title: title, blocks: blocks(body, 0..<body.count, headings: headings))] : tales
    }

    static func headings(in body: [String]) -> [Heading] {
        var headings: [Heading] = []
        var blanks = 0
        for (index, line) in body.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                blanks += 1
                continue
            }
            if blanks >= 2, isAllCaps(trimmed) { headings.append(Heading(line: index, text: trimmed, blanksBefore: blanks)) }
            blanks = 0
        }
        return headings
    }

    /// "Produced by …" and the rest of its paragraph, wherever it stands, become blank lines (so
    /// that the blank-line counts before headings stay as they were).
    static func withoutProductionNotes(_ body: [String]) -> [String] {
        var body = body
        var index = 0
        while index < body.count {
            let atParagraphStart = index == 0 || body[index - 1].trimmingCharacters(in: .whitespaces).isEmpty
            if atParagraphStart, GutenbergFile.isProductionNote(body[index].trimmingCharacters(in: .whitespaces)) {
                while index < body.count, !body[index].trimmingCharacters(in: .whitespaces).isEmpty {
                    body[index] = ""
                    index += 1
                }
            }
            index += 1
        }
        return body
    }

    /// "CHAPTER IV.", "BOOK TWO", "PART 1", "XII." head a part of one work.
    static func isChapter(_ heading: String) -> Bool {
        heading.range(of: #"^(CHAPTER|BOOK|PART|STAVE|CANTO|SECTION|VOLUME)\b|^[IVXLC0-9]+\.?$"#, options: [.regularExpression, .caseInsensitive]) != nil
    }

    static func isAllCaps(_ line: String) -> Bool {
        let letters = line.unicodeScalars.filter { $0.properties.isAlphabetic }
        return letters.count >= 2 && letters.allSatisfy { !$0.properties.isLowercase } && line.count <= 80
    }

    /// Upper case letters and single spaces only, to compare a heading with the contents.
    static func fold(_ text: String) -> String {
        text.uppercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0 == " " }
            .reduce(into: "") { $0.unicodeScalars.append($1) }
            .split(separator: " ").joined(separator: " ")
    }

    /// Blocks from lines: paragraphs separated by blank lines, prose lines joined (Gutenberg wraps
    /// at 70 columns) and indented verse kept line by line; `* * *` is a page turn,
    /// `[Illustration: …]` a picture; footnotes and `_italic_` marks are not read.
    /// `headings` in `range` start a page with that heading.
    static func blocks(_ body: [String], _ range: Range<Int>, headings: [Heading]) -> [BookBlock] {
        let headingLines = Dictionary(headings.filter { range.contains($0.line) }.map { ($0.line, $0.text) }) { first, _ in first }
        var result: [BookBlock] = []
        var current: [String] = []
        func flush() {
            defer { current = [] }
            guard !current.isEmpty else { return }
            let trimmed = current.map { $0.trimmingCharacters(in: .whitespaces) }
            if trimmed.joined().allSatisfy({ $0 == "*" || $0 == " " }) {
                result.append(.page)
                return
            }
            let verse = current.count > 1 && current.allSatisfy { $0.first == " " || $0.first == "\t" }
            var text = trimmed.joined(separator: verse ? "\n" : " ")
            for illustration in illustrations(in: text) { result.append(.picture(illustration)) }
            text = text.replacingOccurrences(of: #"\s*\[(Footnote|Illustration)[^\]]*\]"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"(?<![\p{L}\p{N}])_([^_]+)_(?![\p{L}\p{N}])"#, with: "$1", options: .regularExpression)
                .trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { result.append(.paragraph(text)) }
        }
        for index in range {
            let line = body[index]
            if let heading = headingLines[index] {
                flush()
                result += [.page, .heading(titleCase(heading))]
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush()
            } else {
                current.append(line)
            }
        }
        flush()
        while result.first == .page { result.removeFirst() }
        while result.last == .page { result.removeLast() }
        return result
    }

    /// The descriptions of `[Illustration: A cat on a wall.]` (a bare `[Illustration]` says nothing).
    static func illustrations(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\[Illustration:\s*([^\]]+)\]"#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]).trimmingCharacters(in: .whitespacesAndNewlines) }
        }.filter { !$0.isEmpty }
    }

    /// "THE THREE SILLIES" → "The Three Sillies"; small words stay small inside a title, Roman
    /// numerals stay capitals ("CHAPTER IV." → "Chapter IV.").
    static func titleCase(_ text: String) -> String {
        let small: Set<String> = ["a", "an", "and", "the", "of", "to", "in", "on", "at", "for", "his", "her", "or", "by", "with"]
        let words = text.trimmingCharacters(in: CharacterSet(charactersIn: ". ")).lowercased().split(separator: " ")
        return words.enumerated().map { index, word in
            let string = String(word)
            // Small, except first and after a full stop or colon ("Chapter I. The Start").
            if index > 0, small.contains(string), !(words[index - 1].last.map { ".:".contains($0) } ?? false) { return string }
            if string.uppercased().range(of: #"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})[.:,]?$"#, options: .regularExpression) != nil,
                string.contains(where: \.isLetter)
            {
                return string.uppercased()
            }
            return string.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
        }.joined(separator: " ")
    }
}
