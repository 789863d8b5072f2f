import Foundation

/// The braille code a child reads: computer braille (one cell per character, 8 dots), or literary
/// braille in the story's language, uncontracted (grade 1) or contracted (grade 2).
public enum BrailleCode: String, Sendable, Hashable, CaseIterable, Codable {
    case computer
    case grade1 = "grade-1"
    case grade2 = "grade-2"

    /// The code of a child who has chosen none: uncontracted, the code children learn first.
    public static let standard = BrailleCode.grade1

    /// Accepts "grade1", "grade 1", "g1", "uncontracted", "contracted", "comp8" as well.
    public init?(loose: String) {
        let folded = loose.lowercased().filter { !" -_".contains($0) }
        switch folded {
        case "computer", "comp", "comp8", "computerbraille": self = .computer
        case "grade1", "g1", "1", "uncontracted": self = .grade1
        case "grade2", "g2", "2", "contracted": self = .grade2
        default: return nil
        }
    }

    /// The liblouis table list for text in `language` (a BCP 47 tag such as "en", "en-US", "fr").
    /// A language without a table of its own is written with the English (UEB) one.
    public func table(forLanguage language: String) -> String {
        let tag = language.lowercased().replacingOccurrences(of: "_", with: "-")
        let base = String(tag.prefix { $0 != "-" })
        switch (self, base) {
        case (.computer, "fr"): return "fr-bfu-comp8.utb"
        case (.computer, "de"): return "de-de-comp8.ctb"
        case (.computer, _): return "en-us-comp8-ext.utb"
        case (.grade1, "es"): return "es-g1.ctb"
        // French has no separate grade-1 table: its uncontracted ("intégral") braille is the 6-dot one.
        case (.grade1, "fr"): return "fr-bfu-comp6.utb"
        case (.grade1, "de"): return "de-g1.ctb"
        case (.grade1, _): return "en-ueb-g1.ctb"
        case (.grade2, "es"): return "es-g2.ctb"
        case (.grade2, "fr"): return "fr-bfu-g2.ctb"
        case (.grade2, "de"): return "de-g2.ctb"
        // American children learn EBAE-style contractions from the US table; everyone else UEB.
        case (.grade2, "en") where tag == "en-us": return "en-us-g2.ctb"
        case (.grade2, _): return "en-ueb-g2.ctb"
        }
    }
}
