public import Foundation
import GRDB

/// One read aloud with the coach (issue 45), as the history shows it: the words the child read by
/// themselves, those the coach said for them, and those passed over. Never any audio.
public struct CoachedReadRecord: Sendable, Hashable, Codable {
    public var profileID: Int64
    public var profileName: String
    public var storyID: String
    public var finishedAt: Date
    public var read: Int
    public var helped: Int
    public var skipped: Int
}

/// Coached reads, kept per child apart from the finished reads: a coached read is the child reading
/// to the coach, not one more read of the story (`recordFinishedRead` counts those). Synced like
/// every read (``SyncChange/Body/coachedRead(profile:story:finishedAt:read:helped:skipped:)``).
extension StoryStore {
    /// Keeps one coached read of `storyID` for `profileID`, and queues it for the site.
    public func recordCoachedRead(profileID: Int64, storyID: String, tally: CoachTally, at date: Date? = nil) throws(StoreError) {
        let finishedAt = date ?? clock.now()
        try write { db -> Result<Void, StoreError> in
            guard try Self.profileExists(profileID, in: db) else { return .failure(.profileNotFound(name: "#\(profileID)")) }
            let event = UUID()
            try db.execute(
                sql: """
                    INSERT INTO coachedRead (profileId, storyId, finishedAt, wordsRead, wordsHelped, wordsSkipped, syncId)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [profileID, storyID, Self.databaseDate(finishedAt), tally.read, tally.helped, tally.skipped, event.syncText])
            if let profile = try Self.profileSyncID(profileID, in: db) {
                try Self.enqueue(
                    [
                        .coachedRead(
                            profile: profile, story: storyID, finishedAt: finishedAt, read: tally.read, helped: tally.helped, skipped: tally.skipped)
                    ], ids: [event], titles: storyTitles, in: db, at: clock.now())
            }
            return .success(())
        }.get()
    }

    /// Coached reads, newest first, for one profile or all.
    public func coachedReads(profileID: Int64? = nil, limit: Int? = nil) throws(StoreError) -> [CoachedReadRecord] {
        try read { db in
            var sql = """
                SELECT coachedRead.profileId, profile.name, coachedRead.storyId, coachedRead.finishedAt,
                coachedRead.wordsRead, coachedRead.wordsHelped, coachedRead.wordsSkipped
                FROM coachedRead JOIN profile ON profile.id = coachedRead.profileId
                """
            var arguments: StatementArguments = []
            if let profileID {
                sql += " WHERE coachedRead.profileId = ?"
                arguments += [profileID]
            }
            sql += " ORDER BY coachedRead.finishedAt DESC, coachedRead.id DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            // As the history's reads: a row that cannot be read back is reported and skipped, the
            // name sanitized (it may come from another machine).
            return try GRDB.Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                damagedRows.decoding(row, table: "coachedRead") { row in
                    CoachedReadRecord(
                        profileID: try row.decode(atIndex: 0), profileName: Sanitizer.sanitizeLine(try row.decode(atIndex: 1)),
                        storyID: try row.decode(atIndex: 2), finishedAt: try row.decode(atIndex: 3), read: try row.decode(atIndex: 4),
                        helped: try row.decode(atIndex: 5), skipped: try row.decode(atIndex: 6))
                }
            }
        }
    }
}
