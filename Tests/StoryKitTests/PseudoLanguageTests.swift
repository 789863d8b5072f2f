import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A generated pseudo-language (every message accented, 40 % longer and bracketed, its
/// placeholders kept) run through the core flows: no caption may hold an English catalog string,
/// which would mean a string that does not go through the catalog.
@Suite struct PseudoLanguageTests {
    static func pseudo(_ text: String) -> String { PseudoLanguage.pseudo(text) }
    static var catalog: MessageCatalog { PseudoLanguage.catalog }
    static var englishFragments: [String] { PseudoLanguage.englishFragments }

    @Test func theCoreFlowsSayNoEnglishCatalogString() throws {
        var options = SessionOptions()
        options.interfaceLanguage = "qps"
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])])
        var session = Session(
            catalog: SessionFixtures.catalog, snapshot: snapshot, options: options,
            languages: InterfaceLanguages(catalogs: [Self.catalog]))
        var said: [String] = []
        // What a sighted child sees after each step: the screen drawn at 80×24 and 40×24, in the
        // renderer's own words too (scroll indicators, "✓ selected", the state words).
        var shown: [String] = []
        func run(_ effects: [Effect]) {
            for case .speak(let utterance) in effects { said.append(utterance.text) }
            for width in [80, 40] {
                let drawn = ScreenRenderer.render(session.screen, focus: session.state.focusedID, options: RenderOptions(), width: width, height: 24)
                for line in drawn.lines {
                    #expect(DisplayWidth.of(line) <= width, "wider than \(width): \(line)")
                    shown.append(line)
                }
            }
        }
        run(session.start())
        let script: [Command] = [
            .next, .previous, .activate, .nextHeading, .next, .next, .activate, .next, .previous, .activate,
            .pause, .whereAmI, .nextSentence, .resume, .pause, .stop, .back, .help, .back,
            .settings, .next, .next, .increase, .back, .whereAmI, .jump("q"), .quit,
        ]
        for command in script { run(session.handle(.command(command))) }
        run(session.handle(.narration(.finished)))
        #expect(said.count > 20)
        // Names are data, not interface: the stories' titles and the profile's name are taken out first.
        let names = SessionFixtures.catalog.entries.flatMap { [$0.title] + ($0.author.map { [$0] } ?? []) + $0.tags } + ["Maya"]
        var leaks: [String] = []
        for caption in said {
            var rest = caption
            for name in names.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: "") }
            for fragment in Self.englishFragments where rest.range(of: fragment) != nil {
                leaks.append("\(fragment) ← \(caption)")
            }
            #expect(caption.contains("⟦"), "a caption said outside the catalog: \(caption)")
        }
        #expect(leaks.isEmpty, "English left in the pseudo-language: \(leaks)")
        // Screen lines are wrapped, so a phrase may be cut at a line's end: each line is checked
        // for the phrases it holds whole, after the names are taken out.
        // The story's own text is data too: a line that is part of a story's text is not checked.
        let storyText = SessionFixtures.catalog.entries.compactMap { SessionFixtures.catalog.story(id: $0.id)?.text }
            .joined(separator: "\n").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var screenLeaks: Set<String> = []
        for line in shown {
            let words = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if !words.isEmpty, storyText.contains(words) { continue }
            var rest = line
            for name in names.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: "") }
            for fragment in Self.englishFragments where rest.range(of: fragment) != nil { screenLeaks.insert("\(fragment) ← \(line)") }
        }
        #expect(shown.contains { $0.contains("⟦↓") }, "no screen of the flow scrolled: the indicator went untested")
        #expect(screenLeaks.isEmpty, "English on screen in the pseudo-language: \(screenLeaks.sorted())")
    }

    @Test func thePseudoLanguageIsLongerAccentedAndBracketed() {
        let story = Self.catalog.tr("Story: {title}", ["title": "Pip"])
        #expect(story.hasPrefix("⟦Śţöŕý: Pip") && story.hasSuffix("⟧"))
        #expect(Self.pseudo("Press Enter to open.").count >= Int(Double("Press Enter to open.".count) * 1.4))
    }
}
