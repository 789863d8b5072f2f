import Foundation

/// An item's actions ("Read", "Save to favourites"): said with the item, listed by `a` (or
/// Shift-F10, or `actions`) as a screen of their own, done from there or by `action NAME`.
extension Session {
    mutating func openActions() -> [Effect] {
        guard let focused = focusedElement else { return [speak(tr("Nothing is focused."))] }
        guard !focused.customActions.isEmpty else {
            return [speak(tr("{item} It has no other actions: press Enter to choose it.", ["item": SpokenForm.finish(focused.label)]))]
        }
        state.stack.append(.actions(focused.id))
        state.focusedID = "action-" + focused.customActions[0].id
        let screen = self.screen
        let names = focused.customActions.map(\.name).joined(separator: ", ")
        let count = trn("{count} item", "{count} items", focused.customActions.count)
        var effects = [speak(tr("{screen}: {actions}, {count}.", ["screen": screen.title, "actions": names, "count": count]), .message)]
        if let first = focusedElement { effects.append(speak(SpokenForm.describe(first, hints: hints, messages: state.messages))) }
        return effects
    }

    /// `action save`: the focused item's action whose name starts with `name`.
    mutating func doAction(named name: String) -> [Effect] {
        let target: AccessibilityElement?
        if case .actions(let id) = state.route {
            target = Screens.actionTarget(state, catalog: catalog, id: id)
        } else {
            target = focusedElement
        }
        guard let target, !target.customActions.isEmpty else { return [speak(tr("The focused item has no actions."))] }
        let folded = name.lowercased()
        let matches = target.customActions.filter { $0.name.lowercased().hasPrefix(folded) || $0.id == folded }
        guard matches.count == 1, let action = matches.first else {
            let names = target.customActions.map(\.name).joined(separator: ", ")
            return [speak(tr("Say one of: {actions}.", ["actions": names]), .important)]
        }
        if case .actions = state.route { state.stack.removeLast() }
        return perform(action: action.id, on: target.id)
    }

    /// Does action `action` of item `id` (the item is on the screen now on top).
    mutating func perform(action: String, on id: String) -> [Effect] {
        if case .actions = state.route { state.stack.removeLast() }
        if let bookmark = bookmarkID(id) { return performBookmark(action: action, on: bookmark) }
        let storyID: String? =
            switch state.route {
            case .story(let story): story
            default: id.split(separator: "/").count == 2 ? String(id.split(separator: "/")[1]) : nil
            }
        guard let storyID else { return [speak(tr("That cannot be done here."))] }
        switch action {
        case "read": return startReading(storyID, fromWord: 0)
        case "resume": return goOnReading(storyID)
        case "save": return toggleFavourite(storyID)
        case "bookmarks": return openBookmarks(story: storyID)
        default: return [speak(tr("That cannot be done here."))]
        }
    }
}
