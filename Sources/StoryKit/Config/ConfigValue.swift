/// A value in the configuration file: the part of TOML that defaults need (strings, numbers,
/// booleans, one-line arrays). Kept small on purpose: a full TOML library would cost a C++ build
/// for a file of a dozen lines.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case boolean(Bool)
    case array([ConfigValue])

    /// What a person calls this kind of value, for messages.
    var kindName: String {
        switch self {
        case .string: "text"
        case .number: "a number"
        case .boolean: "true or false"
        case .array: "a list"
        }
    }
}

/// One line of the file that could not be understood, or a setting that is not allowed.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path, line N: message`; a file that cannot be read at all has no line (`path: message`).
    public var description: String { line > 0 ? "\(path), line \(line): \(message)" : "\(path): \(message)" }
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
    struct LineError: Error { var message: String }

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
                        throw LineError(message: "a section header is written [name], like [kiosk]")
                    }
                    scanner.advance()
                    try scanner.expectEnd()
                    guard sections.contains(name) else {
                        throw LineError(message: "there is no section [\(name)]: use \(sections.sorted().map { "[\($0)]" }.joined(separator: " or ")), or none")
                    }
                    section = name
                    continue
                }
                let key = scanner.bareKey()
                guard !key.isEmpty else { throw LineError(message: "expected a setting, like: theme = \"dark\"") }
                scanner.skipSpaces()
                guard scanner.peek == "=" else { throw LineError(message: "expected '=' after '\(key)', like: \(key) = \"value\"") }
                scanner.advance()
                scanner.skipSpaces()
                let value = try scanner.value()
                try scanner.expectEnd()
                let qualified = section.isEmpty ? key : "\(section).\(key)"
                guard seen.insert(qualified).inserted else { throw LineError(message: "'\(key)' is set twice: keep one") }
                entries.append(Entry(section: section, key: key, value: value, line: number))
            } catch let error as LineError {
                throw ConfigError(path: path, line: number, message: error.message)
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
            guard atEndOrComment else { throw LineError(message: "unexpected '\(text.prefix(20))' after the value (a comment starts with #)") }
        }

        mutating func value() throws(LineError) -> ConfigValue {
            switch peek {
            case "\"": return .string(try basicString())
            case "'": return .string(try literalString())
            case "[": return try array()
            case nil, "#": throw LineError(message: "a value is missing after '='")
            default:
                let word = text.prefix { !" \t#,]".contains($0) }
                text = text.dropFirst(word.count)
                if word == "true" { return .boolean(true) }
                if word == "false" { return .boolean(false) }
                if let number = Double(word.replacingOccurrences(of: "_", with: "")), number.isFinite { return .number(number) }
                throw LineError(message: "'\(word.prefix(40))' is not a value: text goes in quotes (\"\(word.prefix(40))\"), or use a number, true or false")
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
                    default: throw LineError(message: "'\\\(escaped)' is not an escape TOML knows: write \\\\ for a backslash, or use 'single quotes'")
                    }
                default: result.append(character)
                }
            }
            throw LineError(message: "the text has no closing \" on this line")
        }

        private mutating func literalString() throws(LineError) -> String {
            advance()
            guard let end = text.firstIndex(of: "'") else { throw LineError(message: "the text has no closing ' on this line") }
            let result = String(text[..<end])
            text = text[text.index(after: end)...]
            return result
        }

        private mutating func array() throws(LineError) -> ConfigValue {
            advance()
            var items: [ConfigValue] = []
            while true {
                skipSpaces()
                if peek == "]" { advance(); return .array(items) }
                if atEndOrComment { throw LineError(message: "the list has no closing ] on this line (write the list on one line)") }
                items.append(try value())
                skipSpaces()
                if peek == "," { advance() } else if peek != "]" {
                    throw LineError(message: "list items are separated by commas")
                }
            }
        }
    }
}
