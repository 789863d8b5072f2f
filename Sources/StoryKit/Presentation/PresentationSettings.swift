/// The twelve text sizes, named after Apple's Dynamic Type; `large` is the default.
public enum TextSizePreset: String, Sendable, Hashable, Codable, CaseIterable {
    case xSmall, small, medium, large, xLarge, xxLarge, xxxLarge
    case accessibility1, accessibility2, accessibility3, accessibility4, accessibility5

    public static let `default` = TextSizePreset.large

    /// Body text size in points, as in Dynamic Type.
    public var bodyPoints: Int {
        switch self {
        case .xSmall: 14
        case .small: 15
        case .medium: 16
        case .large: 17
        case .xLarge: 19
        case .xxLarge: 21
        case .xxxLarge: 23
        case .accessibility1: 28
        case .accessibility2: 33
        case .accessibility3: 40
        case .accessibility4: 47
        case .accessibility5: 53
        }
    }

    public var isAccessibilitySize: Bool { bodyPoints >= 28 }

    /// Parses a preset name, ignoring case and `-`/`_` (`xxl` style abbreviations are not accepted).
    public init?(name: String) {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = match
    }
}

/// The colour themes.
public enum ThemeName: String, Sendable, Hashable, Codable, CaseIterable {
    case `default`, dark, light
    case highContrastDark = "high-contrast-dark"
    case highContrastLight = "high-contrast-light"

    public var isHighContrast: Bool { self == .highContrastDark || self == .highContrastLight }
}

/// Reduced motion: `on`, `off`, or `auto` (on without a TTY, with `TERM=dumb`, or when `ACCESSIBLE` is set).
public enum MotionPreference: String, Sendable, Hashable, Codable, CaseIterable {
    case on, off, auto
}
