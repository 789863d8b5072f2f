import Foundation

/// A value in the configuration file: the part of TOML that defaults need (strings, numbers,
/// booleans, one-line arrays). Kept small on purpose: a full TOML library would cost a C++ build
/// for a file of a dozen lines.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case boolean(Bool)
    case array([ConfigValue])

    /// What a person calls this kind of value, for messages (translated where they are shown).
    var kindName: String {
        switch self {
        case .string: N_("text")
        case .number: N_("a number")
        case .boolean: N_("true or false")
        case .array: N_("a list")
        }
    }
}

/// One line of the file that could not be understood, or a setting that is not allowed.
public struct ConfigError: TranslatableError, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    /// What is wrong, in English.
    public var message: String { text.english }
    /// The same, to be translated where it is shown.
    public var text: CatalogText

    /// A message of its own, shown as it is in every language.
    public init(path: String, line: Int, message: String) {
        self.init(path: path, line: line, .verbatim(message))
    }

    public init(path: String, line: Int, _ text: CatalogText) {
        self.path = path
        self.line = line
        self.text = text
    }

    /// `path, line N: message`; a file that cannot be read at all has no line (`path: message`).
    public var description: String { localized(.english) }

    /// The same in the language of `messages` (the path as it is).
    public func localized(_ messages: MessageCatalog) -> String {
        let place = line > 0 ? path + messages.tr(", line {line}", ["line": String(line)]) : path
        return place + ": " + text.localized(messages)
    }
}

/// Reads `key = value` lines, `[section]` headers and `#` comments into (section, key, value, line).
struct ConfigLineParser {
    struct Entry: Equatable {
        var section: String
        var key: String
        var value: ConfigValue
        var line: Int
    }

    /// A message for the line, without the path and line number (the caller adds them).
    struct LineError: Error {
        var message: CatalogText
        init(_ template: String, _ values: [String: String] = [:], parts: [String: CatalogText] = [:]) {
            message = CatalogText(template, values, parts: parts)
        }
    }

    /// "[display] or [kiosk]": each "or" translated where it is shown.
    static func alternatives(_ items: [String]) -> CatalogText {
        guard var list = items.first.map(CatalogText.verbatim) else { return .verbatim("") }
        for item in items.dropFirst() {
            list = CatalogText(N_("{first} or {second}"), parts: ["first": list, "second": .verbatim(item)])
        }
        return list
    }

    /// - Parameter sections: the `[section]` names allowed.
    static func parse(_ text: String, path: String, sections: Set<String>) throws(ConfigError) -> [Entry] {
        var entries: [Entry] = []
        var section = ""
        var seen: Set<String> = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var scanner = Scanner(Substring(rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine))
            do {
                scanner.skipSpaces()
                if scanner.atEndOrComment { continue }
                if scanner.peek == "[" {
                    scanner.advance()
                    scanner.skipSpaces()
                    let name = scanner.bareKey()
                    scanner.skipSpaces()
                    guard !name.isEmpty, scanner.peek == "]" else {
                        throw LineError(N_("a section header is written [name], like [kiosk]"))
                    }
                    scanner.advance()
                    try scanner.expectEnd()
                    guard sections.contains(name) else {
                        throw LineError(
                            N_("there is no section [{name}]: use {sections}, or none"), ["name": name],
                            parts: ["sections": alternatives(sections.sorted().map { "[\($0)]" })])
                    }
                    section = name
                    continue
                }
                let key = scanner.bareKey()
                guard !key.isEmpty else { throw LineError(N_("expected a setting, like: theme = \"dark\"")) }
                scanner.skipSpaces()
                guard scanner.peek == "=" else { throw LineError(N_("expected '=' after '{key}', like: {key} = \"value\""), ["key": key]) }
                scanner.advance()
                scanner.skipSpaces()
                let value = try scanner.value()
                try scanner.expectEnd()
                let qualified = section.isEmpty ? key : "\(section).\(key)"
                guard seen.insert(qualified).inserted else { throw LineError(N_("'{key}' is set twice: keep one"), ["key": key]) }
                entries.append(Entry(section: section, key: key, value: value, line: number))
            } catch let error as LineError {
                throw ConfigError(path: path, line: number, error.message)
            } catch {
                throw ConfigError(path: path, line: number, message: "\(error)")
            }
        }
        return entries
    }

    private struct Scanner {
        var text: Substring
        init(_ text: Substring) { self.text = text }

        var peek: Character? { text.first }
        var atEndOrComment: Bool { text.isEmpty || text.first == "#" }
        mutating func advance() { text = text.dropFirst() }
        mutating func skipSpaces() { while peek == " " || peek == "\t" { advance() } }

        mutating func bareKey() -> String {
            let key = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            text = text.dropFirst(key.count)
            return String(key)
        }

        mutating func expectEnd() throws(LineError) {
            skipSpaces()
            guard atEndOrComment else {
                throw LineError(N_("unexpected '{text}' after the value (a comment starts with #)"), ["text": String(text.prefix(20))])
            }
        }

        mutating func value() throws(LineError) -> ConfigValue {
            switch peek {
            case "\"": return .string(try basicString())
            case "'": return .string(try literalString())
            case "[": return try array()
            case nil, "#": throw LineError(N_("a value is missing after '='"))
            default:
                let word = text.prefix { !" \t#,]".contains($0) }
                text = text.dropFirst(word.count)
                if word == "true" { return .boolean(true) }
                if word == "false" { return .boolean(false) }
                if let number = Double(word.replacingOccurrences(of: "_", with: "")), number.isFinite { return .number(number) }
                throw LineError(
                    N_("'{word}' is not a value: text goes in quotes (\"{word}\"), or use a number, true or false"), ["word": String(word.prefix(40))])
            }
        }

        private mutating func basicString() throws(LineError) -> String {
            advance()
            var result = ""
            while let character = peek {
                advance()
                switch character {
                case "\"": return result
                case "\\":
                    guard let escaped = peek else { break }
                    advance()
                    switch escaped {
                    case "\"": result.append("\"")
                    case "\\": result.append("\\")
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    default:
                        throw LineError(
                            N_("'\\{escape}' is not an escape TOML knows: write \\\\ for a backslash, or use 'single quotes'"), ["escape": String(escaped)])
                    }
                default: result.append(character)
                }
            }
            throw LineError(N_("the text has no closing \" on this line"))
        }

        private mutating func literalString() throws(LineError) -> String {
            advance()
            guard let end = text.firstIndex(of: "'") else { throw LineError(N_("the text has no closing ' on this line")) }
            let result = String(text[..<end])
            text = text[text.index(after: end)...]
            return result
        }

        private mutating func array() throws(LineError) -> ConfigValue {
            advance()
            var items: [ConfigValue] = []
            while true {
                skipSpaces()
                if peek == "]" {
                    advance()
                    return .array(items)
                }
                if atEndOrComment { throw LineError(N_("the list has no closing ] on this line (write the list on one line)")) }
                items.append(try value())
                skipSpaces()
                if peek == "," {
                    advance()
                } else if peek != "]" {
                    throw LineError(N_("list items are separated by commas"))
                }
            }
        }
    }
}
