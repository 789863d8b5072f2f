import Foundation

/// How long the read-along coach waits in a silence before it says the next word for the child
/// (issue 45): whole seconds from 2 to 8, 3 unless a parent sets more for a slower reader.
public enum CoachWait {
    public static let range = 2...8
    public static let standard = 3

    /// The seconds of "3", "3 seconds", "3 s" or "3s"; nil for anything else or out of range.
    public static func seconds(loose text: String) -> Int? {
        var trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in [" seconds", " second", " secs", " sec", " s", "s"] where trimmed.hasSuffix(suffix) {
            trimmed = String(trimmed.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        guard trimmed.count <= 2, let seconds = Int(trimmed), range.contains(seconds) else { return nil }
        return seconds
    }

    /// The choices a picker steps through (the profile form, the site's web page), as stored.
    public static let choices: [String] = range.map(String.init)

    /// "3 seconds" in the language of `messages` (a picker's value as shown and said).
    public static func shown(_ seconds: Int, _ messages: MessageCatalog) -> String {
        messages.trn("{count} second", "{count} seconds", seconds)
    }
}
