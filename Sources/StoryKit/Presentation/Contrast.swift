import Foundation

/// A colour in sRGB, 8 bits a channel.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#RRGGBB`, `RRGGBB` or `#RGB`; nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        if digits.count == 3 { digits = Substring(digits.map { "\($0)\($0)" }.joined()) }
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8((value >> 16) & 0xFF), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `#RRGGBB`.
    public var description: String { String(format: "#%02X%02X%02X", red, green, blue) }
}

/// WCAG 2.x contrast: relative luminance and contrast ratio, exactly as the standard defines them.
///
/// Nothing is rounded: compare `ratio(_:_:)` with the thresholds directly (4.478 fails 4.5).
public enum Contrast {
    /// AA for normal text.
    public static let minimumText = 4.5
    /// AAA for normal text: what the high-contrast themes promise.
    public static let enhancedText = 7.0

    /// One sRGB channel (0…1) made linear.
    public static func linear(_ channel: Double) -> Double {
        channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
    }

    /// Relative luminance, 0 (black) … 1 (white).
    public static func relativeLuminance(_ color: RGBColor) -> Double {
        let red = linear(Double(color.red) / 255)
        let green = linear(Double(color.green) / 255)
        let blue = linear(Double(color.blue) / 255)
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue
    }

    /// The contrast ratio of two colours, 1…21, whichever is lighter.
    public static func ratio(_ first: RGBColor, _ second: RGBColor) -> Double {
        let a = relativeLuminance(first)
        let b = relativeLuminance(second)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}

/// Terminal palettes: xterm's default 16 colours and the fixed 256-colour cube and grey ramp.
public enum XtermPalette {
    /// xterm's default colours 0–15.
    public static let standard16: [RGBColor] = [
        "#000000", "#CD0000", "#00CD00", "#CDCD00", "#0000EE", "#CD00CD", "#00CDCD", "#E5E5E5",
        "#7F7F7F", "#FF0000", "#00FF00", "#FFFF00", "#5C5CFF", "#FF00FF", "#00FFFF", "#FFFFFF",
    ].map { RGBColor(hex: $0)! }

    private static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// The colour of a 256-colour index (0–15 as xterm's defaults).
    public static func color(_ index: Int) -> RGBColor {
        switch index {
        case 0..<16:
            return standard16[index]
        case 16..<232:
            let n = index - 16
            return RGBColor(red: cubeLevels[n / 36], green: cubeLevels[(n / 6) % 6], blue: cubeLevels[n % 6])
        default:
            let grey = UInt8(8 + 10 * (min(index, 255) - 232))
            return RGBColor(red: grey, green: grey, blue: grey)
        }
    }

    /// The nearest colour of 16–255 (these do not vary between terminals as 0–15 do).
    public static func nearest256(_ color: RGBColor) -> Int {
        var best = 16
        var bestDistance = Int.max
        for index in 16..<256 {
            let candidate = self.color(index)
            let dr = Int(candidate.red) - Int(color.red)
            let dg = Int(candidate.green) - Int(color.green)
            let db = Int(candidate.blue) - Int(color.blue)
            let distance = dr * dr + dg * dg + db * db
            if distance < bestDistance {
                bestDistance = distance
                best = index
            }
        }
        return best
    }
}
