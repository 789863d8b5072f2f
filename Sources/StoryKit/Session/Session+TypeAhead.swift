import Foundation

/// Type-ahead in every list: letters typed within about a second (``TypeAhead/pause``) are one
/// search, matching the beginning of any word of an item's name by the rule lookup and completion
/// use (``NameMatch``). A single letter still jumps to the next item starting with it; a pause
/// starts a new search; Escape clears it. Time comes from `Input.tick` (the shell's monotonic
/// clock), so tests drive it without waiting.
extension Session {
    /// The search typed on this screen, when its last letter came less than a pause ago.
    var activeTypeAhead: TypeAhead? {
        guard let search = state.typeAhead, search.screen == state.route.focusKey, state.now - search.at <= TypeAhead.pause else { return nil }
        return search
    }

    /// Whether `key` goes to type-ahead: a letter or digit on a list, and, while a search is being
    /// typed, also letters that are keys of their own alone (`h`, `a`).
    func typesAhead(_ key: Key, bound: Bool) -> Bool {
        guard case .character(let character) = key, character.isLetter || character.isNumber,
            state.route != .reader, state.route != .pinPrompt, !state.isLearning
        else { return false }
        return !bound || activeTypeAhead != nil
    }

    /// One more letter of the search.
    mutating func typeAhead(_ letter: Character) -> [Effect] {
        var text = String(letter)
        let previous = activeTypeAhead
        if let previous { text = previous.text + String(letter) }
        state.typeAhead = TypeAhead(text: text, at: state.now, screen: state.route.focusKey)
        let engine = FocusEngine(screen: screen)
        let matches = Self.uniqueItems(
            NameMatch.ranked(engine.order, typed: text) { [FocusEngine.searchName(of: $0)] }
                .sorted { (engine.index(of: $0.id) ?? 0) < (engine.index(of: $1.id) ?? 0) })
        // One letter, or the same letter again ("ff"), steps through the items starting with it.
        if text.count == 1 || (matches.isEmpty && Set(text.lowercased()).count == 1) {
            return handleCommand(.jump(letter))
        }
        guard !matches.isEmpty else {
            return [speak(tr("Nothing matches {letters}.", ["letters": Sanitizer.quote(text)]))]
        }
        let start = engine.index(of: state.focusedID) ?? -1
        let found =
            matches.first { $0.id == state.focusedID }
            ?? matches.first { (engine.index(of: $0.id) ?? 0) > start } ?? matches[0]
        state.focusedID = found.id
        state.warning = nil
        let position = (matches.firstIndex { $0.id == found.id } ?? 0) + 1
        let count = matches.count == 1 ? tr("the only match") : tr("{item} of {count} matches", ["item": String(position), "count": String(matches.count)])
        var said = FocusEngine.searchName(of: found) + ", " + count
        if let value = found.value, !value.isEmpty { said += ", " + value }
        let answer = SpokenForm.finish(said)
        state.typeAhead?.answer = answer
        if previous?.answer == answer { return [] }
        return [speak(answer)]
    }

    /// Escape while a search is being typed clears it (and goes nowhere).
    mutating func clearTypeAhead() -> [Effect]? {
        guard activeTypeAhead != nil else { return nil }
        state.typeAhead = nil
        return [speak(tr("Search cleared."))]
    }

    /// A favourite is listed twice (in Favourites and its own section) but is one match.
    static func uniqueItems(_ elements: [AccessibilityElement]) -> [AccessibilityElement] {
        var seen = Set<String>()
        return elements.filter { seen.insert($0.id.split(separator: "/").dropFirst().first.map(String.init) ?? $0.id).inserted }
    }
}
