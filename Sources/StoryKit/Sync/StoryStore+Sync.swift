public import Foundation
import GRDB

/// What `sync --status` shows a grown-up.
public struct SyncStatus: Sendable, Hashable, Codable {
    public var joined: Bool
    public var outbox: Int
    public var cursor: Int64
    public var lastSuccess: Date?
    public var lastError: String?
    public var lastMoved: String?
    /// The server's warning at the last sync that this machine's clock runs ahead (nil: clocks agree).
    public var clockWarning: String?
    /// Wrong PIN tries on every kiosk of the site (the lockout itself stays per kiosk).
    public var pinFailures: [PINFailure] = []
    /// Changes set aside as invalid (pulled, or refused by the server when sent), and why the
    /// newest was (see ``SyncValidation``).
    public var setAside = 0
    public var lastSetAside: String?

    public struct PINFailure: Sendable, Hashable, Codable {
        public var kiosk: String
        public var at: Date
    }
}

/// The kiosk side of sync inside the store: every write appends its changes to the outbox in the
/// same transaction (only once the kiosk has joined a site: a machine on its own writes nothing
/// more than before), and changes pulled from the server are merged by the rules of ``SiteState``.
extension StoryStore {
    /// The profile columns that travel, each merged on its own (last writer wins per field).
    public static let syncedProfileFields = [
        "name", "age", "interests", "voice", "rate", "pitch", "volume", "textSize", "motion", "theme", "hints", "stepMode",
        "lineFocus", "syllables", "spacing", "brailleCode", "hintVerbosity", "narration", "recordingTempo",
        "bedtime", "coachWait",
    ]

    // MARK: - Outbox

    /// Appends changes stamped by the kiosk's clock, when joined. `ids` gives the change ids that
    /// must equal a row's sync id (a read's event id); others get new ones.
    static func enqueue(_ bodies: [SyncChange.Body], ids: [UUID?] = [], titles: StoryTitles? = nil, in db: Database, at now: Date) throws {
        guard let state = try GRDB.Row.fetchOne(db, sql: "SELECT joined, clock FROM syncState WHERE id = 1"), state["joined"] as Bool
        else { return }
        var clock = try HybridLogicalClock(storedText: state["clock"])
        for (index, body) in bodies.enumerated() {
            let id = (index < ids.count ? ids[index] : nil) ?? UUID()
            var change = SyncChange(id: id, hlc: clock.tick(now: now), body: body)
            change.storyTitle = change.story.flatMap { titles?.title(of: $0) }
            try db.cachedStatement(sql: "INSERT INTO syncOutbox (change) VALUES (?)").execute(arguments: [change.jsonText])
            if let key = change.registerKey { try setRegister(key, change.hlc, change: change.id, in: db) }
        }
        try saveClock(clock, in: db)
    }

    static func saveClock(_ clock: HybridLogicalClock, in db: Database) throws {
        try db.execute(
            sql: "UPDATE syncState SET clock = ? WHERE id = 1", arguments: [clock.storedText])
    }

