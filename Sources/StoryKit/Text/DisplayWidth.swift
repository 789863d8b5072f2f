/// How many terminal columns text takes, measured per grapheme (Swift `Character`).
///
/// A grapheme is as wide as its first scalar that takes any room, capped at 2:
/// - 0: controls, combining marks (Mn, Me), format characters (Cf: ZWSP, ZWNJ, ZWJ, LRM, RLM,
///   U+FEFF, tags), line and paragraph separators, and the Hangul medial vowels and final
///   consonants that join the syllable before them;
/// - 2: East Asian Wide and Fullwidth characters (``wideRanges``, from EastAsianWidth-17.0.0) and
///   emoji with emoji presentation; also a grapheme whose emoji base is followed by VS16 (`❤️`,
///   `1️⃣`) or joined with ZWJ;
/// - 1: everything else, soft hyphen included (terminals draw it as a hyphen).
///
/// Terminals disagree about VS16 sequences, skin tones and keycaps (tmux 3.3a: ❤️ = 1, 👍🏽 = 4,
/// 1️⃣ = 1): never build frames whose alignment depends on them.
public enum DisplayWidth {
    /// Terminal columns of one grapheme: 0 for combining marks, zero-width characters and
    /// controls; 2 for East Asian Wide/Fullwidth and emoji presentation; else 1.
    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue {  // CR LF has the ASCII value of LF
            return ascii >= 0x20 && ascii < 0x7F ? 1 : 0
        }
        var width = 0
        var base: Unicode.Scalar?
        var hasEmojiVariation = false
        var hasJoiner = false
        for scalar in character.unicodeScalars {
            switch scalar.value {
            case 0xFE0F: hasEmojiVariation = true
            case 0x200D: hasJoiner = true
            default:
                if base == nil {
                    width = of(scalar)
                    if width > 0 { base = scalar }
                }
            }
        }
        if width == 1, let base, hasEmojiVariation || hasJoiner, base.properties.isEmoji {
            return 2
        }
        return width
    }

    /// Terminal columns of a string: the sum over its graphemes.
    public static func of(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// Columns of one scalar on its own.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        if value < 0xA0 { return 0 }
        if value == 0xAD { return 1 }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control, .lineSeparator, .paragraphSeparator:
            return 0
        default:
            return properties.isEmojiPresentation || isWide(value) ? 2 : 1
        }
    }

    /// Whether a scalar is East Asian Wide or Fullwidth.
    static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count
        while low < high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// East Asian Wide (W) and Fullwidth (F) scalars of Unicode 17.0, as sorted ranges. Compacted:
    /// scalars with Emoji_Presentation are left to `isEmojiPresentation`, and ranges separated only
    /// by unassigned scalars are joined.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2630...0x2637, 0x268A...0x268F, 0x2E80...0x3029,
        0x3030...0x303E, 0x3041...0x3096, 0x309B...0x3163, 0x3165...0x3247, 0x3250...0xA4C6,
        0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6B,
        0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE3, 0x16FF2...0x1B2FB, 0x1D300...0x1D376,
        0x1F200...0x1F265, 0x20000...0x3FFFD,
    ]
}
