import Foundation

/// Bookmarks and notes (issue 46): `b` marks the word being heard and reading goes on; `n` (or
/// `bookmark note TEXT`) gives the last one a note; a soft tone is heard at the bookmarked word when reading passes it
/// (the narration is told `bookmarkTones` each time it is told the story, and the caption "Bookmark." shows it);
/// the bookmarks screen lists them, Enter reads from one, Delete removes it.
extension Route {
    /// The bookmarks screen, of a story or of all.
    var isBookmarks: Bool { if case .bookmarks = self { true } else { false } }
}

extension Session {
    /// The child's bookmarks (the guest's last for this run: they are never saved).
    var myBookmarks: [Bookmark] { state.snapshot.bookmarks[state.profile.name] ?? [] }

    /// The story being read, else the one whose card is shown.
    var storyHere: String? {
        if let reader = state.reader, state.stack.contains(.reader) { return reader.story.id }
        for route in state.stack.reversed() { if case .story(let id) = route { return id } }
        return nil
    }

    /// "‘fox’, sentence 3"
    func bookmarkPlace(_ bookmark: Bookmark) -> String {
        tr("‘{word}’, sentence {sentence}", ["word": bookmark.text, "sentence": String(bookmark.sentence + 1)])
    }

    // MARK: - Making one