    static func setRegister(_ key: String, _ hlc: HLCTimestamp, change: UUID, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO syncRegister (key, hlc, changeId) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET hlc = excluded.hlc, changeId = excluded.changeId
                """
        ).execute(arguments: [key, hlc.description, change.syncText])
    }

    static func profileSyncID(_ profileID: Int64, in db: Database) throws -> UUID? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT syncId FROM profile WHERE id = ?"), arguments: [profileID]).flatMap(UUID.init(syncText:))
    }

    /// The synced fields of a profile row as text (what SQLite stores; column affinity turns it back).
    static func syncedFields(of row: GRDB.Row) -> [String: String?] {
        var fields: [String: String?] = [:]
        for field in syncedProfileFields {
            // A child shown here under another name (its site name clashed with a child of this
            // kiosk, see `applyName`) still carries the site's name.
            let column = field == "name" && row["siteName"] as String? != nil ? "siteName" : field
            let value: String? =
                switch (row[column] as DatabaseValue).storage {
                case .null, .blob: nil
                case .int64(let number): String(number)
                case .double(let number): String(number)
                case .string(let text): text
                }
            fields[field] = value
        }
        return fields
    }

    /// Changes for every field that differs between two versions of a profile row.
    static func fieldChanges(profile: UUID, from old: GRDB.Row?, to new: GRDB.Row) -> [SyncChange.Body] {
        let before = old.map(syncedFields(of:)) ?? [:]
        return syncedFields(of: new).sorted { $0.key < $1.key }.compactMap { field, value in
            if let previous = before[field], previous == value { return nil }
            return .profileField(profile: profile, field: field, value: value)
        }
    }

    /// The oldest changes waiting for the server, with their outbox sequence numbers.
    /// `excluding`: entries a round keeps for later (of a kind the server does not know yet).
    public func pendingChanges(limit: Int = 500, after: Int64 = 0, excluding: Set<Int64> = []) throws(StoreError) -> [(seq: Int64, change: SyncChange)] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try read { db in
            let rows = try GRDB.Row.fetchAll(
                db, sql: "SELECT seq, change FROM syncOutbox WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [after, limit + excluding.count])
            return try rows.filter { !excluding.contains($0["seq"]) }.prefix(limit).map { row in
                let text: String = row["change"]
                return (row["seq"], try SyncPageReader.change(text) ?? decoder.decode(SyncChange.self, from: Data(text.utf8)))
            }
        }
    }

    /// Forgets outbox entries up to `seq`, once the server confirmed it stored them, but those of
    /// `keeping` (kept apart by the server as of a kind it does not know: sent again later).
    public func confirmUploaded(through seq: Int64, keeping: Set<Int64> = []) throws(StoreError) {
        // Numbers, written into the statement as numbers (a few a round).
        let kept = keeping.filter { $0 <= seq }.sorted().map(String.init).joined(separator: ",")
        let spared = kept.isEmpty ? "" : " AND seq NOT IN (\(kept))"
        try write { db in try db.execute(sql: "DELETE FROM syncOutbox WHERE seq <= ?" + spared, arguments: [seq]) }
    }

    // MARK: - Joining and status

    /// Marks the kiosk as part of a site and queues everything it already has, in one transaction.
    public func markJoined() throws(StoreError) {
        let now = clock.now()
        try write { db in
            if try Bool.fetchOne(db, sql: "SELECT joined FROM syncState WHERE id = 1") == true { return }
            try db.execute(sql: "UPDATE syncState SET joined = 1, cursor = 0 WHERE id = 1")
            var bodies: [SyncChange.Body] = []
            var ids: [UUID?] = []
            func add(_ body: SyncChange.Body, _ id: UUID? = nil) {
                bodies.append(body)
                ids.append(id)
            }
            var profiles: [Int64: UUID] = [:]
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM profile ORDER BY id") {
                guard let uuid = UUID(uuidString: row["syncId"]) else { continue }
                profiles[row["id"]] = uuid
                for body in Self.fieldChanges(profile: uuid, from: nil, to: row) { add(body) }
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId, finishedAt, syncId FROM readEvent ORDER BY id") {
                guard let profile = profiles[row["profileId"]] else { continue }
                add(.read(profile: profile, story: row["storyId"], finishedAt: row["finishedAt"]), UUID(uuidString: row["syncId"]))
            }
            for row in try GRDB.Row.fetchAll(
                db, sql: "SELECT profileId, storyId, finishedAt, wordsRead, wordsHelped, wordsSkipped, syncId FROM coachedRead ORDER BY id")
            {
                guard let profile = profiles[row["profileId"]] else { continue }
                add(
                    .coachedRead(
                        profile: profile, story: row["storyId"], finishedAt: row["finishedAt"], read: row["wordsRead"], helped: row["wordsHelped"],
                        skipped: row["wordsSkipped"]), UUID(uuidString: row["syncId"]))
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId, sentenceIndex FROM readingPosition") {
                guard let profile = profiles[row["profileId"]] else { continue }
                add(.position(profile: profile, story: row["storyId"], sentence: row["sentenceIndex"]))
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId FROM favourite") {
                guard let profile = profiles[row["profileId"]] else { continue }
                add(.favourite(profile: profile, story: row["storyId"], isFavourite: true))
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM bookmark ORDER BY createdAt") {
                guard let profile = profiles[row["profileId"]], let bookmark = Self.bookmark(row) else { continue }
                add(.bookmark(profile: profile, bookmark: bookmark, removed: false))
            }
            try Self.enqueue(bodies, ids: ids, titles: storyTitles, in: db, at: now)
        }
    }

    public func syncStatus() throws(StoreError) -> SyncStatus {
        try read { db in
            let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM syncState WHERE id = 1")
            // A try whose time cannot be read back (a row from before pulled changes were checked) is skipped.
            let failures = try GRDB.Row.fetchAll(db, sql: "SELECT rowid, kiosk, at FROM pinFailure ORDER BY at DESC").compactMap { row in
                damagedRows.decoding(row, table: "pinFailure") { row in
                    SyncStatus.PINFailure(kiosk: try row.decode(forColumn: "kiosk"), at: try row.decode(forColumn: "at"))
                }
            }
            return SyncStatus(
                joined: row?["joined"] ?? false, outbox: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncOutbox") ?? 0,
                cursor: row?["cursor"] ?? 0, lastSuccess: row?["lastSuccess"], lastError: row?["lastError"], lastMoved: row?["lastMoved"],
                clockWarning: row?["clockWarning"], pinFailures: failures,
                setAside: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncSetAside") ?? 0,
                lastSetAside: try String.fetchOne(db, sql: "SELECT reason FROM syncSetAside ORDER BY at DESC, rowid DESC LIMIT 1"))
        }
    }

    /// Whether this joined kiosk's last sync found its clock ahead of the server's. Asked before
    /// the background sync starts: its first round replaces what the last one found.
    public func clockIsAhead() -> Bool {
        guard let status = try? syncStatus(), status.joined, let warning = status.clockWarning else { return false }
        return warning != SyncClient.implausibleServerClock
    }

    /// What a kiosk whose clock is ahead (``clockIsAhead()``) says once as it starts: the grown-up
    /// hears it, and finds the numbers in `sync --status`.
    public static func clockNotice(_ messages: MessageCatalog) -> String {
        messages.tr("This computer's clock is wrong (ahead of the site's server): ask a grown-up to set it. Reads still reach the site.")
    }

    /// Records how a sync round ended (`error` nil: it succeeded, `moved` says what moved, and
    /// `clockWarning` what the server said of this machine's clock, kept until a round says otherwise).
    public func recordSyncOutcome(error: String?, moved: String? = nil, clockWarning: String? = nil) throws(StoreError) {
        let now = clock.now()
        try write { db in
            if let error {
                try db.execute(sql: "UPDATE syncState SET lastError = ? WHERE id = 1", arguments: [error])
            } else {
                try db.execute(
                    sql: "UPDATE syncState SET lastSuccess = ?, lastError = NULL, lastMoved = ?, clockWarning = ? WHERE id = 1",
                    arguments: [now, moved, clockWarning])
            }
        }
    }

    /// Adopts the server's clock offset (server minus local, in milliseconds). A clock that ran
    /// ahead of the server by more than the tolerance restarts from the server's time: its future
    /// stamps were not trusted anyway (the server re-stamped them).
    public func setClockOffset(millis: Int64) throws(StoreError) {
        let serverNow = HybridLogicalClock.millis(clock.now()).saturatingAdd(millis)
        try write { db in
            var clock = try Self.loadClock(in: db)
            clock.offsetMillis = millis
            if clock.last.millis > serverNow.saturatingAdd(ClockSkew.toleranceMillis) { clock.reset(to: serverNow) }
            try Self.saveClock(clock, in: db)
        }
    }

    static func loadClock(in db: Database) throws -> HybridLogicalClock {
        try HybridLogicalClock(storedText: try String.fetchOne(db, sql: "SELECT clock FROM syncState WHERE id = 1") ?? "")
    }

    /// How many changes were set aside as invalid (see ``SyncValidation``).
    public func setAsideCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncSetAside") ?? 0 }
    }

    public func syncCursor() throws(StoreError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT cursor FROM syncState WHERE id = 1") ?? 0 }
    }
}

extension StoryStore {
    /// This kiosk's view, comparable with another kiosk's and with ``SiteState/snapshot``.
    public func syncSnapshot() throws(StoreError) -> SyncSnapshot {
        try read { db in
            var snapshot = SyncSnapshot()
            var profiles: [Int64: String] = [:]
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM profile") {
                guard let id = UUID(uuidString: row["syncId"] ?? "") else { continue }
                profiles[row["id"]] = id.uuidString
                snapshot.profiles[id] = Self.syncedFields(of: row)
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId, syncId FROM readEvent") {
                guard let id = UUID(uuidString: row["syncId"] ?? ""), let profile = profiles[row["profileId"]] else { continue }
                snapshot.reads[id] = "\(profile)/\(row["storyId"] as String)"
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId, sentenceIndex FROM readingPosition") {
                guard let profile = profiles[row["profileId"]] else { continue }
                snapshot.positions["\(profile)/\(row["storyId"] as String)"] = row["sentenceIndex"]
            }
            for row in try GRDB.Row.fetchAll(db, sql: "SELECT profileId, storyId FROM favourite") {
                guard let profile = profiles[row["profileId"]] else { continue }
                snapshot.favourites.insert("\(profile)/\(row["storyId"] as String)")
            }
            return snapshot
        }
    }
}
