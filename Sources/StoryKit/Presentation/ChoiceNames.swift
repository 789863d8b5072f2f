import Foundation

/// The names of the presentation choices (text sizes, themes, reduced motion, spacing) as a child
/// sees and hears them. A choice's name is also what a parent types (`set theme dark`,
/// `--text-size accessibility2`, config.toml): English shows that name; another language shows
/// its own word ("oscuro"), and `set` takes either.
public enum ChoiceNames {
    /// Every choice, by the name a parent types; each is a message of the catalogs.
    static let names: [String] = [
        N_("xSmall"), N_("small"), N_("medium"), N_("large"), N_("xLarge"), N_("xxLarge"), N_("xxxLarge"),
        N_("accessibility1"), N_("accessibility2"), N_("accessibility3"), N_("accessibility4"), N_("accessibility5"),
        N_("default"), N_("dark"), N_("light"), N_("high-contrast-dark"), N_("high-contrast-light"),
        N_("auto"), N_("normal"), N_("wide"),
        N_("computer"), N_("grade-1"), N_("grade-2"),
        N_("recording"), N_("synthetic"),
        N_("full"), N_("short"),
        // The bedtime timer's (`Bedtime`); its minutes are numbers.
        N_("story"), N_("chapter"),
    ]

    /// `name` as shown and said in the language of `messages`; a name that is not a choice, as it is.
    public static func shown(_ name: String, _ messages: MessageCatalog) -> String {
        names.contains(name) ? messages.text(name) : name
    }

    /// The name a parent types for `typed` among `choices` (one setting's names) when it is a
    /// choice's shown name in the language of `messages` ("oscuro" → "dark", case and accents
    /// aside); otherwise `typed` as it is, so the typed names always work.
    public static func typedName(_ typed: String, among choices: [String], _ messages: MessageCatalog) -> String {
        let folded = fold(typed)
        if choices.contains(where: { fold($0) == folded }) { return typed }
        return choices.first { fold(messages.text($0)) == folded } ?? typed
    }

    /// Compared as story names are: case, accents and spaces aside.
    static func fold(_ text: String) -> String {
        StoryLibrary.fold(text).trimmingCharacters(in: .whitespaces)
    }
}