    /// `b`: a bookmark at the word being heard. Reading goes on (the answer holds the story only
    /// while it is said, as every key's answer does).
    mutating func saveBookmark() -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader), let word = reader.word else {
            return [speak(tr("Bookmarks are made while reading: press b at the word you want to keep."))]
        }
        if let kept = myBookmarks.first(where: { $0.story == reader.story.id && $0.word == reader.wordIndex }) {
            state.lastBookmark = kept.id
            return [speak(tr("{place} has a bookmark already.", ["place": bookmarkPlace(kept)]).capitalizedFirst)]
        }
        let spoken = reader.map.spokenSentences
        let bookmark = Bookmark(
            story: reader.story.id, word: reader.wordIndex, sentence: spoken.lastIndex { $0 <= reader.sentence } ?? 0,
            text: Self.bare(word).isEmpty ? word : Self.bare(word), createdAt: .distantPast)
        state.lastBookmark = bookmark.id
        return [speak(tr("Bookmark saved at {place}.", ["place": bookmarkPlace(bookmark)]))] + keep(bookmark)
    }

    /// The bookmark in memory and, for a chosen profile, in the store (which dates it).
    private mutating func keep(_ bookmark: Bookmark) -> [Effect] {
        Bookmark.put(bookmark, into: &state.snapshot.bookmarks[state.profile.name, default: []])
        guard state.profileName != nil, let id = state.profile.id else { return [] }
        return [.save(.saveBookmark(profileID: id, bookmark))]
    }

    // MARK: - Its note

    /// `bookmark note TEXT`, or `n` (empty): the note's line opens with the story paused.
    mutating func noteBookmark(_ text: String) -> [Effect] {
        guard let id = state.lastBookmark, var bookmark = myBookmarks.first(where: { $0.id == id }) else {
            return [speak(tr("Make a bookmark first: press b while reading, then n types its note."))]
        }
        if text.isEmpty {
            state.pausedForNote = state.reader?.status == .playing
            state.noteLineOpen = true
            return pauseForHelp() + [
                speak(
                    tr(
                        "Note for the bookmark at {place}: type it, then press Enter. Escape keeps the bookmark without a note.",
                        ["place": bookmarkPlace(bookmark)])),
                .openCommandLine("bookmark note "),
            ]
        }
        guard let note = Bookmark.cleaned(text, limit: Bookmark.noteLength) else {
            return [speak(tr("The note is empty: the bookmark is kept without one."))] + goOnAfterNote()
        }
        bookmark.note = note
        let cut = Sanitizer.sanitizeLine(text).trimmingCharacters(in: .whitespaces).count > Bookmark.noteLength
        let said =
            cut
            ? tr("Note saved, cut to {count} characters: {note}", ["count": String(Bookmark.noteLength), "note": note])
            : tr("Note saved: {note}", ["note": note])
        return [speak(SpokenForm.finish(said))] + keep(bookmark) + goOnAfterNote()
    }

    /// The note's line was closed with Escape: the bookmark stays, without a note (nil: the line
    /// was not the note's).
    mutating func noteCancelled() -> [Effect]? {
        guard state.noteLineOpen else { return nil }
        return [speak(tr("The bookmark is kept without a note."))] + goOnAfterNote()
    }

    /// The story paused for the note's line goes on.
    private mutating func goOnAfterNote() -> [Effect] {
        state.noteLineOpen = false
        guard state.pausedForNote else { return [] }
        state.pausedForNote = false
        guard state.reader?.status == .paused, state.route == .reader else { return [] }
        return resume()
    }

    // MARK: - The tone

    /// Where the narration about to start plays its tone: each bookmark of the story being read,
    /// by word, with what the speech log calls it ("bookmark 2 at word 17", both counted from 1).
    public var bookmarkTones: [(word: Int, label: String)] {
        guard let story = state.reader?.story.id else { return [] }
        return myBookmarks.filter { $0.story == story }.enumerated().map { index, bookmark in
            (bookmark.word, "bookmark \(index + 1) at word \(bookmark.word + 1)")
        }
    }

    /// The caption of the tone heard in sentence `sentence` read from word `fromWord` (the speech
    /// service plays it at the bookmarked word; it is shown with the sentence's caption: a deaf
    /// child sees it too).
    func bookmarkCaption(sentence: Int, fromWord: Int, map: StoryMap, story: String) -> [Effect] {
        let first = map.firstWord(ofSentence: sentence)
        let passes = myBookmarks.contains { $0.story == story && $0.word >= fromWord && $0.word >= first && map.sentence(containingWord: $0.word) == sentence }
        return passes ? [.caption(tr("Bookmark."))] : []
    }

    // MARK: - The list

    /// The bookmarks screen, of `story` (nil: of every story). A story being read waits, as for Help.
    mutating func openBookmarks(story: String?) -> [Effect] {
        let paused = pauseForHelp()
        if case .bookmarks = state.route { state.stack.removeLast() }
        return paused + push(.bookmarks(story))
    }

    /// The bookmarks the screen lists.
    func listedBookmarks(story: String?) -> [Bookmark] {
        guard let story else { return myBookmarks }
        return myBookmarks.filter { $0.story == story }
    }

    /// The bookmark an element of the list stands for.
    func bookmarkID(_ elementID: String) -> UUID? {
        guard elementID.hasPrefix("bookmark-") else { return nil }
        return UUID(uuidString: String(elementID.dropFirst("bookmark-".count)))
    }

    /// Enter on the bookmarks screen (nil: not one of its own elements).
    mutating func activateBookmark(_ id: String) -> [Effect]? {
        if id == "all" {
            state.stack.removeLast()
            return push(.bookmarks(nil))
        }
        guard let bookmark = bookmarkID(id) else { return nil }
        return performBookmark(action: "read", on: bookmark)
    }

    /// A bookmark's actions: "read" (go there and read from it) and "delete".
    mutating func performBookmark(action: String, on id: UUID) -> [Effect] {
        guard let bookmark = myBookmarks.first(where: { $0.id == id }) else { return [speak(tr("That bookmark is gone."))] }
        switch action {
        case "read":
            state.stack.removeAll { if case .bookmarks = $0 { true } else { false } }
            return startReading(bookmark.story, fromWord: bookmark.word, goingOn: false)
        case "delete":
            return deleteBookmark(bookmark)
        default:
            return [speak(tr("That cannot be done here."))]
        }
    }

    /// Removes `bookmark`, says so, and focuses the next one (or the one before, or the heading).
    mutating func deleteBookmark(_ bookmark: Bookmark) -> [Effect] {
        let order = FocusEngine(screen: screen).order.map(\.id)
        let here = order.firstIndex(of: "bookmark-" + bookmark.id.uuidString)
        state.snapshot.bookmarks[state.profile.name]?.removeAll { $0.id == bookmark.id }
        if state.lastBookmark == bookmark.id { state.lastBookmark = nil }
        let left = FocusEngine(screen: screen).order.map(\.id)
        if let here {
            let next = order[(here + 1)...].first { left.contains($0) } ?? order[..<here].last { left.contains($0) }
            state.focusedID = next
        }
        var effects: [Effect] = [speak(tr("Bookmark at {place} deleted.", ["place": bookmarkPlace(bookmark)]), .message)]
        if state.profileName != nil, let id = state.profile.id { effects.append(.save(.removeBookmark(profileID: id, id: bookmark.id))) }
        if let focused = focusedElement { effects.append(speak(SpokenForm.describe(focused, hints: false, messages: state.messages))) }
        return effects
    }
}
