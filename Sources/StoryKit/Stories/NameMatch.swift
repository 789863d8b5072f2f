import Foundation

/// The one rule by which typed letters find a name: `read NAME` (story lookup), the `:` line's
/// completion, the shell's completion and type-ahead in lists all match with it, so that what one
/// finds the others offer.
///
/// Both sides are folded (``StoryLibrary/fold(_:)``: case, accents, width, kinds of space and
/// quotes), and a hyphen or underscore is a space, so "comet" finds the id `the-comet` as it finds
/// the title "The Comet".
public enum NameMatch {
    /// How a name matched, best first.
    public enum Kind: Int, Sendable, Comparable {
        /// The whole name.
        case whole
        /// The name's beginning.
        case beginning
        /// The beginning of a later word of the name ("light" in "The Lighthouse Cat").
        case word

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// `text` as names are compared.
    public static func key(_ text: String) -> String {
        StoryLibrary.fold(text.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " "))
    }

    /// How `typed` matches `name`; nil when it does not (nor when nothing was typed).
    public static func match(_ typed: String, in name: String) -> Kind? {
        matchKeys(key(typed), in: key(name))
    }

    /// The best of `names` (a story's title and id) for `typed`.
    public static func best(_ typed: String, in names: [String]) -> Kind? {
        let query = key(typed)
        return names.compactMap { matchKeys(query, in: key($0)) }.min()
    }

    static func matchKeys(_ query: String, in name: String) -> Kind? {
        guard !query.isEmpty else { return nil }
        if name == query { return .whole }
        if name.hasPrefix(query) { return .beginning }
        var previous: Character = " "
        for index in name.indices {
            let character = name[index]
            if !(previous.isLetter || previous.isNumber), character.isLetter || character.isNumber, name[index...].hasPrefix(query) {
                return .word
            }
            previous = character
        }
        return nil
    }

    /// `candidates` that `typed` matches, the best matches first (in their order within a kind).
    public static func ranked<T>(_ candidates: [T], typed: String, names: (T) -> [String]) -> [T] {
        let query = key(typed)
        return candidates.enumerated().compactMap { offset, candidate in
            names(candidate).compactMap { matchKeys(query, in: key($0)) }.min().map { (candidate, $0, offset) }
        }.sorted { ($0.1, $0.2) < ($1.1, $1.2) }.map(\.0)
    }
}
