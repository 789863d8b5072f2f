import StoryKitTestSupport
import Testing

@testable import StoryKit

/// An item's actions are said with it and can be done: `a` (or Shift-F10, or `actions`) lists
/// them as a screen of their own; Enter there, or `action NAME` anywhere, does one.
@Suite struct ActionsTests {
    func libraryOnAStory() throws -> Session {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])]), profile: "Maya")
        _ = session.start()
        let story = try #require(FocusEngine(screen: session.screen).order.first { $0.id.hasSuffix("/pip-and-the-puddle") })
        session.state.focusedID = story.id
        return session
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    @Test(arguments: [Key.character("a"), .unknown("CSI 21;2~")])
    func aKeyListsTheActionsWithTheFirstFocused(key: Key) throws {
        var session = try libraryOnAStory()
        let story = try #require(session.state.focusedID)
        let said = spoken(session.handle(.key(key)))
        #expect(session.state.route == .actions(story))
        #expect(said.first == "Actions for Pip and the Puddle: Read, Save to favourites, 2 items.")
        #expect(said.last == "Read, button. Press Enter to do it.")
        #expect(session.focusedElement?.id == "action-read")
        // Down, Enter: saved, and back on the story in the library.
        _ = session.handle(.key(.down))
        let saved = spoken(session.handle(.key(.enter)))
        #expect(saved.first == "Pip and the Puddle saved to favourites.")
        #expect(session.state.route == .library)
        #expect(session.state.reading("pip-and-the-puddle").isFavourite)
    }

    @Test func escapeAndCancelGoBackWithoutDoingAnything() throws {
        var session = try libraryOnAStory()
        _ = session.handle(.command(.actions))
        _ = session.handle(.key(.escape))
        #expect(session.state.route == .library)
        _ = session.handle(.command(.actions))
        session.state.focusedID = "cancel"
        _ = session.handle(.key(.enter))
        #expect(session.state.route == .library)
        #expect(!session.state.reading("pip-and-the-puddle").isFavourite)
    }

    @Test func actionByNameReadsTheStory() throws {
        var session = try libraryOnAStory()
        let effects = session.handle(.command(.action("read")))
        #expect(session.state.route == .reader)
        #expect(spoken(effects).first == "Reading Pip and the Puddle.")
        var other = try libraryOnAStory()
        #expect(spoken(other.handle(.command(.action("dance")))) == ["Say one of: Read, Save to favourites."])
    }

    @Test func anItemWithoutActionsSaysSoAndALetterStillJumps() throws {
        var session = try libraryOnAStory()
        session.state.focusedID = "help"
        #expect(spoken(session.handle(.command(.actions))).first?.hasSuffix("It has no other actions: press Enter to choose it.") == true)
        #expect(KeyHelp.command(for: .character("a"), focused: session.focusedElement, route: .library) == nil, "a jumps to items starting with A there")
    }

    /// The audit: every item with actions names the key in what is said of it.
    @Test func everyItemWithActionsNamesTheKey() throws {
        let session = try libraryOnAStory()
        let withActions = FocusEngine(screen: session.screen).order.filter { !$0.customActions.isEmpty }
        #expect(!withActions.isEmpty)
        for element in withActions {
            #expect(SpokenForm.describe(element, hints: true).contains("Press A for actions: "), "\(element.id)")
        }
        #expect(
            KeyHelp.describe(.character("a"), route: .library, focused: withActions[0])
                == "letter A: lists what you can do with the focused item, such as Read or Save to favourites.")
    }
}
