import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct AccessibilityAuditTests {
    @Test func flagsUnlabelledAndTraitlessElements() {
        let screen = Screen(
            kind: .library, title: "Library",
            elements: [
                AccessibilityElement(id: "ok", label: "Fine", traits: .button),
                AccessibilityElement(id: "blank", label: " ", traits: .button),
                AccessibilityElement(id: "bare", label: "Bare", traits: []),
                AccessibilityElement(id: "deco", label: "", traits: [], isHidden: true),
            ])
        #expect(AccessibilityAudit.problems(of: screen) == ["library: blank: no label", "library: bare: no trait"])
        #expect(AccessibilityAudit.entries(of: screen).count == 4)
    }

    /// Every element of every screen the session can show has a label and a trait.
    @Test func everyScreenOfTheSessionIsClean() throws {
        var snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals", "space"])])
        snapshot.apply(.setFavourite(profileID: 1, story: "pip-and-the-puddle", true))
        snapshot.apply(.savePosition(profileID: 1, story: "the-lighthouse-cat", sentence: 8))
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot)
        var screens: [Screen] = [session.screen]
        let scripts: [[Command]] = [
            [.profile("Maya")],
            [.read("lighthouse")],
            [.back],
            [.back, .settings],
            [.back, .help],
            [.home, .activate, .jump("n"), .activate],
            [.home, .profile("Maya"), .read("lighthouse"), .stop],
        ]
        for script in scripts {
            for command in script { _ = session.handle(.command(command)) }
            screens.append(session.screen)
        }
        var locked = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(pinIsSet: true))
        _ = locked.handle(.command(.settings))
        screens.append(locked.screen)
        var guest = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot())
        _ = guest.start()
        _ = guest.handle(.command(.activate))  // New profile
        #expect(guest.state.route == .profileForm)
        screens.append(guest.screen)
        _ = guest.handle(.command(.set(name: "age", value: "40")))
        guest.state.focusedID = "save"
        _ = guest.handle(.command(.activate))
        #expect(guest.state.warning != nil)
        screens.append(guest.screen)
        _ = guest.handle(.command(.back))  // unsaved changes: asks first
        #expect(guest.state.form?.isConfirmingCancel == true)
        screens.append(guest.screen)
        _ = session.handle(.command(.home))
        _ = session.handle(.command(.settings))
        screens.append(session.screen)
        session.state.focusedID = "edit-profile"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        screens.append(session.screen)
        let kinds = Set(screens.map(\.kind))
        #expect(kinds.isSuperset(of: [.profiles, .library, .story, .reader, .settings, .help, .pinPrompt, .profileForm]))
        for screen in screens {
            #expect(AccessibilityAudit.problems(of: screen) == [], "\(screen.title)")
            #expect(AccessibilityAudit.entries(of: screen).allSatisfy { !$0.spoken.isEmpty })
        }
    }
}
