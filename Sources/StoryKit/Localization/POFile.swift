import Foundation

/// A gettext `.po` file: the format translators and their tools (Poedit, Weblate) read and write.
///
/// Read by the program itself rather than through glibc's gettext, which follows the process
/// locale and needs generated system locales: the REPL switches language per child, without
/// restarting. What is read is what `msgfmt --check` accepts: comments (`#`, `#.`, `#:`, `#,`),
/// `msgctxt`, `msgid`, `msgid_plural`, `msgstr` and `msgstr[N]`, strings continued over several
/// quoted lines, and the C escapes `\n \t \" \\`. An entry marked `fuzzy` is a translator's
/// guess and is not used, as gettext does not use it.
public struct POFile: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var context: String?
        public var id: String
        public var pluralID: String?
        /// One string, or one per plural form (`msgstr[0]`, `msgstr[1]`, …).
        public var translations: [String]
        public var flags: Set<String> = []
        /// `#.` comments: what the string is for, written for translators.
        public var notes: [String] = []

        public init(context: String? = nil, id: String, pluralID: String? = nil, translations: [String], flags: Set<String> = [], notes: [String] = []) {
            self.context = context
            self.id = id
            self.pluralID = pluralID
            self.translations = translations
            self.flags = flags
            self.notes = notes
        }

        public var isFuzzy: Bool { flags.contains("fuzzy") }
        /// Translated: not fuzzy, and every form non-empty.
        public var isTranslated: Bool { !isFuzzy && !translations.isEmpty && translations.allSatisfy { !$0.isEmpty } }
    }

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The entries, without the header (the entry whose id is empty).
    public var entries: [Entry]
    /// The header's fields ("Language", "Plural-Forms", …).
    public var header: [String: String]

    public var language: String? { header["Language"] }
    /// The `Plural-Forms` header, e.g. `nplurals=2; plural=(n > 1);`.
    public var pluralForms: String? { header["Plural-Forms"] }

    public init(entries: [Entry], header: [String: String]) {
        self.entries = entries
        self.header = header
    }

    public init(parsing text: String) throws {
        var entries: [Entry] = []
        var header: [String: String] = [:]
        var current = Draft()
        // Which string a continuation line ("…") adds to.
        var target: Draft.Field?

        func finish(at line: Int) throws {
            guard current.started else { return }
            guard let id = current.id else { throw ParseError(line: line, reason: "an entry without msgid") }
            let translations: [String]
            if current.pluralID != nil {
                let forms = current.plurals.keys.sorted()
                guard !forms.isEmpty, forms == Array(0..<forms.count) else {
                    throw ParseError(line: line, reason: "the plural entry \"\(id)\" needs msgstr[0], msgstr[1], … in order")
                }
                translations = forms.map { current.plurals[$0]! }
            } else {
                guard let single = current.single else { throw ParseError(line: line, reason: "the entry \"\(id)\" has no msgstr") }
                translations = [single]
            }
            if id.isEmpty && current.context == nil {
                for field in translations[0].split(separator: "\n") {
                    guard let colon = field.firstIndex(of: ":") else { continue }
                    header[String(field[..<colon]).trimmingCharacters(in: .whitespaces)] =
                        String(field[field.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                }
            } else {
                entries.append(
                    Entry(
                        context: current.context, id: id, pluralID: current.pluralID, translations: translations,
                        flags: current.flags, notes: current.notes))
            }
            current = Draft()
            target = nil
        }

        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, rawLine) in lines.enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                try finish(at: number)
                continue
            }
            if line.hasPrefix("#") {
                // A comment after a complete entry's strings starts the next entry.
                if current.hasStrings { try finish(at: number) }
                if line.hasPrefix("#,") {
                    current.flags.formUnion(line.dropFirst(2).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                } else if line.hasPrefix("#.") {
                    current.notes.append(line.dropFirst(2).trimmingCharacters(in: .whitespaces))
                }
                current.started = true
                continue
            }
            if line.hasPrefix("\"") {
                guard let field = target else { throw ParseError(line: number, reason: "a string that continues nothing") }
                current.append(try Self.unquote(line, line: number), to: field)
                continue
            }
            guard let space = line.firstIndex(of: " ") else { throw ParseError(line: number, reason: "expected a keyword and a string: \(line)") }
            let keyword = String(line[..<space])
            let value = try Self.unquote(line[line.index(after: space)...].trimmingCharacters(in: .whitespaces), line: number)
            let field: Draft.Field
            switch keyword {
            case "msgctxt":
                if current.hasStrings { try finish(at: number) }
                field = .context
            case "msgid":
                if current.hasStrings { try finish(at: number) }
                field = .id
            case "msgid_plural": field = .pluralID
            case "msgstr": field = .single
            default:
                guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"), let index = Int(keyword.dropFirst(7).dropLast()), index >= 0, index < 10 else {
                    throw ParseError(line: number, reason: "unknown keyword \(keyword)")
                }
                field = .plural(index)
            }
            if current.has(field) { throw ParseError(line: number, reason: "\(keyword) given twice in one entry") }
            current.started = true
            current.set(value, for: field)
            target = field
        }
        try finish(at: lines.count + 1)
        self.entries = entries
        self.header = header
    }

    /// The entry for `id` in `context`, if any.
    public func entry(_ id: String, context: String? = nil) -> Entry? {
        entries.first { $0.id == id && $0.context == context }
    }

    // MARK: Strings

    /// The text of a quoted PO string, escapes resolved.
    static func unquote(_ quoted: some StringProtocol, line: Int) throws -> String {
        guard quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") else {
            throw ParseError(line: line, reason: "a string must be in double quotes: \(quoted)")
        }
        var result = ""
        var escaped = false
        for character in quoted.dropFirst().dropLast() {
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                default: throw ParseError(line: line, reason: "unknown escape \\\(character)")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw ParseError(line: line, reason: "a quote inside a string must be written \\\"")
            } else {
                result.append(character)
            }
        }
        if escaped { throw ParseError(line: line, reason: "a string ends with a lone backslash") }
        return result
    }

    /// `text` as a quoted PO string.
    public static func quote(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.append(character)
            }
        }
        return result + "\""
    }

    /// The file as text, in the layout `msgfmt` and translators' tools expect.
    public func written() -> String {
        var out = "msgid \"\"\nmsgstr \"\"\n"
        for key in header.keys.sorted() { out += Self.quote("\(key): \(header[key]!)\n") + "\n" }
        for entry in entries {
            out += "\n"
            for note in entry.notes { out += "#. \(note)\n" }
            if !entry.flags.isEmpty { out += "#, " + entry.flags.sorted().joined(separator: ", ") + "\n" }
            if let context = entry.context { out += "msgctxt \(Self.quote(context))\n" }
            out += "msgid \(Self.quote(entry.id))\n"
            if let plural = entry.pluralID {
                out += "msgid_plural \(Self.quote(plural))\n"
                for (index, form) in entry.translations.enumerated() { out += "msgstr[\(index)] \(Self.quote(form))\n" }
            } else {
                out += "msgstr \(Self.quote(entry.translations.first ?? ""))\n"
            }
        }
        return out
    }

    /// An entry being read.
    private struct Draft {
        enum Field: Equatable {
            case context, id, pluralID, single
            case plural(Int)
        }
        var started = false
        var context: String?
        var id: String?
        var pluralID: String?
        var single: String?
        var plurals: [Int: String] = [:]
        var flags: Set<String> = []
        var notes: [String] = []

        var hasStrings: Bool { single != nil || !plurals.isEmpty }

        func has(_ field: Field) -> Bool {
            switch field {
            case .context: context != nil
            case .id: id != nil
            case .pluralID: pluralID != nil
            case .single: single != nil
            case .plural(let index): plurals[index] != nil
            }
        }

        mutating func set(_ value: String, for field: Field) {
            switch field {
            case .context: context = value
            case .id: id = value
            case .pluralID: pluralID = value
            case .single: single = value
            case .plural(let index): plurals[index] = value
            }
        }

        mutating func append(_ value: String, to field: Field) {
            switch field {
            case .context: context! += value
            case .id: id! += value
            case .pluralID: pluralID! += value
            case .single: single! += value
            case .plural(let index): plurals[index]! += value
            }
        }
    }
}
