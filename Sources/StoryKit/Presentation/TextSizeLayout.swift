/// Ways a terminal can draw text larger than its font.
public struct TextScaling: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// DEC double-height, double-width lines (`ESC #3` / `ESC #4`): 2× only, whole lines.
    public static let decDoubleSize = TextScaling(rawValue: 1 << 0)
    /// kitty's text-sizing protocol (OSC 66): 2× and 3×.
    public static let kittyTextSizing = TextScaling(rawValue: 1 << 1)

    /// Block letters only (nothing known to work: the safe default).
    public static let none: TextScaling = []
}

/// How large text is really drawn.
public enum LargeTextMethod: String, Sendable, Hashable {
    /// At the terminal's own size.
    case normal
    /// DEC double-size lines.
    case decDoubleSize
    /// kitty's OSC 66.
    case kittyTextSizing
    /// The built-in block-letter font (works everywhere).
    case blockLetters
}

/// What a text-size preset means on a terminal: the measure (column width), spacing, and the
/// scale of the reading text and headings at the accessibility sizes.
///
/// A terminal cannot draw glyphs smaller than its font, so below `large` a preset narrows the
/// column and adds space between lines; from `xLarge` up it adds spacing; at the accessibility
/// sizes the sentence being heard and headings are drawn 2× (accessibility1–3) or 3×
/// (accessibility4–5): with DEC double-size lines or kitty's OSC 66 where the terminal is known to
/// support them, otherwise as block letters. The plain text is always drawn too.
public struct TextSizeLayout: Sendable, Hashable {
    public var preset: TextSizePreset
    /// The longest reading line, in columns, when the terminal is wider.
    public var measure: Int
    /// Blank lines between wrapped lines of reading text.
    public var lineSpacing: Int
    /// Blank lines between paragraphs and before headings.
    public var paragraphSpacing: Int
    /// 1, 2 or 3: how much larger the sentence being heard and headings are.
    public var scale: Int

    public init(_ preset: TextSizePreset) {
        self.preset = preset
        switch preset {
        case .xSmall: (measure, lineSpacing, paragraphSpacing, scale) = (48, 1, 2, 1)
        case .small: (measure, lineSpacing, paragraphSpacing, scale) = (56, 1, 1, 1)
        case .medium: (measure, lineSpacing, paragraphSpacing, scale) = (64, 0, 2, 1)
        case .large: (measure, lineSpacing, paragraphSpacing, scale) = (72, 0, 1, 1)
        case .xLarge: (measure, lineSpacing, paragraphSpacing, scale) = (72, 0, 2, 1)
        case .xxLarge: (measure, lineSpacing, paragraphSpacing, scale) = (72, 1, 1, 1)
        case .xxxLarge: (measure, lineSpacing, paragraphSpacing, scale) = (72, 1, 2, 1)
        case .accessibility1, .accessibility2, .accessibility3: (measure, lineSpacing, paragraphSpacing, scale) = (72, 0, 1, 2)
        case .accessibility4, .accessibility5: (measure, lineSpacing, paragraphSpacing, scale) = (72, 0, 1, 3)
        }
    }

    /// The reading column on a terminal `width` columns wide (the margin taken off first).
    public func columnWidth(terminalWidth: Int) -> Int {
        max(8, min(measure, terminalWidth - 2))
    }

    /// How large text is drawn given what the terminal is known to support.
    public func method(scaling: TextScaling) -> LargeTextMethod {
        switch scale {
        case 1: .normal
        case 2: scaling.contains(.kittyTextSizing) ? .kittyTextSizing : scaling.contains(.decDoubleSize) ? .decDoubleSize : .blockLetters
        // DEC lines only double: 3× needs kitty, else the block letters (which are larger than 2×).
        default: scaling.contains(.kittyTextSizing) ? .kittyTextSizing : .blockLetters
        }
    }

    /// What is really shown: "large", "accessibility2, shown at 2×", "accessibility4, shown as block
    /// letters", in the language of `messages` (the preset named as `ChoiceNames` shows it).
    public func description(scaling: TextScaling, messages: MessageCatalog = .english) -> String {
        let name = ["size": ChoiceNames.shown(preset.rawValue, messages)]
        switch method(scaling: scaling) {
        case .normal:
            switch preset {
            case .xSmall, .small, .medium: return messages.tr("{size}, shown as a narrower column with more space", name)
            case .large: return ChoiceNames.shown(preset.rawValue, messages)
            default: return messages.tr("{size}, shown with more space", name)
            }
        case .decDoubleSize: return messages.tr("{size}, shown at 2× (double-size lines)", name)
        case .kittyTextSizing: return messages.tr("{size}, shown at {scale}×", name.merging(["scale": String(scale)]) { $1 })
        case .blockLetters: return messages.tr("{size}, shown as block letters", name)
        }
    }
}
