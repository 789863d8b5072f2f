/// Where a focus move ended.
public enum FocusMove: Sendable, Hashable {
    /// Focus moved to this element.
    case moved(AccessibilityElement)
    /// There is nothing after the focused element: spoken "end of screen" (no silent wrap).
    case endOfScreen
    /// There is nothing before the focused element: spoken "top".
    case top
    /// The screen has nothing to focus.
    case empty
}

/// The order in which focus visits a screen, and moves through it.
///
/// Order: higher `sortPriority` first (as VoiceOver does), then position in the tree (depth first).
/// A hidden element and its children are skipped; an element that `combinesChildren` is one stop
/// and its children are not visited; a container without a label is not a stop itself.
public struct FocusEngine: Sendable {
    /// The focusable elements in focus order.
    public let order: [AccessibilityElement]

    public init(screen: Screen) {
        self.init(elements: screen.elements)
    }

    public init(elements: [AccessibilityElement]) {
        var flat: [(element: AccessibilityElement, position: Int)] = []
        func visit(_ element: AccessibilityElement) {
            guard !element.isHidden else { return }
            if element.isFocusable { flat.append((element, flat.count)) }
            if !element.combinesChildren { element.children.forEach(visit) }
        }
        elements.forEach(visit)
        order = flat.sorted { ($0.element.sortPriority, -$0.position) > ($1.element.sortPriority, -$1.position) }.map(\.element)
    }

    public func index(of id: String?) -> Int? {
        guard let id else { return nil }
        return order.firstIndex { $0.id == id }
    }

    public func element(id: String?) -> AccessibilityElement? { index(of: id).map { order[$0] } }

    /// The next element after `id` (the first one when `id` is not on the screen).
    public func next(after id: String?) -> FocusMove {
        guard !order.isEmpty else { return .empty }
        guard let current = index(of: id) else { return .moved(order[0]) }
        return current + 1 < order.count ? .moved(order[current + 1]) : .endOfScreen
    }

    /// The element before `id` (the last one when `id` is not on the screen).
    public func previous(before id: String?) -> FocusMove {
        guard !order.isEmpty else { return .empty }
        guard let current = index(of: id) else { return .moved(order[order.count - 1]) }
        return current > 0 ? .moved(order[current - 1]) : .top
    }

    /// The next heading after `id` (the rotor), or `.endOfScreen`.
    public func nextHeading(after id: String?) -> FocusMove {
        let start = index(of: id).map { $0 + 1 } ?? 0
        guard start <= order.count else { return .endOfScreen }
        if let found = order[start...].first(where: { $0.traits.contains(.header) }) { return .moved(found) }
        return order.contains(where: { $0.traits.contains(.header) }) ? .endOfScreen : .empty
    }

    /// The previous heading before `id`, or `.top`.
    public func previousHeading(before id: String?) -> FocusMove {
        let end = index(of: id) ?? order.count
        if let found = order[..<end].last(where: { $0.traits.contains(.header) }) { return .moved(found) }
        return order.contains(where: { $0.traits.contains(.header) }) ? .top : .empty
    }

    /// The element that takes focus when the screen opens: the first one a person can act on
    /// (a button, link, field or adjustable), else the first element.
    public var firstMeaningful: AccessibilityElement? {
        let actionable: AccessibilityTraits = [.button, .link, .textField, .adjustable]
        return order.first { !$0.traits.isDisjoint(with: actionable) && !$0.traits.contains(.notEnabled) } ?? order.first
    }

    /// The next element after `id` whose label (after any "Story: " style prefix) starts with
    /// `letter`, wrapping round once; nil when none does.
    public func jump(to letter: Character, after id: String?) -> AccessibilityElement? {
        guard !order.isEmpty else { return nil }
        let start = index(of: id) ?? -1
        let wanted = String(letter).lowercased()
        for offset in 1...order.count {
            let candidate = order[(start + offset + order.count) % order.count]
            if Self.jumpName(of: candidate).lowercased().hasPrefix(wanted) { return candidate }
        }
        return nil
    }

    /// The part of a label a letter jumps by: "Story: The Lighthouse Cat" → "Lighthouse Cat".
    static func jumpName(of element: AccessibilityElement) -> String {
        var name = Substring(searchName(of: element))
        for article in ["The ", "A ", "An "] where name.hasPrefix(article) {
            name = name.dropFirst(article.count)
        }
        return String(name)
    }

    /// The part of a label type-ahead searches: "Story: The Lighthouse Cat" → "The Lighthouse Cat".
    static func searchName(of element: AccessibilityElement) -> String {
        var name = Substring(element.label)
        if let colon = name.firstIndex(of: ":"), name.distance(from: name.startIndex, to: colon) < 12 {
            name = name[name.index(after: colon)...]
        }
        return String(name.drop(while: { $0 == " " }))
    }
}
