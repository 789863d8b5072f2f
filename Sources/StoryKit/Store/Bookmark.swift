public import Foundation

/// A place a child marked in a story (the `b` key): the word being heard, and a note if one was
/// typed. Kept per child in the store, shared with the site like favourites (`SyncChange`).
public struct Bookmark: Sendable, Hashable, Codable {
    /// Its identity on every machine of a site.
    public var id: UUID
    public var story: String
    /// The word marked: an index into `Story.words`.
    public var word: Int
    /// The sentence holding it: an index into `Story.sentences` (said counted from 1).
    public var sentence: Int
    /// The word as written, sanitized (the list says it without loading the story).
    public var text: String
    /// The child's note (sanitized, one line, at most ``noteLength`` characters), nil: none.
    public var note: String?
    public var createdAt: Date

    public init(id: UUID = UUID(), story: String, word: Int, sentence: Int, text: String, note: String? = nil, createdAt: Date) {
        self.id = id
        self.story = story
        self.word = word
        self.sentence = sentence
        self.text = Self.cleaned(text, limit: Self.wordLength) ?? "…"
        self.note = note.flatMap { Self.cleaned($0, limit: Self.noteLength) }
        self.createdAt = createdAt
    }

    /// The longest note kept: a line a child types, not a diary.
    public static let noteLength = 200
    /// The longest word kept (a story's word is rarely longer; a hostile one is cut).
    public static let wordLength = 60

    /// Typed or untrusted text made one safe line of at most `limit` characters; nil when nothing is left.
    public static func cleaned(_ text: String, limit: Int) -> String? {
        let line = Sanitizer.sanitizeLine(text).trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return nil }
        return line.count > limit ? String(line.prefix(limit)).trimmingCharacters(in: .whitespaces) : line
    }

    /// What is wrong with a bookmark that came from another machine, or nil (``SyncValidation``).
    public static func problem(_ bookmark: Bookmark) -> String? {
        if bookmark.word < 0 || bookmark.word > 10_000_000 { return "bookmark word \(bookmark.word) is out of range (0 to 10000000)" }
        if bookmark.sentence < 0 || bookmark.sentence > 1_000_000 { return "bookmark sentence \(bookmark.sentence) is out of range (0 to 1000000)" }
        if bookmark.text.isEmpty || bookmark.text.count > wordLength || UnsafeCharacters.containsUnsafe(bookmark.text) {
            return "a bookmark's word is not 1 to \(wordLength) characters without controls"
        }
        if let note = bookmark.note, note.isEmpty || note.count > noteLength || UnsafeCharacters.containsUnsafe(note) {
            return "a bookmark's note is not 1 to \(noteLength) characters without controls"
        }
        return nil
    }
}

extension Bookmark {
    /// The order of a child's list: by story, then by place in it.
    public static func inOrder(_ a: Bookmark, _ b: Bookmark) -> Bool {
        (a.story, a.word, a.createdAt) < (b.story, b.word, b.createdAt)
    }

    /// Puts `bookmark` into `list` (replacing the one with its id), keeping the list's order.
    public static func put(_ bookmark: Bookmark, into list: inout [Bookmark]) {
        list.removeAll { $0.id == bookmark.id }
        list.append(bookmark)
        list.sort(by: inOrder)
    }
}
