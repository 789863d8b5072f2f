import Foundation

/// A theme colour: exact 24-bit, with the colour of xterm's 16 to use where only 16 exist.
public struct ThemeColor: Sendable, Hashable {
    public var rgb: RGBColor
    /// 0–15; its real colour is the terminal's, checked against xterm's defaults.
    public var ansi16: Int

    public init(_ hex: String, ansi16: Int) {
        self.rgb = RGBColor(hex: hex)!
        self.ansi16 = ansi16
    }

    /// The nearest colour of the 256-colour cube and grey ramp.
    public var ansi256: Int { XtermPalette.nearest256(rgb) }
}

/// What a colour is used for.
public enum ThemeRole: String, Sendable, Hashable, CaseIterable {
    /// Story text and labels.
    case text
    /// Screen titles and headings.
    case heading
    /// Values and hints.
    case secondary
    /// The focused element (also marked with ❯ and bold).
    case focus
    /// State symbols and words (✓ read, ★ favourite, ▶ playing).
    case state
    /// Problems (also marked with ⚠ and a word).
    case warning
    /// The word being heard, on `highlightBackground` (also reverse video or underline).
    case highlight
}

/// A colour theme: a background and a foreground for every role, in 24-bit and 16 colours.
///
/// Every foreground is checked against its background by a test: at least 4.5:1, 7:1 for the
/// high-contrast themes, in 24-bit, in the 256-colour approximation and in the 16-colour fallback
/// with xterm's default palette.
public struct Theme: Sendable, Hashable {
    public var name: ThemeName
    public var background: ThemeColor
    public var highlightBackground: ThemeColor
    private var foregrounds: [ThemeRole: ThemeColor]

    public init(name: ThemeName, background: ThemeColor, highlightBackground: ThemeColor, foregrounds: [ThemeRole: ThemeColor]) {
        precondition(ThemeRole.allCases.allSatisfy { foregrounds[$0] != nil }, "a theme gives every role a colour")
        self.name = name
        self.background = background
        self.highlightBackground = highlightBackground
        self.foregrounds = foregrounds
    }

    public func foreground(_ role: ThemeRole) -> ThemeColor { foregrounds[role]! }

    /// The background a role is drawn on.
    public func background(for role: ThemeRole) -> ThemeColor { role == .highlight ? highlightBackground : background }

    /// The least contrast a text/background pair of this theme must have.
    public var requiredContrast: Double { name.isHighContrast ? Contrast.enhancedText : Contrast.minimumText }

    /// Every text/background pair the renderer can draw.
    public var pairs: [(role: ThemeRole, foreground: ThemeColor, background: ThemeColor)] {
        ThemeRole.allCases.map { ($0, foreground($0), background(for: $0)) }
    }

    /// The lowest 24-bit contrast ratio among the pairs.
    public var lowestContrast: (role: ThemeRole, ratio: Double) {
        pairs.map { ($0.role, Contrast.ratio($0.foreground.rgb, $0.background.rgb)) }.min { $0.1 < $1.1 }!
    }

    public static func named(_ name: ThemeName) -> Theme {
        switch name {
        case .default: storybook
        case .dark: dark
        case .light: light
        case .highContrastDark: highContrastDark
        case .highContrastLight: highContrastLight
        }
    }

    public static let all: [Theme] = ThemeName.allCases.map(named)

    /// The default: cream text on a deep night-sky blue, gold headings.
    static let storybook = Theme(
        name: .default,
        background: ThemeColor("#1E2140", ansi16: 0),
        highlightBackground: ThemeColor("#FFD27A", ansi16: 11),
        foregrounds: [
            .text: ThemeColor("#F5EFE0", ansi16: 15),
            .heading: ThemeColor("#FFD27A", ansi16: 11),
            .secondary: ThemeColor("#C9C3E6", ansi16: 7),
            .focus: ThemeColor("#7FE3D6", ansi16: 14),
            .state: ThemeColor("#9BE39B", ansi16: 10),
            .warning: ThemeColor("#FFB199", ansi16: 9),
            .highlight: ThemeColor("#1E2140", ansi16: 0),
        ])

