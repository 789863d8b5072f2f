import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The kiosk's time-up, heard in Spanish, French and German: a golden caption transcript of the
/// whole flow (the opening, asking the time, both warnings, time up, a child's keys, a wrong PIN,
/// the grown-up's PIN, adding time), with the time as an input (the kiosk needs a terminal, so the
/// flow is driven through the Session, as the kiosk's shell drives it).
@Suite struct LanguageKioskTranscriptTests {
    static let folder = TestPaths.repository.appendingPathComponent("Tests/StoryKitTests/Snapshots/Transcripts")
    static let start: TimeInterval = 1000

    func transcript(_ language: String) -> String {
        var maya = ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])
        maya.settings.interfaceLanguage = language
        var session = Session(
            catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(profiles: [maya], pinIsSet: true),
            profile: "Maya", languages: LanguageFixtures.languages)
        session.startKiosk(KioskOptions(idleTimeout: nil, timeLimit: 600), now: Self.start)
        var lines: [String] = []
        var route = session.state.route
        func record(_ step: String, _ effects: [Effect]) {
            lines.append("> " + step)
            for case .speak(let utterance) in effects { lines.append(utterance.text) }
            if session.state.route != route {
                route = session.state.route
                lines.append("[\(session.screen.title)]")
            }
        }
        record("start", session.start() + session.kioskOpening())
        record("t", session.handle(.key(.character("t"))))
        record("5 minutes later", session.handle(.tick(Self.start + 300)))
        record("9 minutes later", session.handle(.tick(Self.start + 540)))
        record("10 minutes later", session.handle(.tick(Self.start + 600)))
        record("Enter", session.handle(.key(.enter)))
        record("Escape", session.handle(.key(.escape)))
        record("F12", session.handle(.key(.unknown("CSI 24~"))))
        record("a wrong PIN", session.handle(.pinChecked(false)))
        record("the PIN", session.handle(.pinChecked(true)))
        session.state.focusedID = "add-time"
        record("Add time", session.handle(.key(.enter)))
        record("t", session.handle(.key(.character("t"))))
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: ["es", "fr", "de"])
    func timeUpInTheChildsLanguage(_ language: String) {
        let text = transcript(language)
        Snapshot.assertMatches(text, named: "kiosk-time-up-\(language).txt", in: Self.folder)
        // Every step was answered, and none in English.
        #expect(text.split(separator: "\n").count > 24, "\(text)")
        for english in ["minutes left", "Time is up", "for a grown-up", "Your place", "Added", "Wrong PIN", "PIN is wrong", "left."] {
            #expect(!text.contains(english), "English left in \(language): \(english)")
        }
        // One minute left takes the singular where the verb agrees with it.
        #expect(text.contains(["es": "Queda 1 minuto.", "fr": "Il reste 1 minute.", "de": "Noch 1 Minute."][language]!))
        #expect(!text.contains("Quedan 1 minuto"))
        let catalog = LanguageFixtures.languages.catalog(language)
        #expect(text.contains(catalog.tr("Time is up. F12 is for a grown-up.")))
    }
}
