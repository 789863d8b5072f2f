import Foundation

/// The bookmarks screen: the child's bookmarks of one story or of all, each said as "‘fox’,
/// sentence 3, The Snail: its note"; Enter reads from it, Delete (or its action) removes it.
extension Screens {
    static func bookmarks(_ state: State, catalog: StoryCatalog, story: String?) -> Screen {
        let all = state.snapshot.bookmarks[state.profile.name] ?? []
        let listed = story.map { id in all.filter { $0.story == id } } ?? all
        let title =
            story.map { state.tr("Bookmarks in {title}", ["title": catalog.entry(id: $0)?.title ?? $0]) } ?? state.tr("All bookmarks")
        var elements = [
            AccessibilityElement(id: "heading", label: title, value: state.trn("{count} bookmark", "{count} bookmarks", listed.count), traits: .header)
        ]
        for bookmark in listed {
            let storyTitle = catalog.entry(id: bookmark.story)?.title ?? bookmark.story
            var label = state.tr(
                "‘{word}’, sentence {sentence}, {title}", ["word": bookmark.text, "sentence": String(bookmark.sentence + 1), "title": storyTitle])
            if let note = bookmark.note { label += ": " + note }
            elements.append(
                AccessibilityElement(
                    id: "bookmark-" + bookmark.id.uuidString, label: label,
                    hint: state.tr("Press Enter to read from here; Delete removes it."), traits: .button,
                    customActions: [CustomAction(id: "read", name: state.tr("Read from here")), CustomAction(id: "delete", name: state.tr("Delete"))]))
        }
        if listed.isEmpty {
            elements.append(
                AccessibilityElement(
                    id: "empty", label: state.tr("No bookmarks yet. While a story is read, press b at a word to keep it."), traits: .staticText))
        }
        if story != nil, all.count > listed.count {
            elements.append(
                AccessibilityElement(
                    id: "all", label: state.tr("Every story's bookmarks"), value: state.trn("{count} bookmark", "{count} bookmarks", all.count),
                    hint: state.tr("Press Enter to list them."), traits: .button))
        }
        return Screen(kind: .bookmarks, title: title, elements: elements)
    }

    /// A story's action "Bookmarks", where the child has some in it (none: nothing more to say
    /// on every card of the library).
    static func bookmarksAction(_ state: State, story: String) -> [CustomAction] {
        (state.snapshot.bookmarks[state.profile.name] ?? []).contains { $0.story == story } ? [CustomAction(id: "bookmarks", name: state.tr("Bookmarks"))] : []
    }

    /// The reader's (and a story card's) Bookmarks button, with how many the story has.
    static func bookmarksButton(_ state: State, story: String) -> AccessibilityElement {
        let count = (state.snapshot.bookmarks[state.profile.name] ?? []).filter { $0.story == story }.count
        return AccessibilityElement(
            id: "bookmarks", label: state.tr("Bookmarks"), value: state.trn("{count} bookmark", "{count} bookmarks", count),
            hint: state.tr("Press Enter to list them; b bookmarks the word being read."), traits: .button, sortPriority: state.route == .reader ? 1 : 0)
    }
}
