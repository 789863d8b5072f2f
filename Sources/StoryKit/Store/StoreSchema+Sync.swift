import Crypto
public import Foundation
import GRDB

extension StoreSchema {
    /// Sync identities for rows other machines will see, the outbox, and the merge bookkeeping.
    ///
    /// Profiles that exist before this migration get a UUID derived from their name, so two kiosks
    /// that each had "Mia" (or the default profile) before joining a site meet as one child.
    static func createSyncTables(_ db: Database) throws {
        try db.alter(table: "profile") { t in t.add(column: "syncId", .text) }
        for row in try GRDB.Row.fetchAll(db, sql: "SELECT id, nameKey FROM profile") {
            let key: String = row["nameKey"]
            try db.execute(
                sql: "UPDATE profile SET syncId = ? WHERE id = ?", arguments: [SyncIdentity.profile(nameKey: key).uuidString, row["id"] as Int64])
        }
        try db.create(index: "profile_syncId", on: "profile", columns: ["syncId"], unique: true)
        try db.alter(table: "readEvent") { t in t.add(column: "syncId", .text) }
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM readEvent") {
            try db.execute(sql: "UPDATE readEvent SET syncId = ? WHERE id = ?", arguments: [UUID().uuidString, id])
        }
        try db.create(index: "readEvent_syncId", on: "readEvent", columns: ["syncId"], unique: true)
        try db.alter(table: "kioskSession") { t in
            t.add(column: "syncId", .text)
            // The kiosk that ran the session (nil: this one).
            t.add(column: "kiosk", .text)
        }
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM kioskSession") {
            try db.execute(sql: "UPDATE kioskSession SET syncId = ? WHERE id = ?", arguments: [UUID().uuidString, id])
        }
        // Changes not yet confirmed by the server, oldest first (JSON of `SyncChange`).
        try db.create(table: "syncOutbox") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("change", .text).notNull()
        }
        // One row: whether this kiosk belongs to a site, its clock, and how far it has pulled.
        try db.create(table: "syncState") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("joined", .boolean).notNull().defaults(to: false)
            t.column("node", .text).notNull()
            t.column("clock", .text).notNull()
            t.column("cursor", .integer).notNull().defaults(to: 0)
            t.column("lastSuccess", .datetime)
            t.column("lastError", .text)
            t.column("lastMoved", .text)
        }
        let node = String(UUID().uuidString.prefix(8)).lowercased()
        let clock = try String(decoding: JSONEncoder().encode(HybridLogicalClock(node: node)), as: UTF8.self)
        try db.execute(sql: "INSERT INTO syncState (id, node, clock) VALUES (1, ?, ?)", arguments: [node, clock])
        // The clock of the last write applied to each last-writer-wins register (positions, favourites,
        // profile fields), so a pulled change older than a local one is ignored.
        try db.create(table: "syncRegister") { t in
            t.primaryKey("key", .text)
            t.column("hlc", .text).notNull()
            // The change that wrote it: when the server re-stamps a change from a clock it does not
            // trust, the kiosk that made it takes the server's stamp for it too.
            t.column("changeId", .text)
        }
        // Profiles removed anywhere on the site: edits arriving later for them are dropped.
        try db.create(table: "syncTombstone") { t in t.primaryKey("profile", .text) }
    }
}

extension StoreSchema {
    /// What sharing a site needs beyond v4: a child's site name where it clashes with a child of
    /// this kiosk, the site's wrong-PIN log, and the server's last clock warning.
    static func createSiteTables(_ db: Database) throws {
        // The site's name of the child when this kiosk shows it under another one ("Mia (2)"):
        // two children of one name pulled from the site must not stop every later pull.
        try db.alter(table: "profile") { t in t.add(column: "siteName", .text) }
        // Wrong PIN tries on every kiosk of the site (the lockout itself stays per kiosk).
        try db.create(table: "pinFailure") { t in
            t.primaryKey("syncId", .text)
            t.column("kiosk", .text).notNull()
            t.column("at", .datetime).notNull()
        }
        try db.alter(table: "syncState") { t in t.add(column: "clockWarning", .text) }
    }
}

extension StoreSchema {
    /// Changes set aside: pulled from the site but invalid (see ``SyncValidation``), or refused by
    /// the site's server when sent. Kept whole (nothing is lost, a grown-up can look), counted in
    /// `sync --status`, and never stored in the tables nor sent again.
    static func createSetAsideTable(_ db: Database) throws {
        try db.create(table: "syncSetAside") { t in
            t.primaryKey("changeId", .text)
            // "received" (pulled) or "sent" (refused by the server).
            t.column("direction", .text).notNull()
            t.column("reason", .text).notNull()
            t.column("change", .text).notNull()
            t.column("at", .datetime).notNull()
        }
    }
}

/// How rows get their site-wide identity.
public enum SyncIdentity {
    /// A UUID derived from a profile's name key (version 5 style, SHA-1 of a fixed prefix and the key).
    public static func profile(nameKey: String) -> UUID {
        var bytes = Array(Insecure.SHA1.hash(data: Data(("storyreader-profile:" + nameKey).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
