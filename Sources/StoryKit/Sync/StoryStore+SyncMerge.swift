public import Foundation
import GRDB

/// Merging changes pulled from the server into the local tables, by the rules of ``SiteState``:
/// reads are added once by UUID, registers take a change only when its clock is newer than the
/// last write they saw, and a tombstone removes a profile for good.
extension StoryStore {
    /// Applies pulled changes and moves the pull cursor to `cursor`, in one transaction.
    ///
    /// Each change is checked first (``SyncValidation``, at `serverMillis`, the server's time when
    /// it sent them, else this machine's): a bad one is set aside (kept in `syncSetAside`, counted
    /// in `sync --status`) and the others are applied, so one poisoned change neither reaches the
    /// tables nor stops every later pull. A change the tables still refuse (a constraint) is set
    /// aside the same way, its own part rolled back.
    ///
    /// - Returns: how many changes altered something here.
    @discardableResult
    public func applyPulled(_ changes: [SyncChange], cursor: Int64, serverMillis: Int64? = nil, unreadable: [String] = []) throws(StoreError) -> Int {
        let now = clock.now()
        let checkedAt = serverMillis ?? HybridLogicalClock.millis(now)
        return try write { db in
            // Changes of the page that did not even read as changes: only why is kept.
            for reason in unreadable {
                try db.execute(
                    sql: "INSERT INTO syncSetAside (changeId, direction, reason, change, at) VALUES (?, ?, ?, '', ?)",
                    arguments: ["unreadable-" + UUID().syncText, SetAsideDirection.received.rawValue, "not a change: " + reason, now])
            }
            var clock = try Self.loadClock(in: db)
            var applied = 0
            // Each child's row id, looked up once a page: a page is mostly reads of a few children.
            var children = LocalChildren()
            // Profiles first, so a read in the same batch finds its child.
            // A date to come (stored by a server before it told dates in its own time) is now.
            let dated = ClockSkew.datesCorrected(changes, kioskMillis: checkedAt, serverMillis: checkedAt)
            let ordered = dated.filter(\.isProfileChange) + dated.filter { !$0.isProfileChange }
            for change in ordered {
                if let reason = SyncValidation.problem(with: change, nowMillis: checkedAt) {
                    try Self.setAside(change, direction: .received, reason: reason, in: db, at: now)
                    continue
                }
                var changed = false
                do {
                    if case .read(let profile, let story, let finishedAt) = change.body {
                        // One statement, which SQLite undoes alone when it fails: no savepoint.
                        changed = try Self.applyRead(change.id, profile: profile, story: story, finishedAt: finishedAt, children: &children, in: db)
                    } else if case .position(let profile, let story, nil) = change.body {
                        // The position every finished read forgets: as often as reads, and no savepoint either.
                        changed = try Self.forgetPosition(change, profile: profile, story: story, children: &children, in: db)
                    } else {
                        try db.inSavepoint {
                            changed = try Self.apply(change, in: db)
                            return .commit
                        }
                        // A child may have come or gone.
                        children.forget()
                    }
                } catch let error as DatabaseError where [.SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_TOOBIG].contains(error.resultCode) {
                    try Self.setAside(
                        change, direction: .received, reason: "could not be stored here: \(error.message ?? "\(error.resultCode)")", in: db, at: now)
                    continue
                }
                clock.observe(change.hlc)
                if changed { applied += 1 }
            }
            try Self.saveClock(clock, in: db)
            try db.execute(sql: "UPDATE syncState SET cursor = MAX(cursor, ?) WHERE id = 1", arguments: [cursor])
            return applied
        }
    }

    /// Which way a change set aside was going.
    public enum SetAsideDirection: String, Sendable, Codable {
        /// Pulled from the site and invalid here.
        case received
        /// This kiosk's own, refused by the site's server (it stays in this kiosk's tables).
        case sent
    }

