/// Something wrong with a story file, worded for the parent or librarian who has to fix it.
///
/// An `.error` means the file is not loaded; a `.warning` means it is loaded and something was
/// ignored or repaired. The description names the file (and line where it applies), what is wrong
/// and what to do: "stories/fox.md, line 1: a story needs a title: add a 'title:' line".
public struct StoryProblem: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning
    }

    public enum Kind: String, Sendable, Hashable, Codable {
        case unreadable, notFound, notAFolder, symlinkLoop, empty, binary, tooLarge, invalidUTF8
        case missingTitle, unterminatedFrontMatter, badAges, badLanguage, badPart, unknownKey, duplicateKey
        case noText, duplicateID, pictureFileMissing, pictureWithoutDescription, controlCharacters, tooLong, badPrintPage
    }

    public var severity: Severity
    public var kind: Kind
    /// The file or folder, as given to the library.
    public var path: String
    /// 1-based line, where it applies.
    public var line: Int?
    /// What is wrong and what to do, without the path (in English, with its values).
    public var message: String
    /// The message as the catalogs know it ("is {size}; …", marked with N_ where it is made) and
    /// its values: translated where it is shown. A message made without a template is its own.
    public var template: String
    public var values: [String: String]

    public init(_ severity: Severity, _ kind: Kind, path: String, line: Int? = nil, _ template: String, _ values: [String: String] = [:]) {
        self.severity = severity
        self.kind = kind
        self.path = path
        self.line = line
        self.template = template
        self.values = values
        self.message = MessageCatalog.fill(template, values)
    }

    public var isError: Bool { severity == .error }

    public var description: String { localized(.english) }

    /// "stories/fox.md, line 1: a story needs a title: …" in the language of `messages` (the path
    /// and the values as they are).
    public func localized(_ messages: MessageCatalog) -> String {
        // The path comes from outside (a file name can hold escape sequences): shown visibly.
        var text = Sanitizer.visible(path)
        if let line { text += messages.tr(", line {line}", ["line": String(line)]) }
        text += ": "
        if severity == .warning { text += messages.tr("warning: ") }
        return text + Sanitizer.visibleLines(messages.text(template, values))
    }
}
