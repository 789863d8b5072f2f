import Foundation
import Testing

@testable import StoryKit

@Suite struct FocusEngineTests {
    func element(
        _ id: String, _ traits: AccessibilityTraits = .button, priority: Double = 0,
        children: [AccessibilityElement] = [], combines: Bool = false, hidden: Bool = false
    ) -> AccessibilityElement {
        AccessibilityElement(
            id: id, label: id.capitalized, traits: traits, sortPriority: priority, isHidden: hidden,
            combinesChildren: combines, children: children)
    }

    @Test func ordersByPriorityThenPosition() {
        let engine = FocusEngine(elements: [element("a"), element("b", priority: 2), element("c"), element("d", priority: 2)])
        #expect(engine.order.map(\.id) == ["b", "d", "a", "c"])
    }

    @Test func skipsHiddenAndCombinedChildren() {
        let card = element("card", children: [element("inner")], combines: true)
        let section = element("section", .header, children: [card, element("deco", hidden: true)])
        let engine = FocusEngine(elements: [section, element("hiddenParent", children: [element("lost")], hidden: true)])
        #expect(engine.order.map(\.id) == ["section", "card"])
    }

    @Test func nextAndPreviousSayEndAndTopInsteadOfWrapping() {
        let engine = FocusEngine(elements: [element("a"), element("b")])
        #expect(engine.next(after: "a") == .moved(engine.order[1]))
        #expect(engine.next(after: "b") == .endOfScreen)
        #expect(engine.previous(before: "a") == .top)
        #expect(engine.previous(before: "b") == .moved(engine.order[0]))
        #expect(FocusEngine(elements: []).next(after: nil) == .empty)
    }

    @Test func headingRotor() {
        let engine = FocusEngine(elements: [element("h1", .header), element("x"), element("h2", .header), element("y")])
        #expect(engine.nextHeading(after: "h1") == .moved(engine.order[2]))
        #expect(engine.nextHeading(after: "h2") == .endOfScreen)
        #expect(engine.previousHeading(before: "y") == .moved(engine.order[2]))
        #expect(engine.previousHeading(before: "h1") == .top)
        #expect(FocusEngine(elements: [element("x")]).nextHeading(after: nil) == .empty)
    }

    @Test func firstMeaningfulIsTheFirstActionableElement() {
        let engine = FocusEngine(elements: [element("title", .header), element("text", .staticText), element("go"), element("other")])
        #expect(engine.firstMeaningful?.id == "go")
        #expect(FocusEngine(elements: [element("title", .header)]).firstMeaningful?.id == "title")
    }

    @Test func letterJumpSkipsPrefixesAndWraps() {
        let a = AccessibilityElement(id: "a", label: "Story: The Lighthouse Cat", traits: .button)
        let b = AccessibilityElement(id: "b", label: "Story: Pip and the Puddle", traits: .button)
        let c = AccessibilityElement(id: "c", label: "Settings", traits: .button)
        let engine = FocusEngine(elements: [a, b, c])
        #expect(engine.jump(to: "l", after: "c")?.id == "a")
        #expect(engine.jump(to: "P", after: "a")?.id == "b")
        #expect(engine.jump(to: "s", after: nil)?.id == "c")
        #expect(engine.jump(to: "z", after: nil) == nil)
    }
}
