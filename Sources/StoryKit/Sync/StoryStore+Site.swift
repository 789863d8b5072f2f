public import Foundation
import GRDB

/// A change that needs the site's server when the kiosk joined one.
public enum SiteAction: Sendable, Hashable {
    case addProfile, renameProfile, removeProfile, setPIN, changePIN, clearPIN

    /// What the refusal calls it, in English; translated where the refusal is shown.
    public var words: String {
        switch self {
        case .addProfile: N_("adding a profile")
        case .renameProfile: N_("renaming a profile")
        case .removeProfile: N_("removing a profile")
        case .setPIN: N_("setting the parental PIN")
        case .changePIN: N_("changing the parental PIN")
        case .clearPIN: N_("clearing the parental PIN")
        }
    }
}

extension SiteChoice {
    /// Which server a store asks: the one chosen with ``StoryStore/useSiteAuthority(_:)``, else the
    /// one in the data folder's `sync.json` (read each time: `sync join` may write it while the store
    /// is open).
    func authority(dataDirectory: URL, clock: WallClock) throws(StoreError) -> (any SiteAuthority)? {
        let (isChosen, value) = choice
        if isChosen { return value as? any SiteAuthority }
        return try SyncClient.load(from: dataDirectory).map { SyncClient(settings: $0, clock: clock) }
    }
}

extension StoryStore {
    /// The data folder (where `sync.json` is, when the kiosk joined a site).
    public var dataDirectory: URL { databaseURL.deletingLastPathComponent() }

    /// Chooses the server asked before profile and PIN changes of a joined kiosk (tests; nil: none
    /// can be reached). Without this call the store uses `sync.json` in its data folder.
    public func useSiteAuthority(_ authority: (any SiteAuthority)?) {
        siteLink.choose(authority)
    }

    /// Whether this kiosk belongs to a site.
    public func isJoined() throws(StoreError) -> Bool {
        try read { db in try Self.isJoined(db) }
    }

    static func isJoined(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT joined FROM syncState WHERE id = 1") ?? false
    }

    /// Writes a change every kiosk of the site must agree on.
    ///
    /// On a machine that never joined a site this is an ordinary write. On a joined kiosk, `body`
    /// first runs in a transaction that is rolled back, to learn the changes it would queue (a local
    /// refusal such as a bad name stops there); the site's server is asked to store them; only then
    /// does `body` run for real, and its queued changes take the ids the server already has. With no
    /// answer, or a refusal, nothing changes here or there.
    ///
    /// - Throws: the body's ``StoreError``, ``StoreError/siteUnreachable(action:reason:)`` or
    ///   ``StoreError/siteRefused(action:reason:)``.
    func writeAgreed<T>(_ action: SiteAction, _ body: (Database) throws -> Result<T, StoreError>) throws(StoreError) -> T {
        guard try isJoined() else { return try write(body).get() }
        guard let authority = try siteLink.authority(dataDirectory: dataDirectory, clock: clock) else {
            throw .siteUnreachable(action: action.words, reason: "its server settings (\(SyncSettings.fileName)) are missing: join the site again")
        }
        let trial: (Result<T, StoreError>, [SyncChange]) = try writeRolledBack { db in
            let before = try Self.lastOutboxSeq(in: db)
            let result = try body(db)
            return (result, try Self.outboxChanges(after: before, in: db).map(\.change))
        }
        _ = try trial.0.get()
        let agreed = trial.1
        if !agreed.isEmpty {
            do {
                try authority.agree(agreed)
            } catch {
                switch error {
                case .unreachable(let why): throw .siteUnreachable(action: action.words, reason: why)
                case .refused(let why): throw .siteRefused(action: action.words, reason: why)
                }
            }
        }
        return try write { db -> Result<T, StoreError> in
            let before = try Self.lastOutboxSeq(in: db)
            let result = try body(db)
            if case .success = result { try Self.adopt(agreed, after: before, in: db) }
            return result
        }.get()
    }

    /// A write transaction that is always rolled back (what a write would do, without doing it).
    func writeRolledBack<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .rollback
                }
                guard let result else { throw StoreError.unreadable(path: path, reason: "a trial write gave no result") }
                return result
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    static func lastOutboxSeq(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM syncOutbox") ?? 0
    }

    static func outboxChanges(after seq: Int64, in db: Database) throws -> [(seq: Int64, change: SyncChange)] {
        try GRDB.Row.fetchAll(db, sql: "SELECT seq, change FROM syncOutbox WHERE seq > ? ORDER BY seq", arguments: [seq]).map { row in
            (row["seq"], try JSONDecoder.sync.decode(SyncChange.self, from: Data((row["change"] as String).utf8)))
        }
    }

    /// The server already stored `agreed`: when the real write queued the same changes (same bodies,
    /// same clock: nothing moved in between), they are the server's, so they leave the outbox and the
    /// registers remember the server's ids. Otherwise the real write's changes stay queued (sending
    /// them again is harmless: the server keeps each id once, and equal stamps change nothing).
    static func adopt(_ agreed: [SyncChange], after seq: Int64, in db: Database) throws {
        let made = try outboxChanges(after: seq, in: db)
        guard made.count == agreed.count,
            zip(made, agreed).allSatisfy({ $0.change.body == $1.body && $0.change.hlc == $1.hlc })
        else { return }
        try db.execute(sql: "DELETE FROM syncOutbox WHERE seq > ?", arguments: [seq])
        for change in agreed {
            if let key = change.registerKey { try setRegister(key, change.hlc, change: change.id, in: db) }
        }
    }
}
