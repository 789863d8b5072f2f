import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// No English reaches a Spanish, French or German child (issue 30, item 7): no spoken string is
/// built outside the catalog, and the corners the core flows miss (an item's actions, a profile
/// not found, a mistyped command, learn mode on a typed command, the profile form's pickers) say
/// nothing in English in the pseudo-language or in the shipped catalogs.
@Suite struct SpokenCatalogTests {
    @Test func noSpokenStringIsBuiltOutsideTheCatalog() throws {
        // A literal handed straight to speech, a caption, or a command's error is English whatever
        // the child's language: every one must go through `tr`, `trn` or `N_`.
        let pattern = try NSRegularExpression(pattern: #"\b(speak|Utterance|CommandError|caption)\(\s*(description:\s*)?""#)
        let sources = TestPaths.repository.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 50)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.components(separatedBy: "\n").enumerated()
            where pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "said outside the catalog: \(found)")
    }

    @Test func theProductNameIsSaidByTheInterfacesVoice() throws {
        var options = SessionOptions()
        options.interfaceLanguage = "es"
        // The bundled stories name Magical Stories as their author, in English.
        #expect(SessionFixtures.catalog.entries.contains { $0.author == "Magical Stories" && $0.language == "en" })
        var session = Session(
            catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(profiles: []), options: options,
            languages: LanguageFixtures.languages)
        let first = try #require(session.start().compactMap { if case .speak(let utterance) = $0 { utterance } else { nil } }.first)
        #expect(first.text == "Magical Stories.")
        #expect(first.runs == [SpeechRun(text: "Magical Stories.", language: "es")])
    }

    @Test func aQuotedStoryWordIsSaidByTheStorysVoice() throws {
        var options = SessionOptions()
        options.interfaceLanguage = "es"
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)])
        var session = Session(
            catalog: SessionFixtures.catalog, snapshot: snapshot, options: options, profile: "Maya",
            languages: LanguageFixtures.languages)
        let english = try #require(SessionFixtures.catalog.entries.first { $0.language == "en" })
        _ = session.handle(.command(.read(english.title)))
        _ = session.handle(.narration(.sentenceStarted(0)))
        _ = session.handle(.narration(.word(0)))
        let word = try #require(session.state.reader?.word)
        let paused = try #require(session.handle(.command(.pause)).compactMap { if case .speak(let utterance) = $0 { utterance } else { nil } }.last)
        #expect(paused.text.hasPrefix("En pausa en «\(word)»"), "\(paused.text)")
        // The word (with its quotes) in English, the rest in Spanish.
        #expect(paused.runs.first == SpeechRun(text: "En pausa en ", language: "es"), "\(paused.runs)")
        #expect(paused.runs.dropFirst().first == SpeechRun(text: "«\(word)»", language: "en"), "\(paused.runs)")
    }

    /// The corners, as captions: what a session says on each step.
    func corners(language: String, languages: InterfaceLanguages) -> [String] {
        var options = SessionOptions()
        options.interfaceLanguage = language
        options.voices = ["en", "es", "fr"]
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])])
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, options: options, languages: languages)
        var said: [String] = []
        func run(_ effects: [Effect]) { for case .speak(let utterance) in effects { said.append(utterance.text) } }
        run(session.start())
        // The guest has no profile to edit; a profile that does not exist.
        run(session.handle(.command(.profile("Nobody"))))
        run(session.asParent(.editProfile))
        // A button without actions, then a story's actions as a list.
        session.state.focusedID = "new-profile"
        run(session.handle(.command(.actions)))
        run(session.handle(.command(.profile("Maya"))))
        if let story = FocusEngine(screen: session.screen).order.first(where: { $0.id.contains("/") }) {
            session.state.focusedID = story.id
            run(session.handle(.command(.actions)))
            run(session.handle(.command(.back)))
        }
        // Mistyped commands, and learn mode told a typed command.
        for line in ["nxt", "zzzzzz", "set theme", "wait two", "jump"] {
            do { _ = try CommandParser.parse(line) } catch { run(session.handle(.invalid(error.localized(session.state.messages)))) }
        }
        run(session.handle(.command(.learn)))
        run(session.handle(.command(.read("x"))))
        run(session.handle(.key(.escape)))
        // A story read before a profile was chosen, in a fresh session.
        var guest = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, options: options, languages: languages)
        _ = guest.start()
        let title = SessionFixtures.catalog.entries[0].title
        for case .speak(let utterance) in guest.handle(.command(.read(title))) { said.append(utterance.text) }
        // The form: typed, stepped, a voice, a field's problem on leaving, Save's key, then quit asks.
        run(session.handle(.command(.settings)))
        session.state.focusedID = "edit-profile"
        run(session.handle(.command(.activate)))
        for key: Key in [.tab, .right, .right, .tab, .right, .left, .tab] { run(session.handle(.key(key))) }
        session.state.focusedID = "field-age"
        run(session.handle(.command(.type("40"))))
        run(session.handle(.key(.tab)))
        run(session.handle(.key(.control("s"))))
        run(session.handle(.command(.quit)))
        return said
    }

    /// The texts a caption may hold that are data, not interface: names, titles, voice codes.
    static let names: [String] = SessionFixtures.catalog.entries.flatMap { [$0.title] + ($0.author.map { [$0] } ?? []) } + ["Maya", "Nobody"]

    @Test func theCornersSayNothingOutsideThePseudoLanguage() {
        let said = corners(language: "qps", languages: InterfaceLanguages(catalogs: [PseudoLanguage.catalog]))
        #expect(said.count > 20)
        var leaks: [String] = []
        for caption in said {
            var rest = caption
            for name in Self.names.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: "") }
            for fragment in PseudoLanguage.englishFragments where rest.range(of: fragment) != nil { leaks.append("\(fragment) ← \(caption)") }
            #expect(caption.contains("⟦"), "a caption said outside the catalog: \(caption)")
        }
        #expect(leaks.isEmpty, "English left: \(leaks)")
    }

    @Test(arguments: ["es", "fr", "de"]) func theCornersSayNoEnglishInTheShippedCatalogs(_ language: String) throws {
        let file = try POFile(parsing: String(contentsOf: LanguageFixtures.folder.appendingPathComponent(language + ".po"), encoding: .utf8))
        let translated = file.entries.flatMap(\.translations).joined(separator: "\n")
        let said = corners(language: language, languages: LanguageFixtures.languages)
        #expect(said.count > 20)
        // An English phrase of the catalog that no translation holds: said, it is English.
        let english = PseudoLanguage.englishFragments.filter { $0.count >= 12 && !translated.contains($0) }
        var leaks: [String] = []
        for caption in said {
            var rest = caption
            for name in Self.names.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: "") }
            for fragment in english where rest.range(of: fragment) != nil { leaks.append("\(fragment) ← \(caption)") }
        }
        #expect(leaks.isEmpty, "English in \(language): \(leaks)")
    }
}
