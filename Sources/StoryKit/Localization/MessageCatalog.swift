/// The interface's words in one language: the translations of one `.po` file, looked up by the
/// English source text (gettext's way: the English is the key, so a missing translation falls
/// back to English, never to an empty string or a key name).
///
/// Placeholders are named in braces — `"Story: {title}"` — so a translator sees what goes where
/// and may move it: "Histoire : {title}".
public struct MessageCatalog: Sendable {
    /// The language's code: "en", "es", "fr", "de".
    public let language: String
    public let pluralRule: PluralRule
    private let messages: [Key: [String]]

    private struct Key: Hashable, Sendable {
        var context: String?
        var id: String
    }

    /// English: the source strings themselves.
    public static let english = MessageCatalog(language: "en", pluralRule: .english, messages: [:])

    private init(language: String, pluralRule: PluralRule, messages: [Key: [String]]) {
        self.language = language
        self.pluralRule = pluralRule
        self.messages = messages
    }

    /// The catalog of a parsed `.po` file; its language and plural rule come from its header.
    public init(_ file: POFile) throws {
        guard let language = file.language, !language.isEmpty else { throw POFile.ParseError(line: 1, reason: "the header has no Language") }
        guard let forms = file.pluralForms else { throw POFile.ParseError(line: 1, reason: "the header has no Plural-Forms") }
        let rule = try PluralRule(header: forms)
        var messages: [Key: [String]] = [:]
        for entry in file.entries where entry.isTranslated {
            messages[Key(context: entry.context, id: entry.id)] = entry.translations
        }
        self.init(language: language, pluralRule: rule, messages: messages)
    }

    /// Whether `id` has a translation here (English has none: it is the source).
    public func translates(_ id: String, context: String? = nil) -> Bool {
        messages[Key(context: context, id: id)] != nil
    }

    /// `id` in this language, its placeholders filled; English where there is no translation.
    public func text(_ id: String, context: String? = nil, _ values: [String: String] = [:]) -> String {
        Self.fill(messages[Key(context: context, id: id)]?.first ?? id, values)
    }

    /// The form of `singular`/`plural` for `count`, with `{count}` and the other placeholders filled.
    public func text(_ singular: String, plural: String, count: Int, context: String? = nil, _ values: [String: String] = [:]) -> String {
        var values = values
        values["count"] = values["count"] ?? String(count)
        if let forms = messages[Key(context: context, id: singular)] {
            return Self.fill(forms[min(pluralRule.form(for: count), forms.count - 1)], values)
        }
        return Self.fill(PluralRule.english.form(for: count) == 0 ? singular : plural, values)
    }

    /// `template` with each `{name}` replaced by `values[name]`; an unknown name is left as it is.
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}") else { break }
            let name = String(rest[afterOpen..<close])
            result += values[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The placeholder names of `template`, in order: translations must keep the same ones.
    public static func placeholders(_ template: String) -> [String] {
        var names: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
