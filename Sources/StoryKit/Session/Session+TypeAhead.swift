import Foundation

/// Type-ahead in every list: letters typed within a second and a half (``TypeAhead/pause``, long
/// enough for a child or a one-finger typist) are one search, matching the beginning of any word
/// of an item's name by the rule lookup and completion use (``NameMatch``). As in Orca's and NVDA's
/// lists, the same letter again steps on: "w", "w", "w" goes through the items starting with W, and
/// a search's last letter again (where it would match nothing) goes to its next match; the answer
/// says so ("1 of 30 matches, type w again for the next"). A pause starts a new search; Escape
/// clears it. Time comes from `Input.tick` (the shell's monotonic clock), so tests drive it without
/// waiting.
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
        let previous = activeTypeAhead
        var text = (previous?.text ?? "") + String(letter)
        let engine = FocusEngine(screen: screen)
        let start = engine.index(of: state.focusedID) ?? -1
        // One letter, or the same letter again ("ww"): the items whose name starts with it, in turn.
        if Set(text.lowercased()).count == 1 {
            state.typeAhead = TypeAhead(text: text, at: state.now, screen: state.route.focusKey)
            guard let found = engine.jump(to: letter, after: state.focusedID) else { return handleCommand(.jump(letter)) }
            let starting = Self.uniqueItems(engine.order.filter { FocusEngine.jumpName(of: $0).lowercased().hasPrefix(text.prefix(1).lowercased()) })
            // The only one: said as a move to it is (its kind and hint too).
            guard starting.count > 1 else { return moveFocus(.moved(found)) }
            return announceMatch(found, among: starting, again: letter)
        }
        var matches = searchMatches(text, engine)
        var stepping = false
        if matches.isEmpty, let previous, previous.text.last?.lowercased() == letter.lowercased() {
            // The search's last letter again, where it would match nothing: its next match.
            let earlier = searchMatches(previous.text, engine)
            if earlier.count > 1 { (text, matches, stepping) = (previous.text, earlier, true) }
        }
        state.typeAhead = TypeAhead(text: text, at: state.now, screen: state.route.focusKey, answer: previous?.answer)
        guard !matches.isEmpty else {
            return [speak(tr("Nothing matches {letters}.", ["letters": Sanitizer.quote(text)]))]
        }
        let next = matches.first { (engine.index(of: $0.id) ?? 0) > start } ?? matches[0]
        let found = stepping ? next : matches.first { $0.id == state.focusedID } ?? next
        // Said only where it is true: "grap" then "p" goes on, "ap" then "p" is "app".
        let last = text.last ?? letter
        let again = matches.count > 1 && searchMatches(text + String(last), engine).isEmpty ? last : nil
        return announceMatch(found, among: matches, again: again)
    }

    /// The items matching `text`, once each, in the screen's order.
    func searchMatches(_ text: String, _ engine: FocusEngine) -> [AccessibilityElement] {
        Self.uniqueItems(
            NameMatch.ranked(engine.order, typed: text) { [FocusEngine.searchName(of: $0)] }
                .sorted { (engine.index(of: $0.id) ?? 0) < (engine.index(of: $1.id) ?? 0) })
    }

    /// Focuses `found` and says it with its place among `matches` and, given `again`, the letter
    /// that goes to the next one: "The Fox and the Grapes, 2 of 3 matches, type p again for the next".
    mutating func announceMatch(_ found: AccessibilityElement, among matches: [AccessibilityElement], again: Character?) -> [Effect] {
        state.focusedID = found.id
        state.warning = nil
        let position = (matches.firstIndex { Self.itemKey($0) == Self.itemKey(found) } ?? 0) + 1
        var said = FocusEngine.searchName(of: found) + ", "
        if matches.count == 1 {
            said += tr("the only match")
        } else {
            said += tr("{item} of {count} matches", ["item": String(position), "count": String(matches.count)])
        }
        if let again { said += ", " + tr("type {letter} again for the next", ["letter": String(again).lowercased()]) }
        if let value = found.value, !value.isEmpty { said += ", " + value }
        let answer = SpokenForm.finish(said)
        let previous = state.typeAhead?.answer
        state.typeAhead?.answer = answer
        if previous == answer { return [] }
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
        return elements.filter { seen.insert(itemKey($0)).inserted }
    }

    /// What a favourite's two listings share: "favourite/fox" and "story/fox" are both "fox".
    static func itemKey(_ element: AccessibilityElement) -> String {
        element.id.split(separator: "/").dropFirst().first.map(String.init) ?? element.id
    }
}
