import Foundation

/// States shown by a symbol and a word, never by colour alone.
public enum StateBadge: String, Sendable, CaseIterable {
    case read, favourite, playing, locked

    public var symbol: String {
        switch self {
        case .read: "✓"
        case .favourite: "★"
        case .playing: "▶"
        case .locked: "✗"
        }
    }

    /// "✓ read", "★ favourite", "▶ playing", "✗ locked".
    public var text: String { "\(symbol) \(rawValue)" }

    /// The badge a part of an element's value stands for ("read once", "read 3 times",
    /// "favourite", "reading", "playing", "locked"), if any; in another language, the same
    /// words as its catalog says them ("leída 3 veces", "Favorit").
    public static func badge(for part: String, messages: MessageCatalog = .english) -> StateBadge? {
        let folded = fold(part)
        if folded == "read" || folded.hasPrefix("read once") || (folded.hasPrefix("read ") && folded.hasSuffix("times")) { return .read }
        if folded == "favourite" || folded == "favorite" { return .favourite }
        if folded == "reading" || folded == "playing" { return .playing }
        if folded == "locked" { return .locked }
        guard messages.language != "en" else { return nil }
        if folded == fold(messages.tr("favourite")) { return .favourite }
        if folded == fold(messages.tr("reading")) { return .playing }
        // The count said in the part picks the plural form it was written with.
        let count = Int(part.filter(\.isNumber)) ?? 1
        if folded == fold(messages.trn("read once", "read {count} times", count)) { return .read }
        return nil
    }

    private static func fold(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces).lowercased() }

    /// A value with each state word given its symbol: "read once, favourite" → "✓ read once, ★ favourite".
    /// Parts are separated by ", "; anything else is left as it is. (Speech uses the value as given.)
    public static func decorate(_ value: String, messages: MessageCatalog = .english) -> String {
        value.components(separatedBy: ", ").map { part in
            guard let badge = badge(for: part, messages: messages), !part.hasPrefix(badge.symbol) else { return part }
            return "\(badge.symbol) \(part)"
        }.joined(separator: ", ")
    }

    /// The symbols, so the renderer can colour them.
    public static let symbols: Set<Character> = Set(allCases.map { Character($0.symbol) })
}
