import StoryKitTestSupport
import Testing

@testable import StoryKit

/// `storyreader profile add` on a terminal (issue 43): the session is the REPL's profile form,
/// and every way out of it ends the program, saying what happened once.
@Suite struct FormAloneTests {
    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func formAlone(pin: Bool = false) -> (Session, [Effect]) {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(pinIsSet: pin), options: SessionOptions())
        let effects = session.startProfileFormAlone()
        return (session, effects)
    }

    @Test func itOpensOnTheFormAndSavingEndsIt() {
        var (session, opening) = formAlone()
        #expect(session.state.route == .profileForm)
        #expect(spoken(opening).first?.hasPrefix("New profile. Name, empty, text field.") == true, "\(spoken(opening))")
        for key in "Lia".map(Key.character) + [.enter] + "7".map(Key.character) + [.enter] { _ = session.handle(.key(key)) }
        let saving = session.handle(.key(.control("s")))
        let profile = try? #require(saving.compactMap { if case .save(.saveProfile(let profile)) = $0 { profile } else { nil } }.first)
        #expect(!saving.contains(.exit), "not before the store kept it")
        var stored = profile ?? ChildProfile(name: "Lia", age: 7)
        stored.id = 9
        let saved = session.handle(.stored(.profileSaved(stored)))
        #expect(spoken(saved) == ["Profile Lia saved."])
        #expect(saved.contains(.exit) && session.state.hasQuit)
    }

    @Test func cancellingAnUntouchedFormEndsIt() {
        var (session, _) = formAlone()
        let left = session.handle(.key(.escape))
        #expect(spoken(left) == ["Cancelled: no profile was added."])
        #expect(left.contains(.exit))
    }

    @Test func escapeAtThePINPromptEndsItWithoutSayingTheScreenBelow() {
        var (session, opening) = formAlone(pin: true)
        #expect(session.state.route == .pinPrompt)
        #expect(spoken(opening).first?.hasPrefix("Parental PIN.") == true)
        let left = session.handle(.key(.escape))
        #expect(spoken(left) == ["Cancelled: no profile was added."])
        #expect(left.contains(.exit) && session.state.hasQuit)
    }

    /// A form with changes asks first, as in the REPL; discarding then ends.
    @Test func discardingChangesEndsIt() {
        var (session, _) = formAlone()
        _ = session.handle(.key(.character("L")))
        let asked = session.handle(.key(.escape))
        #expect(!asked.contains(.exit))
        let discarded = session.handle(.key(.enter))
        #expect(spoken(discarded) == ["Changes discarded.", "Cancelled: no profile was added."], "\(spoken(discarded))")
        #expect(discarded.contains(.exit))
    }
}
