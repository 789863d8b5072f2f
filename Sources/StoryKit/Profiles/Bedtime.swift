import Foundation

/// When reading stops for the night (issue 46): never, at the end of the story, at the end of
/// the chapter, or after some minutes at the end of the sentence then being read, so that a child
/// is never cut off mid-sentence. A profile's default (a parent's setting), or one run's
/// (`--bedtime`, the `bedtime` command).
public enum Bedtime: Sendable, Hashable, Codable {
    case off
    case story
    case chapter
    case minutes(Int)

    /// The minutes a timer may run: one minute to three hours.
    public static let minuteRange = 1...180

    /// "off", "story", "chapter", "20" (also "end of story", "20 minutes", "20m"); nil for anything else.
    public init?(loose: String) {
        var text = loose.trimmingCharacters(in: .whitespaces).lowercased()
        for prefix in ["end of the ", "end of ", "the "] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        switch text {
        case "off", "none", "no", "never": self = .off
        case "story": self = .story
        case "chapter": self = .chapter
        default:
            for suffix in [" minutes", " minute", " min", "min", "m"] where text.hasSuffix(suffix) {
                text = String(text.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
                break
            }
            guard text.count <= 4, let minutes = Int(text), Self.minuteRange.contains(minutes) else { return nil }
            self = .minutes(minutes)
        }
    }

    /// As stored, typed and shown: "off", "story", "chapter" or a number of minutes.
    public var text: String {
        switch self {
        case .off: "off"
        case .story: "story"
        case .chapter: "chapter"
        case .minutes(let minutes): String(minutes)
        }
    }

    /// The choices a picker steps through (the profile form), in that order.
    public static let choices: [Bedtime] = [.off, .story, .chapter] + [10, 15, 20, 30, 45, 60].map { .minutes($0) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = Bedtime(loose: text) ?? .off
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
