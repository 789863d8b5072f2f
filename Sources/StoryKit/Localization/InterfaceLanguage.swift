import Foundation

/// The languages the interface speaks, and which one a run starts in.
public enum InterfaceLanguage {
    /// English first: it is the source every other catalog translates.
    public static let supported = ["en", "es", "fr", "de"]

    /// Each language named in itself, as a picker offers it.
    public static let ownNames: [String: String] = ["en": "English", "es": "Español", "fr": "Français", "de": "Deutsch"]

    /// The language of the messages, chosen as GNU programs choose it: the first of `LC_ALL`,
    /// `LC_MESSAGES` and `LANG` that is set names the locale; the C (POSIX) locale, or none, is
    /// English, whatever else is set; otherwise `LANGUAGE` (a list such as `fr:de`) is looked at
    /// first, then the locale's own language (`es_ES.UTF-8` → es). A language not supported
    /// falls to the next choice, and in the end to English.
    public static func fromEnvironment(_ environment: [String: String]) -> String {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, locale != "C", locale != "POSIX", !locale.hasPrefix("C.") else { return "en" }
        let preferences = (environment["LANGUAGE"] ?? "").split(separator: ":").map(String.init) + [locale]
        for preference in preferences {
            if let code = code(of: preference) { return code }
        }
        return "en"
    }

    /// The supported language a locale or language name stands for: `fr_CA.UTF-8@euro`, `fr`,
    /// `FR` and `Français` are all fr; nil when it names none.
    public static func code(of name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let own = ownNames.first(where: { $0.value.lowercased() == trimmed.lowercased() }) { return own.key }
        let language = trimmed.prefix { $0.isLetter }.lowercased()
        return supported.contains(language) ? language : nil
    }
}
