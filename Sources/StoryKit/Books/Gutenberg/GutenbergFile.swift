import Foundation

/// What every Project Gutenberg text file shares, old or new: its encoding, the START and END
/// markers around the book, and the header above them.
enum GutenbergFile {
    /// Decodes a file: UTF-8 (with or without a byte order mark), else Latin-1 as older files are.
    static func decode(_ data: Data) -> String {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(data: bytes, encoding: .utf8) { return text }
        // Latin-1: every byte is the code point of the same number.
        var text = ""
        text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return text
    }

    /// The lines, whatever their ending (CRLF, LF, or CR of old Macintosh files).
    static func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Start markers are looked for only this near the beginning: a book that quotes one (or a
    /// licence's "*** START: FULL LICENSE ***" at the end) is not cut there.
    static let startSearchLines = 600

    /// The line of the START marker (or the end of the old "SMALL PRINT").
    static func startLine(in lines: [String]) -> Int? {
        for (index, line) in lines.prefix(startSearchLines).enumerated() {
            let upper = line.uppercased()
            if upper.hasPrefix("***"), upper.contains("START OF"), upper.contains("PROJECT GUTENBERG") { return index }
            if upper.contains("*END*THE SMALL PRINT") { return index }
        }
        return nil
    }

    /// The line of the END marker, looked for only after the start (the end of the file when none).
    static func endLine(in lines: [String], after start: Int) -> Int {
        for index in (start + 1)..<max(lines.count, start + 1) {
            let upper = lines[index].trimmingCharacters(in: .whitespaces).uppercased()
            if upper.hasPrefix("***"), upper.contains("END OF"), upper.contains("PROJECT GUTENBERG") { return index }
            if upper.hasPrefix("END OF THE PROJECT GUTENBERG") || upper.hasPrefix("END OF PROJECT GUTENBERG") { return index }
            if upper.hasPrefix("END OF THIS PROJECT GUTENBERG") { return index }
        }
        return lines.count
    }

    /// A header field (`Title: …`) above the start marker; an indented line after it continues it.
    static func header(_ key: String, in lines: ArraySlice<String>) -> String? {
        guard let index = lines.firstIndex(where: { $0.hasPrefix(key + ":") }) else { return nil }
        var value = String(lines[index].dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces)
        var next = index + 1
        while next < lines.endIndex, let first = lines[next].first, first == " " || first == "\t",
            !lines[next].trimmingCharacters(in: .whitespaces).isEmpty
        {
            value += " " + lines[next].trimmingCharacters(in: .whitespaces)
            next += 1
        }
        return value.isEmpty ? nil : value
    }

    /// An ISO 639-1 code for the header's language name ("French" → "fr"); nil when unknown.
    static func languageCode(_ name: String) -> String? {
        let wanted = name.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if wanted.count == 2, wanted.allSatisfy(\.isLetter) { return wanted }
        let english = Locale(identifier: "en_US")
        return Locale.LanguageCode.isoLanguageCodes.lazy.map(\.identifier)
            .first { $0.count == 2 && english.localizedString(forLanguageCode: $0)?.lowercased() == wanted }
    }

    /// Notes about the transcription, not the book: "Produced by …", "E-text prepared by …".
    static func isProductionNote(_ paragraph: String) -> Bool {
        let lower = paragraph.lowercased()
        return ["produced by", "e-text prepared by", "etext prepared by", "transcribed from", "this etext was prepared by"]
            .contains { lower.hasPrefix($0) }
    }
}
