import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

/// A generated pseudo-language (every message accented, 40 % longer and bracketed, its
/// placeholders kept) run through the core flows: no caption may hold an English catalog string,
/// which would mean a string that does not go through the catalog.
@Suite struct PseudoLanguageTests {
    /// "Story: {title}" → "⟦Śţöŕý: {title}~~~~⟧".
    static func pseudo(_ text: String) -> String {
        let accents: [Character: Character] = [
            "a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü", "c": "ç", "n": "ñ", "s": "ś", "t": "ţ", "y": "ý", "r": "ŕ",
            "A": "Å", "E": "É", "I": "Î", "O": "Ø", "U": "Û", "C": "Ç", "N": "Ñ", "S": "Ś", "T": "Ţ", "Y": "Ý", "R": "Ŕ",
        ]
        var out = ""
        var inPlaceholder = false
        for character in text {
            if character == "{" { inPlaceholder = true }
            out.append(inPlaceholder ? character : accents[character] ?? character)
            if character == "}" { inPlaceholder = false }
        }
        let padding = String(repeating: "~", count: max(1, text.count * 2 / 5))
        return "⟦" + out + padding + "⟧"
    }

    static let catalog: MessageCatalog = {
        var entries: [POFile.Entry] = []
        var seen: Set<String> = []
        for message in CatalogTests.messages where seen.insert(message.id).inserted {
            let translations = message.plural.map { [pseudo(message.id), pseudo($0)] } ?? [pseudo(message.id)]
            entries.append(POFile.Entry(id: message.id, pluralID: message.plural, translations: translations))
        }
        let file = POFile(entries: entries, header: ["Language": "qps", "Plural-Forms": "nplurals=2; plural=(n != 1);"])
        // Written and read back: the generated file is itself a valid catalog.
        return try! MessageCatalog(POFile(parsing: file.written()))
    }()

    /// English messages that would show a string missed by the catalog: whole messages without
    /// placeholders (words of two or more letters), and the fixed parts of templates.
    static let englishFragments: [String] = {
        var fragments: Set<String> = []
        for message in CatalogTests.messages {
            for text in [message.id] + (message.plural.map { [$0] } ?? []) {
                for part in text.components(separatedBy: CharacterSet(charactersIn: "{}")).enumerated() where part.offset % 2 == 0 {
                    let trimmed = part.element.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
                    // Long enough to be a phrase of the interface, not a letter or a name.
                    if trimmed.count >= 6, trimmed.contains(" ") || trimmed.first?.isLowercase == true { fragments.insert(trimmed) }
                }
            }
        }
        return fragments.sorted()
    }()

    @Test func theCoreFlowsSayNoEnglishCatalogString() throws {
        var options = SessionOptions()
        options.interfaceLanguage = "qps"
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])])
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, options: options,
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
        let script: [Command] = [.next, .previous, .activate, .nextHeading, .next, .next, .activate, .next, .previous, .activate,
                                 .pause, .whereAmI, .nextSentence, .resume, .pause, .stop, .back, .help, .back,
                                 .settings, .next, .next, .increase, .back, .whereAmI, .jump("q"), .quit]
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
