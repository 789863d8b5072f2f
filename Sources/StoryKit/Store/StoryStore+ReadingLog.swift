public import Foundation
import GRDB

/// One finished read in the history.
public struct ReadRecord: Sendable, Hashable, Codable {
    public var profileID: Int64
    public var profileName: String
    public var storyID: String
    public var finishedAt: Date
}

/// A profile's progress with one story, for listings.
public struct StoryProgress: Sendable, Hashable, Codable {
    public var readCount: Int
    public var isFavourite: Bool
    /// The sentence to resume from, if the story was left unfinished.
    public var sentenceIndex: Int?
    /// Reads aloud with the coach (kept apart from the finished reads, `coachedRead`).
    public var coachedCount: Int

    public init(readCount: Int = 0, isFavourite: Bool = false, sentenceIndex: Int? = nil, coachedCount: Int = 0) {
        self.readCount = readCount
        self.isFavourite = isFavourite
        self.sentenceIndex = sentenceIndex
        self.coachedCount = coachedCount
    }
}

/// The reading log: finished reads, positions to resume from, favourites. None of these need the
/// parental PIN: they are the child's own progress.
extension StoryStore {
    /// Records that `profileID` heard the last sentence of `storyID` (or finished it without audio),
    /// and forgets the position to resume from, in one transaction.
    ///
    /// - Returns: the story's read count for the profile, this read included.
    @discardableResult
    public func recordFinishedRead(profileID: Int64, storyID: String, at date: Date? = nil) throws(StoreError) -> Int {
        let finishedAt = date ?? clock.now()
        return try write { db -> Result<Int, StoreError> in
            guard try Self.profileExists(profileID, in: db) else { return .failure(.profileNotFound(name: "#\(profileID)")) }
            let event = UUID()
            // Prepared once: a kiosk records a read at every story's end, and a site's sync
            // applies every other kiosk's through the same statements.
            try db.cachedStatement(sql: "INSERT INTO readEvent (profileId, storyId, finishedAt, syncId) VALUES (?, ?, ?, ?)")
                .execute(arguments: [profileID, storyID, Self.databaseDate(finishedAt), event.syncText])
            try db.cachedStatement(sql: "DELETE FROM readingPosition WHERE profileId = ? AND storyId = ?").execute(arguments: [profileID, storyID])
            if let profile = try Self.profileSyncID(profileID, in: db) {
                try Self.enqueue(
                    [.read(profile: profile, story: storyID, finishedAt: finishedAt), .position(profile: profile, story: storyID, sentence: nil)],
                    ids: [event], titles: storyTitles, in: db, at: clock.now())
            }
            return .success(try Self.readCount(profileID: profileID, storyID: storyID, in: db))
        }.get()
    }

    /// How many times the profile finished the story.
    public func readCount(profileID: Int64, storyID: String) throws(StoreError) -> Int {
        try read { db in try Self.readCount(profileID: profileID, storyID: storyID, in: db) }
    }