    /// Keeps a change that will not be stored nor sent again, with why (once per change id).
    static func setAside(_ change: SyncChange, direction: SetAsideDirection, reason: String, in db: Database, at now: Date) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO syncSetAside (changeId, direction, reason, change, at) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                change.id.syncText, direction.rawValue, String(reason.prefix(1000)),
                String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self), now,
            ])
    }

    /// Sets aside outbox entries the server refused (by their outbox numbers), in one transaction:
    /// they leave the outbox, so the rest of it can go.
    public func setAsideRefused(_ refused: [(seq: Int64, change: SyncChange, reason: String)]) throws(StoreError) {
        let now = clock.now()
        try write { db in
            for entry in refused {
                try Self.setAside(entry.change, direction: .sent, reason: entry.reason, in: db, at: now)
                try db.execute(sql: "DELETE FROM syncOutbox WHERE seq = ?", arguments: [entry.seq])
            }
        }
    }

    static func isTombstoned(_ profile: UUID, in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM syncTombstone WHERE profile = ?"), arguments: [profile.syncText]) != nil
    }

    /// The local row ids of the children a page's changes name (nil: not here, or removed for
    /// good), each read from the database once until a profile change makes them stale.
    struct LocalChildren {
        private var ids: [UUID: Int64?] = [:]

        mutating func id(of profile: UUID, in db: Database) throws -> Int64? {
            if let known = ids[profile] { return known }
            let id = try StoryStore.isTombstoned(profile, in: db) ? nil : StoryStore.localProfileID(profile, in: db)
            ids[profile] = id
            return id
        }

        mutating func forget() { ids.removeAll(keepingCapacity: true) }
    }

    /// A pulled finished read: added once by its change id (what most of a page is, so its
    /// statement is prepared once).
    static func applyRead(_ change: UUID, profile: UUID, story: String, finishedAt: Date, children: inout LocalChildren, in db: Database) throws -> Bool {
        guard let id = try children.id(of: profile, in: db) else { return false }
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO readEvent (profileId, storyId, finishedAt, syncId) VALUES (?, ?, ?, ?)")
            .execute(arguments: [id, story, databaseDate(finishedAt), change.syncText])
        return db.changesCount > 0
    }

    /// A pulled position that forgets where to resume (what every finished read sends with it):
    /// what ``apply(_:in:)`` does for it, with the child looked up once a page. Its two statements
    /// (the register, a DELETE) are ones no constraint refuses, so it needs no savepoint.
    static func forgetPosition(_ change: SyncChange, profile: UUID, story: String, children: inout LocalChildren, in db: Database) throws -> Bool {
        guard let id = try children.id(of: profile, in: db), try takesAtOnce(change, in: db) || takes(change, in: db) else { return false }
        try db.cachedStatement(sql: "DELETE FROM readingPosition WHERE profileId = ? AND storyId = ?").execute(arguments: [id, story])
        return true
    }

    /// A date as GRDB stores one ("yyyy-MM-dd HH:mm:ss.SSS", UTC, to the nearest millisecond as
    /// ICU rounds), written by hand: GRDB's `DateFormatter` (ICU) cost more than the rest of applying a
    /// pulled read. Dates outside 1970…9999 are left to GRDB.
    static func databaseDate(_ date: Date) -> DatabaseValue {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis >= 0, millis < 253_402_300_800_000 else { return date.databaseValue }
        let whole = Int64(millis)
        let days = whole / 86_400_000
        let ofDay = whole % 86_400_000
        // Year, month and day from days since 1970 (the proleptic Gregorian calendar, in eras of 400 years).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Written into 23 bytes in place: arrays of parts cost more than the arithmetic.
        let text = String(unsafeUninitializedCapacity: 23) { out in
            var at = 0
            func put(_ value: Int64, digits: Int, then separator: UInt8?) {
                var rest = value
                for place in stride(from: digits - 1, through: 0, by: -1) {
                    out[at + place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += digits
                if let separator {
                    out[at] = separator
                    at += 1
                }
            }
            put(year, digits: 4, then: UInt8(ascii: "-"))
            put(month, digits: 2, then: UInt8(ascii: "-"))
            put(day, digits: 2, then: UInt8(ascii: " "))
            put(ofDay / 3_600_000, digits: 2, then: UInt8(ascii: ":"))
            put(ofDay / 60000 % 60, digits: 2, then: UInt8(ascii: ":"))
            put(ofDay / 1000 % 60, digits: 2, then: UInt8(ascii: "."))
            put(ofDay % 1000, digits: 3, then: nil)
            return at
        }
        return text.databaseValue
    }

    /// ``takes(_:in:)`` in one statement, for the changes most of a page is: the register is
    /// written when it has no stamp yet, holds this same change, or holds an older stamp, compared
    /// as text. A checked change's stamp (``SyncValidation``: thirteen digits of milliseconds, six
    /// of counter, an ASCII node) sorts as text exactly as the stamps compare; a stored stamp not
    /// written that way is not compared here. False (nothing written) leaves the decision to
    /// ``takes(_:in:)``, which reads the register: the change lost, or the register was odd.
    static func takesAtOnce(_ change: SyncChange, in db: Database) throws -> Bool {
        guard let key = change.registerKey else { return true }
        try db.cachedStatement(
            sql: """
                INSERT INTO syncRegister (key, hlc, changeId) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET hlc = excluded.hlc, changeId = excluded.changeId
                WHERE syncRegister.changeId IS excluded.changeId
                    OR (syncRegister.hlc GLOB '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]:[0-9][0-9][0-9][0-9][0-9][0-9]:?*'
                        AND excluded.hlc > syncRegister.hlc)
                """
        ).execute(arguments: [key, change.hlc.description, change.id.syncText])
        return db.changesCount > 0
    }

    /// Whether a last-writer-wins change beats what this kiosk has; records its clock when it does.
    static func takes(_ change: SyncChange, in db: Database) throws -> Bool {
        guard let key = change.registerKey else { return true }
        let row = try GRDB.Row.fetchOne(db.cachedStatement(sql: "SELECT hlc, changeId FROM syncRegister WHERE key = ?"), arguments: [key])
        let current = (row?["hlc"] as String?).flatMap(HLCTimestamp.init)
        // The same change coming back (perhaps re-stamped by the server) takes the server's stamp.
        let sameChange = (row?["changeId"] as String?) == change.id.syncText
        guard sameChange || SiteState.wins(change.hlc, over: current) else { return false }
        try setRegister(key, change.hlc, change: change.id, in: db)
        return true
    }

    static func localProfileID(_ profile: UUID, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM profile WHERE syncId = ?"), arguments: [profile.syncText])
    }

    static func apply(_ change: SyncChange, in db: Database) throws -> Bool {
        if let profile = change.profile, try isTombstoned(profile, in: db) { return false }
        switch change.body {
        case .read(let profile, let story, let finishedAt):
            var children = LocalChildren()
            return try applyRead(change.id, profile: profile, story: story, finishedAt: finishedAt, children: &children, in: db)
        case .position(let profile, let story, let sentence):
            guard let id = try localProfileID(profile, in: db), try takes(change, in: db) else { return false }
            if let sentence {
                try db.execute(
                    sql: """
                        INSERT INTO readingPosition (profileId, storyId, sentenceIndex, updatedAt) VALUES (?, ?, ?, ?)
                        ON CONFLICT (profileId, storyId) DO UPDATE SET sentenceIndex = excluded.sentenceIndex, updatedAt = excluded.updatedAt
                        """, arguments: [id, story, sentence, databaseDate(Date(timeIntervalSince1970: Double(change.hlc.millis) / 1000))])
            } else {
                try db.execute(sql: "DELETE FROM readingPosition WHERE profileId = ? AND storyId = ?", arguments: [id, story])
            }
            return true
        case .favourite(let profile, let story, let isFavourite):
            guard let id = try localProfileID(profile, in: db), try takes(change, in: db) else { return false }
            if isFavourite {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO favourite (profileId, storyId, createdAt) VALUES (?, ?, ?)",
                    arguments: [id, story, Date(timeIntervalSince1970: Double(change.hlc.millis) / 1000)])
            } else {
                try db.execute(sql: "DELETE FROM favourite WHERE profileId = ? AND storyId = ?", arguments: [id, story])
            }
            return true
        case .bookmark(let profile, let bookmark, let removed):
            guard let id = try localProfileID(profile, in: db), try takes(change, in: db) else { return false }
            if removed {
                try db.execute(sql: "DELETE FROM bookmark WHERE id = ?", arguments: [bookmark.id.uuidString])
            } else {
                try putBookmark(bookmark, profileID: id, in: db)
            }
            return true
        case .profileField(let profile, let field, let value):
            guard syncedProfileFields.contains(field), try takes(change, in: db) else { return false }
            if try localProfileID(profile, in: db) == nil {
                // A child first seen here: defaults until its fields arrive (its name comes in the same batch).
                var placeholder = ChildProfile.defaultProfile
                placeholder.name = try freeName("Child " + String(profile.syncText.prefix(8)), for: profile, in: db)
                let id = try insertProfile(placeholder, in: db, at: Date(timeIntervalSince1970: Double(change.hlc.millis) / 1000))
                try db.execute(sql: "UPDATE profile SET syncId = ? WHERE id = ?", arguments: [profile.syncText, id])
            }
            if field == "name" {
                try applyName(value, to: profile, in: db)
            } else {
                // `field` is one of the known column names (checked above), never text from the wire.
                try db.execute(sql: "UPDATE profile SET \(field) = ? WHERE syncId = ?", arguments: [value, profile.syncText])
            }
            return true
        case .coachedRead(let profile, let story, let finishedAt, let read, let helped, let skipped):
            guard let id = try localProfileID(profile, in: db) else { return false }
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO coachedRead (profileId, storyId, finishedAt, wordsRead, wordsHelped, wordsSkipped, syncId)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, story, databaseDate(finishedAt), read, helped, skipped, change.id.syncText])
            return db.changesCount > 0
        case .readRemoved(_, let read):
            // The site's log holds a read before its removal (the page removes only a read it
            // shows), and a kiosk applies the log in order.
            try db.execute(sql: "DELETE FROM readEvent WHERE syncId = ?", arguments: [read.syncText])
            return db.changesCount > 0
        case .profileRemoved(let profile):
            try db.execute(sql: "INSERT OR IGNORE INTO syncTombstone (profile) VALUES (?)", arguments: [profile.syncText])
            if let id = try localProfileID(profile, in: db) {
                for table in ["readEvent", "coachedRead", "readingPosition", "favourite", "bookmark"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE profileId = ?", arguments: [id])
                }
                try db.execute(sql: "DELETE FROM profile WHERE id = ?", arguments: [id])
            }
            return true
        case .kioskSession(let session, let kiosk, let record):
            guard let decoded = try? JSONDecoder.sync.decode(KioskSessionRecord.self, from: Data(record.utf8)),
                try takes(change, in: db)
            else { return false }
            // Updated in place, never deleted and inserted again: a session still running here is
            // written by its row id, and a new id would make its end and its reads vanish.
            try db.execute(
                sql: """
                    UPDATE kioskSession SET profiles = ?, startedAt = ?, endedAt = ?, storiesRead = ?, blockedKeys = ?, endReason = ?
                    WHERE syncId = ?
                    """,
                arguments: [
                    json(decoded.profiles), decoded.startedAt, decoded.endedAt, json(decoded.storiesRead), decoded.blockedKeys,
                    decoded.endReason, session.syncText,
                ])
            if db.changesCount == 0 {
                try db.execute(
                    sql: """
                        INSERT INTO kioskSession (profiles, startedAt, endedAt, storiesRead, blockedKeys, endReason, syncId, kiosk)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        json(decoded.profiles), decoded.startedAt, decoded.endedAt, json(decoded.storiesRead), decoded.blockedKeys,
                        decoded.endReason, session.syncText, kiosk,
                    ])
            }
            return true
        case .failedPIN(let kiosk, let at):
            // For the site's log (`sync --status`); the lockout stays per kiosk.
            try db.execute(
                sql: "INSERT OR IGNORE INTO pinFailure (syncId, kiosk, at) VALUES (?, ?, ?)", arguments: [change.id.syncText, kiosk, at])
            return db.changesCount > 0
        case .pinHash(let record):
            // The site's PIN, set on a kiosk that reached the server (the server takes it no other way).
            guard try takes(change, in: db) else { return false }
            try applySitePIN(record, in: db)
            return true
        }
    }

    /// Gives a child its site name, unless another child here already has that name: a second
    /// "Mia" pulled from the site (made on kiosks before they joined, or before the server checked
    /// names) would break the local unique name and roll back the whole pull, so every later pull
    /// would fail. It is shown here as "Mia (2)" and keeps "Mia" as its site name, so what this
    /// kiosk sends and compares is still the site's.
    static func applyName(_ value: String?, to profile: UUID, in db: Database) throws {
        guard let value else { return }  // a name is never empty; nothing to show
        let shown = try freeName(value, for: profile, in: db)
        try db.execute(
            sql: "UPDATE profile SET name = ?, nameKey = ?, siteName = ? WHERE syncId = ?",
            arguments: [shown, ChildProfile.nameKey(shown), shown == value ? nil : value, profile.syncText])
    }

    /// `name` when no other child here has it (ignoring case and accents), else "name (2)", "name (3)" …
    static func freeName(_ name: String, for profile: UUID, in db: Database) throws -> String {
        func taken(_ candidate: String) throws -> Bool {
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM profile WHERE nameKey = ? AND syncId IS NOT ?",
                arguments: [ChildProfile.nameKey(candidate), profile.syncText]) != nil
        }
        if try !taken(name) { return name }
        var number = 2
        while try taken("\(name) (\(number))") { number += 1 }
        return "\(name) (\(number))"
    }
}

extension SyncChange {
    /// A profile field or a removal (what `POST /v1/sites/{site}/profiles` takes).
    public var isProfileChange: Bool {
        switch body {
        case .profileField, .profileRemoved: true
        default: false
        }
    }

    /// The site's PIN (what `POST /v1/sites/{site}/pin` takes, and only it).
    public var isPIN: Bool {
        if case .pinHash = body { return true }
        return false
    }
}

extension JSONEncoder {
    /// Dates as milliseconds: what the outbox, the wire and the server use.
    public static var sync: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension JSONDecoder {
    public static var sync: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