    static let dark = Theme(
        name: .dark,
        background: ThemeColor("#121212", ansi16: 0),
        highlightBackground: ThemeColor("#8AB4F8", ansi16: 14),
        foregrounds: [
            .text: ThemeColor("#E8E8E8", ansi16: 15),
            .heading: ThemeColor("#8AB4F8", ansi16: 14),
            .secondary: ThemeColor("#B0B0B0", ansi16: 7),
            .focus: ThemeColor("#FFCC66", ansi16: 11),
            .state: ThemeColor("#81C995", ansi16: 10),
            .warning: ThemeColor("#F28B82", ansi16: 9),
            .highlight: ThemeColor("#121212", ansi16: 0),
        ])

    static let light = Theme(
        name: .light,
        background: ThemeColor("#FBF8F0", ansi16: 15),
        highlightBackground: ThemeColor("#1A4F8B", ansi16: 4),
        foregrounds: [
            .text: ThemeColor("#1F1F1F", ansi16: 0),
            .heading: ThemeColor("#1A4F8B", ansi16: 4),
            .secondary: ThemeColor("#4A4A4A", ansi16: 0),
            .focus: ThemeColor("#6A1B9A", ansi16: 4),
            .state: ThemeColor("#1E6B2F", ansi16: 0),
            .warning: ThemeColor("#A4262C", ansi16: 1),
            .highlight: ThemeColor("#FBF8F0", ansi16: 15),
        ])

    static let highContrastDark = Theme(
        name: .highContrastDark,
        background: ThemeColor("#000000", ansi16: 0),
        highlightBackground: ThemeColor("#FFFF00", ansi16: 11),
        foregrounds: [
            .text: ThemeColor("#FFFFFF", ansi16: 15),
            .heading: ThemeColor("#FFFF00", ansi16: 11),
            .secondary: ThemeColor("#E0E0E0", ansi16: 7),
            .focus: ThemeColor("#00FFFF", ansi16: 14),
            .state: ThemeColor("#00FF00", ansi16: 10),
            .warning: ThemeColor("#FF9090", ansi16: 11),
            .highlight: ThemeColor("#000000", ansi16: 0),
        ])

    static let highContrastLight = Theme(
        name: .highContrastLight,
        background: ThemeColor("#FFFFFF", ansi16: 15),
        highlightBackground: ThemeColor("#000000", ansi16: 0),
        foregrounds: [
            .text: ThemeColor("#000000", ansi16: 0),
            .heading: ThemeColor("#00007A", ansi16: 4),
            .secondary: ThemeColor("#1A1A1A", ansi16: 0),
            .focus: ThemeColor("#5A0070", ansi16: 4),
            .state: ThemeColor("#004D00", ansi16: 0),
            .warning: ThemeColor("#8B0000", ansi16: 0),
            .highlight: ThemeColor("#FFFFFF", ansi16: 15),
        ])
}

extension Theme {
    /// Story text away from the line focus: the text colour taken 55 % of the way to the
    /// background (in 16 colours, grey). Not a role of `pairs`: it is meant to recede, and the
    /// high-contrast themes never use it (they leave those lines blank instead).
    public var dimmedText: ThemeColor {
        let text = foreground(.text).rgb
        let back = background.rgb
        func mix(_ a: Int, _ b: Int) -> Int { Int((Double(a) * 0.45 + Double(b) * 0.55).rounded()) }
        let hex = String(format: "#%02X%02X%02X", mix(Int(text.red), Int(back.red)), mix(Int(text.green), Int(back.green)), mix(Int(text.blue), Int(back.blue)))
        let dark = Contrast.relativeLuminance(back) < 0.5
        return ThemeColor(hex, ansi16: dark ? 8 : 7)
    }
}
