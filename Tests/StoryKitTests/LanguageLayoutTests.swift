import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// French and German run about 30 % longer than English (the pseudo-language 40 %): every
/// screen still fits at 80×24 and 40×24, at every text size, in every language.
@Suite struct LanguageLayoutTests {
    static let languages = InterfaceLanguages(catalogs: [
        LanguageFixtures.languages.catalog("es"), LanguageFixtures.languages.catalog("fr"),
        LanguageFixtures.languages.catalog("de"), PseudoLanguageTests.catalog,
    ])

    @Test(arguments: ["es", "fr", "de", "qps"], [80, 40])
    func everyScreenFitsAtEveryTextSize(_ language: String, _ width: Int) throws {
        let catalog = SessionFixtures.catalog
        let story = try #require(catalog.story(id: "the-lighthouse-cat"))
        for kind in SessionPreview.Kind.allCases {
            let built = SessionPreview.screen(
                kind, catalog: catalog, story: story, columns: width, rows: 24, language: language,
                languages: Self.languages)
            // The screen really is in that language (its title is not English).
            let english = SessionPreview.screen(kind, catalog: catalog, story: story, columns: width, rows: 24)
            if kind != .story { #expect(built.screen.title != english.screen.title, "\(language) \(kind): \(built.screen.title)") }
            for preset in TextSizePreset.allCases {
                let options = RenderOptions(textSize: preset, theme: .default, style: .plain, scaling: .none, aids: .off, language: story.language)
                let rendered = ScreenRenderer.render(built.screen, focus: built.focus, options: options, width: width, height: 24)
                #expect(rendered.lines.count <= 24, "\(language) \(kind) \(preset) \(width): \(rendered.lines.count) lines")
                for line in rendered.lines where DisplayWidth.of(line) > width {
                    Issue.record("\(language) \(kind) \(preset) \(width)×24: too wide (\(DisplayWidth.of(line))): \(line)")
                }
            }
        }
    }
}
