import StoryKitTestSupport
import Testing

@testable import StoryKit

/// `--text-size`, `--theme` and `--reduce-motion` on the command line hold for the whole run,
/// whichever way a profile is chosen, and never reach the database.
@Suite struct PresentationOverrideTests {
    static func snapshot() -> SessionSnapshot {
        var maya = ChildProfile(id: 1, name: "Maya", age: 5)
        maya.textSize = .large
        maya.theme = .light
        return SessionSnapshot(profiles: [maya], pinIsSet: false)
    }

    @Test func aFlagHoldsWhenTheProfileIsChosenOnTheFirstScreen() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: Self.snapshot())
        session.overridePresentation(textSize: .accessibility3, theme: .highContrastDark, motion: nil)
        _ = session.start()
        // Before: choosing Maya replaced the flag with her stored size (the reader drew at normal size).
        _ = session.handle(.command(.activate))
        #expect(session.state.profileName == "Maya")
        #expect(session.state.profile.textSize == .accessibility3)
        #expect(session.state.profile.theme == .highContrastDark)
        // What is stored stays hers.
        #expect(session.state.storedProfile.textSize == .large)
        #expect(session.state.storedProfile.theme == .light)
    }

    @Test func aFlagHoldsWhenTheProfileIsNamedAndIsNeverSaved() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: Self.snapshot(), profile: "Maya")
        session.overridePresentation(textSize: .accessibility5, theme: nil, motion: nil)
        _ = session.start()
        #expect(session.state.profile.textSize == .accessibility5)
        #expect(session.state.profile.theme == .light)
        // A change to the profile keeps the run-only size out of what would be saved.
        var changed = session.state.profile
        changed.speech.rate = 150
        session.state.profile = changed
        #expect(session.state.storedProfile.speech.rate == 150)
        #expect(session.state.storedProfile.textSize == .large)
        #expect(session.state.profile.textSize == .accessibility5)
    }

    @Test func theSettingsScreenSaysWhatHoldsForThisRun() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: Self.snapshot(), profile: "Maya")
        session.overridePresentation(textSize: .accessibility3, theme: nil, motion: nil)
        _ = session.start()
        _ = session.handle(.command(.settings))
        let textSize = session.screen.elements.first { $0.id == "setting-text-size" }
        #expect(textSize?.value?.hasSuffix("(for this run)") == true, "\(String(describing: textSize?.value))")
        let theme = session.screen.elements.first { $0.id == "setting-theme" }
        #expect(theme?.value?.contains("for this run") == false)
    }
}