    /// Read counts of every story the profile finished at least once (a missing story is 0).
    public func readCounts(profileID: Int64) throws(StoreError) -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            let rows = try GRDB.Row.fetchCursor(
                db, sql: "SELECT storyId, COUNT(*) FROM readEvent WHERE profileId = ? GROUP BY storyId", arguments: [profileID])
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return counts
        }
    }

    /// Read count, favourite and position of every story the profile has touched, in one read.
    public func progress(profileID: Int64) throws(StoreError) -> [String: StoryProgress] {
        try read { db in
            var result: [String: StoryProgress] = [:]
            let counts = try GRDB.Row.fetchCursor(
                db, sql: "SELECT storyId, COUNT(*) FROM readEvent WHERE profileId = ? GROUP BY storyId", arguments: [profileID])
            while let row = try counts.next() { result[row[0], default: StoryProgress()].readCount = row[1] }
            for storyID in try String.fetchAll(db, sql: "SELECT storyId FROM favourite WHERE profileId = ?", arguments: [profileID]) {
                result[storyID, default: StoryProgress()].isFavourite = true
            }
            let positions = try GRDB.Row.fetchCursor(
                db, sql: "SELECT storyId, sentenceIndex FROM readingPosition WHERE profileId = ?", arguments: [profileID])
            while let row = try positions.next() { result[row[0], default: StoryProgress()].sentenceIndex = row[1] }
            let coached = try GRDB.Row.fetchCursor(
                db, sql: "SELECT storyId, COUNT(*) FROM coachedRead WHERE profileId = ? GROUP BY storyId", arguments: [profileID])
            while let row = try coached.next() { result[row[0], default: StoryProgress()].coachedCount = row[1] }
            return result
        }
    }

    /// The story whose place was kept most recently (the one to welcome a child back to).
    public func latestPosition(profileID: Int64) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(
                db, sql: "SELECT storyId FROM readingPosition WHERE profileId = ? ORDER BY updatedAt DESC, rowid DESC LIMIT 1",
                arguments: [profileID])
        }
    }

    /// Finished reads, newest first, for one profile or all.
    public func history(profileID: Int64? = nil, limit: Int? = nil) throws(StoreError) -> [ReadRecord] {
        try read { db in
            var sql = """
                SELECT readEvent.profileId, profile.name, readEvent.storyId, readEvent.finishedAt, readEvent.id
                FROM readEvent JOIN profile ON profile.id = readEvent.profileId
                """
            var arguments: StatementArguments = []
            if let profileID {
                sql += " WHERE readEvent.profileId = ?"
                arguments += [profileID]
            }
            sql += " ORDER BY readEvent.finishedAt DESC, readEvent.id DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            // A read whose date cannot be read back (pulled before pulled changes were checked) is
            // reported and skipped; the name is sanitized (it may come from another machine).
            return try GRDB.Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                damagedRows.decoding(row, table: "readEvent") { row in
                    ReadRecord(
                        profileID: try row.decode(atIndex: 0), profileName: Sanitizer.sanitizeLine(try row.decode(atIndex: 1)),
                        storyID: try row.decode(atIndex: 2), finishedAt: try row.decode(atIndex: 3))
                }
            }
        }
    }

    /// Remembers the sentence to resume the story from.
    public func setPosition(profileID: Int64, storyID: String, sentenceIndex: Int) throws(StoreError) {
        let now = clock.now()
        try write { db -> Result<Void, StoreError> in
            guard try Self.profileExists(profileID, in: db) else { return .failure(.profileNotFound(name: "#\(profileID)")) }
            try db.execute(
                sql: """
                    INSERT INTO readingPosition (profileId, storyId, sentenceIndex, updatedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (profileId, storyId) DO UPDATE SET sentenceIndex = excluded.sentenceIndex, updatedAt = excluded.updatedAt
                    """, arguments: [profileID, storyID, max(0, sentenceIndex), now])
            try Self.enqueuePosition(profileID: profileID, storyID: storyID, sentence: max(0, sentenceIndex), titles: storyTitles, in: db, at: now)
            return .success(())
        }.get()
    }

    /// The sentence to resume from, or `nil` to start at the beginning.
    public func position(profileID: Int64, storyID: String) throws(StoreError) -> Int? {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT sentenceIndex FROM readingPosition WHERE profileId = ? AND storyId = ?", arguments: [profileID, storyID])
        }
    }

    /// Forgets the position (start over).
    public func clearPosition(profileID: Int64, storyID: String) throws(StoreError) {
        let now = clock.now()
        try write { db in
            try db.execute(sql: "DELETE FROM readingPosition WHERE profileId = ? AND storyId = ?", arguments: [profileID, storyID])
            try Self.enqueuePosition(profileID: profileID, storyID: storyID, sentence: nil, titles: storyTitles, in: db, at: now)
        }
    }

    /// Marks or unmarks the story as a favourite (the "Save" action).
    ///
    /// - Returns: whether the story is a favourite now.
    @discardableResult
    public func toggleFavourite(profileID: Int64, storyID: String) throws(StoreError) -> Bool {
        let now = clock.now()
        return try write { db -> Result<Bool, StoreError> in
            guard try Self.profileExists(profileID, in: db) else { return .failure(.profileNotFound(name: "#\(profileID)")) }
            try db.execute(sql: "DELETE FROM favourite WHERE profileId = ? AND storyId = ?", arguments: [profileID, storyID])
            let isFavourite = db.changesCount == 0
            if isFavourite {
                try db.execute(
                    sql: "INSERT INTO favourite (profileId, storyId, createdAt) VALUES (?, ?, ?)", arguments: [profileID, storyID, now])
            }
            if let profile = try Self.profileSyncID(profileID, in: db) {
                try Self.enqueue([.favourite(profile: profile, story: storyID, isFavourite: isFavourite)], titles: storyTitles, in: db, at: now)
            }
            return .success(isFavourite)
        }.get()
    }

    public func isFavourite(profileID: Int64, storyID: String) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM favourite WHERE profileId = ? AND storyId = ?", arguments: [profileID, storyID]) ?? false
        }
    }

    /// The profile's favourite story ids.
    public func favourites(profileID: Int64) throws(StoreError) -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT storyId FROM favourite WHERE profileId = ?", arguments: [profileID])) }
    }

    static func enqueuePosition(profileID: Int64, storyID: String, sentence: Int?, titles: StoryTitles, in db: Database, at now: Date) throws {
        guard let profile = try profileSyncID(profileID, in: db) else { return }
        try enqueue([.position(profile: profile, story: storyID, sentence: sentence)], titles: titles, in: db, at: now)
    }

    static func readCount(profileID: Int64, storyID: String, in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM readEvent WHERE profileId = ? AND storyId = ?"), arguments: [profileID, storyID]) ?? 0
    }

    static func profileExists(_ id: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM profile WHERE id = ?"), arguments: [id]) ?? false
    }
}
