public import Foundation
import GRDB

/// A child's bookmarks (`b` in the reader): kept per profile, shared with the site like favourites.
extension StoryStore {
    /// Adds `bookmark`, or replaces the one with its id (a note typed after it was made).
    public func saveBookmark(_ bookmark: Bookmark, profileID: Int64) throws(StoreError) {
        let now = clock.now()
        try write { db -> Result<Void, StoreError> in
            guard try Self.profileExists(profileID, in: db) else { return .failure(.profileNotFound(name: "#\(profileID)")) }
            // The session has no clock: the store dates a new bookmark, and a note keeps its date.
            var bookmark = bookmark
            let made = try Date.fetchOne(db, sql: "SELECT createdAt FROM bookmark WHERE id = ?", arguments: [bookmark.id.uuidString])
            bookmark.createdAt = made ?? (bookmark.createdAt == .distantPast ? now : bookmark.createdAt)
            try Self.putBookmark(bookmark, profileID: profileID, in: db)
            if let profile = try Self.profileSyncID(profileID, in: db) {
                try Self.enqueue([.bookmark(profile: profile, bookmark: bookmark, removed: false)], titles: storyTitles, in: db, at: now)
            }
            return .success(())
        }.get()
    }

    /// Deletes the bookmark with this id (nothing when it is already gone).
    public func removeBookmark(id: UUID, profileID: Int64) throws(StoreError) {
        let now = clock.now()
        try write { db in
            guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM bookmark WHERE id = ? AND profileId = ?", arguments: [id.uuidString, profileID])
            else { return }
            try db.execute(sql: "DELETE FROM bookmark WHERE id = ?", arguments: [id.uuidString])
            if let profile = try Self.profileSyncID(profileID, in: db), let bookmark = Self.bookmark(row) {
                try Self.enqueue([.bookmark(profile: profile, bookmark: bookmark, removed: true)], titles: storyTitles, in: db, at: now)
            }
        }
    }

    /// The profile's bookmarks, by story and place.
    public func bookmarks(profileID: Int64) throws(StoreError) -> [Bookmark] {
        try read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT * FROM bookmark WHERE profileId = ?", arguments: [profileID]).compactMap(Self.bookmark)
                .sorted(by: Bookmark.inOrder)
        }
    }

    static func putBookmark(_ bookmark: Bookmark, profileID: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO bookmark (id, profileId, storyId, wordIndex, sentenceIndex, word, note, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET storyId = excluded.storyId, wordIndex = excluded.wordIndex,
                sentenceIndex = excluded.sentenceIndex, word = excluded.word, note = excluded.note
                """,
            arguments: [
                bookmark.id.uuidString, profileID, bookmark.story, bookmark.word, bookmark.sentence, bookmark.text, bookmark.note,
                bookmark.createdAt,
            ])
    }

    /// A row as a bookmark (nil: a row whose id or columns cannot be read, left out rather than trapping).
    static func bookmark(_ row: GRDB.Row) -> Bookmark? {
        guard let id = UUID(uuidString: (row["id"] as String?) ?? ""), let story = row["storyId"] as String?,
            let word = row["wordIndex"] as Int?, let sentence = row["sentenceIndex"] as Int?, let text = row["word"] as String?,
            let createdAt = row["createdAt"] as Date?
        else { return nil }
        return Bookmark(id: id, story: story, word: word, sentence: sentence, text: text, note: row["note"], createdAt: createdAt)
    }
}
