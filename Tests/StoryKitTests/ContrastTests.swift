import Foundation
import Testing

@testable import StoryKit

@Suite struct ContrastTests {
    /// The vectors of shared/design/TERMINAL.md: foreground, background, the ratio as printed there
    /// and its number of decimals.
    static let vectors: [(String, String, Double, Int)] = [
        ("#000000", "#FFFFFF", 21.00, 2),
        ("#777777", "#FFFFFF", 4.478, 3),
        ("#767676", "#FFFFFF", 4.542, 3),
        ("#595959", "#FFFFFF", 7.005, 3),
        ("#808080", "#FFFFFF", 3.949, 3),
        ("#0000FF", "#FFFFFF", 8.593, 3),
        ("#FF0000", "#FFFFFF", 3.998, 3),
        ("#008000", "#FFFFFF", 5.137, 3),
        ("#FFFF00", "#000000", 19.56, 2),
        ("#00FF00", "#000000", 15.30, 2),
    ]

    @Test(arguments: vectors.indices)
    func vector(_ index: Int) {
        let (foreground, background, expected, decimals) = Self.vectors[index]
        let ratio = Contrast.ratio(RGBColor(hex: foreground)!, RGBColor(hex: background)!)
        // Rounded only here, to the precision the vector is printed with.
        let scale = pow(10, Double(decimals))
        if foreground == "#0000FF" {
            // TERMINAL.md prints 8.593, but the formula gives exactly 1.05 / 0.1222 = 8.59247…
            // (pure blue's luminance is the coefficient 0.0722): within a thousandth, and exact.
            #expect(abs(ratio - expected) < 0.001)
            #expect(ratio == 1.05 / (0.0722 + 0.05))
        } else {
            #expect((ratio * scale).rounded() / scale == expected, "\(foreground) on \(background): \(ratio), expected \(expected)")
        }
        // The order of the two colours does not matter.
        #expect(ratio == Contrast.ratio(RGBColor(hex: background)!, RGBColor(hex: foreground)!))
    }

    @Test func noRoundingBeforeComparing() {
        // #777777 on white is 4.478: rounding to one decimal (4.5) would wrongly pass it.
        let grey = Contrast.ratio(RGBColor(hex: "#777777")!, RGBColor(hex: "#FFFFFF")!)
        #expect(grey < Contrast.minimumText)
        #expect(Contrast.ratio(RGBColor(hex: "#767676")!, RGBColor(hex: "#FFFFFF")!) >= Contrast.minimumText)
        #expect(Contrast.ratio(RGBColor(hex: "#595959")!, RGBColor(hex: "#FFFFFF")!) >= Contrast.enhancedText)
    }

    @Test func luminanceEnds() {
        #expect(Contrast.relativeLuminance(RGBColor(hex: "#000")!) == 0)
        #expect(abs(Contrast.relativeLuminance(RGBColor(hex: "#FFF")!) - 1) < 1e-12)
        // The linear segment below 0.04045 and the power curve above it.
        #expect(abs(Contrast.linear(0.04) - 0.04 / 12.92) < 1e-15)
        #expect(abs(Contrast.linear(0.5) - 0.21404114048223255) < 1e-12)
    }

    @Test func hexParsing() {
        #expect(RGBColor(hex: "#1E2140") == RGBColor(red: 0x1E, green: 0x21, blue: 0x40))
        #expect(RGBColor(hex: "abc") == RGBColor(red: 0xAA, green: 0xBB, blue: 0xCC))
        #expect(RGBColor(hex: "#12345") == nil)
        #expect(RGBColor(hex: "#GG0000") == nil)
        #expect(RGBColor(hex: "#0A0B0C")!.description == "#0A0B0C")
    }

    @Test func xtermPalette() {
        #expect(XtermPalette.color(4) == RGBColor(hex: "#0000EE"))
        #expect(XtermPalette.color(16) == RGBColor(hex: "#000000"))
        #expect(XtermPalette.color(231) == RGBColor(hex: "#FFFFFF"))
        #expect(XtermPalette.color(196) == RGBColor(hex: "#FF0000"))  // 16 + 36·5
        #expect(XtermPalette.color(232) == RGBColor(hex: "#080808"))
        #expect(XtermPalette.color(255) == RGBColor(hex: "#EEEEEE"))
        // TERMINAL.md: blue (4) on black is only 2.23:1.
        #expect(abs(Contrast.ratio(XtermPalette.color(4), XtermPalette.color(0)) - 2.23) < 0.005)
        #expect(XtermPalette.nearest256(RGBColor(hex: "#FF0101")!) == 196)
    }
}
