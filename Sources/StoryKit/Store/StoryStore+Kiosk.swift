public import Foundation
import GRDB

/// One kiosk session, for parents: who used it, when, what was read, what was blocked.
public struct KioskSessionRecord: Sendable, Hashable, Codable {
    public var id: Int64
    /// The profiles used, in order (more than one when a parent switched profile).
    public var profiles: [String]
    public var startedAt: Date
    /// Nil while the session runs (or when the program was killed without a chance to say so).
    public var endedAt: Date?
    /// Story ids opened for reading, in order.
    public var storiesRead: [String]
    /// Key presses and commands the kiosk refused (Ctrl-C, Ctrl-Z, escape sequences, `:quit` …).
    public var blockedKeys: Int
    /// How it ended: "pin" (a parent left), "signal", "input closed", "error"; nil while running.
    public var endReason: String?
    /// The kiosk of the site it ran on (its sync node, as `sync --status` names kiosks), for a
    /// session pulled from the site's log; nil for a session of this machine.
    public var kiosk: String?
}

extension StoreSchema {
    /// The kiosk log. Profile names are kept as text: a session stays in the log after a profile
    /// is renamed or removed.
    static func createKioskSessions(_ db: Database) throws {
        try db.create(table: "kioskSession") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("profiles", .text).notNull()  // JSON array of names
            t.column("startedAt", .datetime).notNull()
            t.column("endedAt", .datetime)
            t.column("storiesRead", .text).notNull()  // JSON array of story ids
            t.column("blockedKeys", .integer).notNull().defaults(to: 0)
            t.column("endReason", .text)
        }
        try db.create(index: "kioskSession_started", on: "kioskSession", columns: ["startedAt"])
    }
}

extension StoryStore {
    /// Starts a kiosk session in the log; returns its id.
    public func beginKioskSession(profile: String, at date: Date? = nil) throws(StoreError) -> Int64 {
        let startedAt = date ?? clock.now()
        return try write { db in
            try db.execute(
                sql: "INSERT INTO kioskSession (profiles, startedAt, storiesRead, blockedKeys, syncId) VALUES (?, ?, '[]', 0, ?)",
                arguments: [Self.json([profile]), startedAt, UUID().uuidString])
            let id = db.lastInsertedRowID
            try Self.enqueueKioskSession(id: id, in: db, at: startedAt)
            return id
        }
    }

    /// Updates a kiosk session as it goes, and closes it when `endReason` is given.
    public func updateKioskSession(
        id: Int64, profiles: [String], storiesRead: [String], blockedKeys: Int, endReason: String? = nil, at date: Date? = nil
    ) throws(StoreError) {
        let now = date ?? clock.now()
        let endedAt: Date? = endReason == nil ? nil : now
        try write { db in
            try db.execute(
                sql: "UPDATE kioskSession SET profiles = ?, storiesRead = ?, blockedKeys = ?, endReason = ?, endedAt = ? WHERE id = ?",
                arguments: [Self.json(profiles), Self.json(storiesRead), blockedKeys, endReason, endedAt, id])
            try Self.enqueueKioskSession(id: id, in: db, at: now)
        }
    }

    /// Kiosk sessions, newest first; only those that used `profile` when given.
    public func kioskSessions(profile: String? = nil, limit: Int? = nil) throws(StoreError) -> [KioskSessionRecord] {
        let all = try read { db in
            // A session whose values cannot be read back (pulled before pulled changes were checked)
            // is reported and skipped.
            try GRDB.Row.fetchAll(db, sql: "SELECT * FROM kioskSession ORDER BY startedAt DESC, id DESC").compactMap { row in
                damagedRows.decoding(row, table: "kioskSession") { row in
                    KioskSessionRecord(
                        id: try row.decode(forColumn: "id"), profiles: Self.strings(try row.decode(forColumn: "profiles")),
                        startedAt: try row.decode(forColumn: "startedAt"), endedAt: try row.decode(forColumn: "endedAt"),
                        storiesRead: Self.strings(try row.decode(forColumn: "storiesRead")), blockedKeys: try row.decode(forColumn: "blockedKeys"),
                        endReason: try row.decode(forColumn: "endReason"), kiosk: try row.decode(forColumn: "kiosk"))
                }
            }
        }
        let folded = profile?.lowercased()
        let matching = folded.map { name in all.filter { $0.profiles.contains { $0.lowercased() == name } } } ?? all
        return limit.map { Array(matching.prefix($0)) } ?? matching
    }

    /// Queues the session's current line for the site-wide log (append-only: a newer version of the
    /// same session replaces the older one everywhere).
    static func enqueueKioskSession(id: Int64, in db: Database, at now: Date) throws {
        guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM kioskSession WHERE id = ?", arguments: [id]),
            let session = UUID(uuidString: row["syncId"] ?? "")
        else { return }
        let record = KioskSessionRecord(
            id: id, profiles: strings(row["profiles"]), startedAt: row["startedAt"], endedAt: row["endedAt"],
            storiesRead: strings(row["storiesRead"]), blockedKeys: row["blockedKeys"], endReason: row["endReason"])
        let node = try String.fetchOne(db, sql: "SELECT node FROM syncState WHERE id = 1") ?? "kiosk"
        let text = String(decoding: try JSONEncoder.sync.encode(record), as: UTF8.self)
        try enqueue([.kioskSession(session: session, kiosk: row["kiosk"] ?? node, record: text)], in: db, at: now)
    }

    static func json(_ strings: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(strings), as: UTF8.self)) ?? "[]"
    }

    static func strings(_ text: String?) -> [String] {
        guard let text, let decoded = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { return [] }
        return decoded
    }
}
