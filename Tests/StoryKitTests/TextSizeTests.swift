import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct TextSizeTests {
    @Test func twelvePresetsInOrder() {
        #expect(TextSizePreset.allCases.count == 12)
        let points = TextSizePreset.allCases.map(\.bodyPoints)
        #expect(points == [14, 15, 16, 17, 19, 21, 23, 28, 33, 40, 47, 53])
    }

    @Test(arguments: TextSizePreset.allCases)
    func honestLayout(_ preset: TextSizePreset) {
        let layout = TextSizeLayout(preset)
        let large = TextSizeLayout(.large)
        switch preset {
        case .xSmall, .small, .medium:
            // Below large: a narrower column and more space.
            #expect(layout.measure < large.measure)
            #expect(layout.lineSpacing + layout.paragraphSpacing > large.lineSpacing + large.paragraphSpacing)
            #expect(layout.scale == 1)
        case .large:
            #expect(layout.scale == 1 && layout.lineSpacing == 0 && layout.paragraphSpacing == 1)
        case .xLarge, .xxLarge, .xxxLarge:
            #expect(layout.lineSpacing + layout.paragraphSpacing > large.lineSpacing + large.paragraphSpacing)
            #expect(layout.scale == 1)
        case .accessibility1, .accessibility2, .accessibility3:
            #expect(layout.scale == 2)
        case .accessibility4, .accessibility5:
            #expect(layout.scale == 3)
        }
        #expect((layout.scale > 1) == preset.isAccessibilitySize)
        // The column always fits the terminal, margin included.
        for width in [12, 40, 80, 200] {
            #expect(layout.columnWidth(terminalWidth: width) <= max(8, width - 2))
        }
    }

    @Test func smallerPresetsAreNarrower() {
        #expect(TextSizeLayout(.xSmall).measure < TextSizeLayout(.small).measure)
        #expect(TextSizeLayout(.small).measure < TextSizeLayout(.medium).measure)
        #expect(TextSizeLayout(.medium).measure < TextSizeLayout(.large).measure)
        // From xLarge up, spacing only grows.
        let spacing = [TextSizePreset.large, .xLarge, .xxLarge, .xxxLarge].map { TextSizeLayout($0).lineSpacing + TextSizeLayout($0).paragraphSpacing }
        #expect(spacing == spacing.sorted() && spacing.first! < spacing.last!)
    }

    @Test func saysWhatIsReallyShown() {
        #expect(TextSizeLayout(.large).description(scaling: .none) == "large")
        #expect(TextSizeLayout(.accessibility2).description(scaling: .none) == "accessibility2, shown as block letters")
        #expect(TextSizeLayout(.accessibility2).description(scaling: .decDoubleSize) == "accessibility2, shown at 2× (double-size lines)")
        #expect(TextSizeLayout(.accessibility2).description(scaling: .kittyTextSizing) == "accessibility2, shown at 2×")
        #expect(TextSizeLayout(.accessibility5).description(scaling: .kittyTextSizing) == "accessibility5, shown at 3×")
        // DEC lines only double: 3× falls back to block letters.
        #expect(TextSizeLayout(.accessibility4).description(scaling: .decDoubleSize) == "accessibility4, shown as block letters")
        #expect(TextSizeLayout(.xSmall).description(scaling: .none).hasPrefix("xSmall, shown as a narrower column"))
        #expect(TextSizeLayout(.xxLarge).description(scaling: .none) == "xxLarge, shown with more space")
    }

    /// Settings says it in the child's language, the preset named as the language names it.
    @Test func saysWhatIsShownInTheChildsLanguage() {
        let languages = LanguageFixtures.languages
        #expect(
            TextSizeLayout(.accessibility2).description(scaling: .decDoubleSize, messages: languages.catalog("es"))
                == "accesibilidad 2, al doble de tamaño (líneas dobles)")
        #expect(
            TextSizeLayout(.accessibility5).description(scaling: .kittyTextSizing, messages: languages.catalog("fr"))
                == "accessibilité 5, 3 fois plus grand")
        #expect(
            TextSizeLayout(.accessibility4).description(scaling: .none, messages: languages.catalog("de"))
                == "Bedienungshilfe 4, in großen Blockbuchstaben")
        #expect(TextSizeLayout(.large).description(scaling: .none, messages: languages.catalog("de")) == "groß")
    }

    @Test func methodChoice() {
        #expect(TextSizeLayout(.large).method(scaling: [.decDoubleSize, .kittyTextSizing]) == .normal)
        #expect(TextSizeLayout(.accessibility1).method(scaling: [.decDoubleSize, .kittyTextSizing]) == .kittyTextSizing)
        #expect(TextSizeLayout(.accessibility3).method(scaling: .decDoubleSize) == .decDoubleSize)
        #expect(TextSizeLayout(.accessibility3).method(scaling: .none) == .blockLetters)
        #expect(TextSizeLayout(.accessibility5).method(scaling: .decDoubleSize) == .blockLetters)
    }

    @Test func presetNames() {
        #expect(TextSizePreset(name: "Accessibility-2") == .accessibility2)
        #expect(TextSizePreset(name: "xxxlarge") == .xxxLarge)
        #expect(TextSizePreset(name: "huge") == nil)
    }
}
