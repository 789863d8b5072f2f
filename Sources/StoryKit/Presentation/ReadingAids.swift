import Foundation

/// Reading aids for children learning to read and for dyslexic readers, as Immersive Reader and
/// Read Along offer them: they change what the screen shows of the story, never what is spoken.
public struct ReadingAids: Sendable, Hashable, Codable {
    /// How many lines around the word being heard are shown in full (the others are dimmed, or
    /// left blank where dimming cannot be seen).
    public var lineFocus: LineFocus
    /// Words shown split into reading syllables with a middle dot: "but·ter·fly".
    public var syllables: Bool
    /// Wider gaps between words and a blank line between lines.
    public var spacing: TextSpacing

    public init(lineFocus: LineFocus = .off, syllables: Bool = false, spacing: TextSpacing = .normal) {
        self.lineFocus = lineFocus
        self.syllables = syllables
        self.spacing = spacing
    }

    public static let off = ReadingAids()

    public var isOff: Bool { self == .off }
}

/// `line-focus: off|1|3|5`.
public enum LineFocus: String, Sendable, Hashable, Codable, CaseIterable {
    case off
    case one = "1"
    case three = "3"
    case five = "5"

    /// Lines shown in full, or nil when every line is.
    public var lines: Int? {
        switch self {
        case .off: nil
        case .one: 1
        case .three: 3
        case .five: 5
        }
    }

    /// Parses "off", "1", "3", "5" (and "one", "three", "five", "none").
    public init?(name: String) {
        switch name.lowercased().trimmingCharacters(in: .whitespaces) {
        case "off", "none", "0": self = .off
        case "1", "one": self = .one
        case "3", "three": self = .three
        case "5", "five": self = .five
        default: return nil
        }
    }
}

/// `spacing: normal|wide`.
public enum TextSpacing: String, Sendable, Hashable, Codable, CaseIterable {
    case normal, wide
}
