/// A message made before its language is known (a problem found while reading a folder, a book or
/// config.toml): its English template, marked with `N_` where it is made, and its values, some of
/// them messages themselves ("'profile' must be {wanted}", wanted "text in quotes"). Translated
/// where it is shown; `english` is its text in English.
public struct CatalogText: Sendable, Hashable, CustomStringConvertible {
    /// The catalog's key (an English message with `{name}` placeholders), or, for a verbatim
    /// text (a file name, a reason the system gave), the text itself.
    public var template: String
    /// Plain values: names and numbers, shown as they are.
    public var values: [String: String]
    /// Values that are messages too, translated before they are put in.
    public var parts: [String: CatalogText]
    /// False for a verbatim text: never looked up, never filled.
    public var translates: Bool

    public init(_ template: String, _ values: [String: String] = [:], parts: [String: CatalogText] = [:]) {
        self.template = template
        self.values = values
        self.parts = parts
        self.translates = true
    }

    /// Text from outside (a file name, the system's words): shown as it is, in every language.
    public static func verbatim(_ text: String) -> CatalogText {
        var text = CatalogText(text)
        text.translates = false
        return text
    }

    /// In the language of `messages`, its values filled.
    public func localized(_ messages: MessageCatalog) -> String {
        guard translates else { return template }
        var filled = values
        for (name, part) in parts { filled[name] = part.localized(messages) }
        return messages.text(template, filled)
    }

    /// In English.
    public var english: String { localized(.english) }
    public var description: String { english }
}

/// An error whose message can be said in the parent's language; its `description` stays English.
public protocol TranslatableError: Error {
    func localized(_ messages: MessageCatalog) -> String
}

extension MessageCatalog {
    /// `error` in this language when it knows how to say itself in one, else its own words.
    public func describe(_ error: any Error) -> String {
        if let translatable = error as? any TranslatableError { return translatable.localized(self) }
        return "\(error)"
    }
}
