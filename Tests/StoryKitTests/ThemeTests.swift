import Foundation
import Testing

@testable import StoryKit

@Suite struct ThemeTests {
    @Test(arguments: ThemeName.allCases)
    func everyPairIn24BitColour(_ name: ThemeName) {
        let theme = Theme.named(name)
        #expect(theme.name == name)
        #expect(theme.requiredContrast == (name.isHighContrast ? 7 : 4.5))
        for pair in theme.pairs {
            let ratio = Contrast.ratio(pair.foreground.rgb, pair.background.rgb)
            #expect(ratio >= theme.requiredContrast, "\(name.rawValue) \(pair.role): \(pair.foreground.rgb) on \(pair.background.rgb) is \(ratio)")
        }
        #expect(theme.pairs.count == ThemeRole.allCases.count)
    }

    @Test(arguments: ThemeName.allCases)
    func everyPairIn16ColoursWithXtermsPalette(_ name: ThemeName) {
        let theme = Theme.named(name)
        for pair in theme.pairs {
            #expect((0..<16).contains(pair.foreground.ansi16) && (0..<16).contains(pair.background.ansi16))
            let ratio = Contrast.ratio(XtermPalette.standard16[pair.foreground.ansi16], XtermPalette.standard16[pair.background.ansi16])
            #expect(
                ratio >= theme.requiredContrast,
                "\(name.rawValue) \(pair.role): colour \(pair.foreground.ansi16) on \(pair.background.ansi16) is \(ratio) with xterm's palette")
        }
    }

    @Test(arguments: ThemeName.allCases)
    func everyPairIn256Colours(_ name: ThemeName) {
        let theme = Theme.named(name)
        for pair in theme.pairs {
            let ratio = Contrast.ratio(XtermPalette.color(pair.foreground.ansi256), XtermPalette.color(pair.background.ansi256))
            #expect(
                ratio >= theme.requiredContrast,
                "\(name.rawValue) \(pair.role): 256-colour \(pair.foreground.ansi256) on \(pair.background.ansi256) is \(ratio)")
        }
    }

    /// The highlight must stand out from the page as a shape too (WCAG non-text contrast, 3:1),
    /// in every colour depth.
    @Test(arguments: ThemeName.allCases)
    func highlightStandsOutFromThePage(_ name: ThemeName) {
        let theme = Theme.named(name)
        #expect(Contrast.ratio(theme.highlightBackground.rgb, theme.background.rgb) >= 3)
        #expect(Contrast.ratio(XtermPalette.standard16[theme.highlightBackground.ansi16], XtermPalette.standard16[theme.background.ansi16]) >= 3)
        #expect(Contrast.ratio(XtermPalette.color(theme.highlightBackground.ansi256), XtermPalette.color(theme.background.ansi256)) >= 3)
    }

    @Test func themesDiffer() {
        let backgrounds = Set(Theme.all.map(\.background.rgb))
        #expect(Theme.all.count == 5)
        #expect(backgrounds.count == 5)
        // Light themes are light and dark ones dark.
        #expect(Contrast.relativeLuminance(Theme.named(.light).background.rgb) > 0.8)
        #expect(Contrast.relativeLuminance(Theme.named(.highContrastLight).background.rgb) == 1)
        #expect(Contrast.relativeLuminance(Theme.named(.dark).background.rgb) < 0.05)
        #expect(Contrast.relativeLuminance(Theme.named(.highContrastDark).background.rgb) == 0)
    }

    @Test func lowestContrastIsReported() {
        for theme in Theme.all {
            let lowest = theme.lowestContrast
            let all = theme.pairs.map { Contrast.ratio($0.foreground.rgb, $0.background.rgb) }
            #expect(lowest.ratio == all.min())
            print("theme \(theme.name.rawValue): lowest 24-bit contrast \(String(format: "%.2f", lowest.ratio)):1 (\(lowest.role.rawValue))")
        }
    }
}
