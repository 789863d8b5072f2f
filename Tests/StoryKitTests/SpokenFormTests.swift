import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct SpokenFormTests {
    let card = AccessibilityElement(
        id: "cat", label: "Story: The Lighthouse Cat", value: "read 3 times",
        hint: "Press Enter to read.", traits: .button)

    @Test func labelValueTraitThenHint() {
        #expect(SpokenForm.describe(card) == "Story: The Lighthouse Cat, read 3 times, button. Press Enter to read.")
    }

    @Test func hintsOff() {
        #expect(SpokenForm.describe(card, hints: false) == "Story: The Lighthouse Cat, read 3 times, button.")
    }

    @Test func combinedChildrenAreSpokenInOne() {
        var combined = card
        combined.combinesChildren = true
        combined.children = [AccessibilityElement(id: "ages", label: "ages 4 to 7"), AccessibilityElement(id: "deco", label: "★", isHidden: true)]
        #expect(SpokenForm.describe(combined, hints: false) == "Story: The Lighthouse Cat, read 3 times, ages 4 to 7, button.")
    }

    @Test func headingAndCustomActions() {
        let heading = AccessibilityElement(id: "s", label: "Animals", value: "contains 4 stories", traits: .header)
        #expect(SpokenForm.describe(heading) == "Animals, contains 4 stories, heading.")
        let withActions = AccessibilityElement(
            id: "x", label: "Story: Fox", traits: .button,
            customActions: [CustomAction(id: "read", name: "Read"), CustomAction(id: "save", name: "Save")])
        #expect(SpokenForm.describe(withActions) == "Story: Fox, button. Press A for actions: Read, Save.")
    }

    @Test func libraryCardFromTheSession() throws {
        var snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])])
        for _ in 0..<3 { snapshot.apply(.recordFinished(profileID: 1, story: "the-lighthouse-cat")) }
        let session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        let card = try #require(FocusEngine(screen: session.screen).order.first { $0.id == "interest-animals/the-lighthouse-cat" })
        #expect(
            SpokenForm.describe(card)
                == "Story: The Lighthouse Cat, read 3 times, ages 4 to 7, button. Press Enter to open. Press A for actions: Read, Save to favourites.")
    }
}
