import Foundation
import GRDB

/// Proof that the parental PIN was typed (or that none is set). Only ``StoryStore/authorize(pin:)``
/// makes one, and the store's profile changes ask for it, so no caller can skip the PIN.
public struct ParentalAuthorization: Sendable {
    let databasePath: String
    fileprivate init(databasePath: String) { self.databasePath = databasePath }
}

extension StoryStore {
    /// Whether a parental PIN is set.
    public func isPINSet() throws(StoreError) -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT hash IS NOT NULL FROM parentalLock WHERE id = 1") ?? false }
    }

    /// The wrong-try counter and lockout as stored.
    public func pinLockout() throws(StoreError) -> PINLockout {
        try read { db in try Self.lockout(in: db) }
    }

    /// Authorizes a parent's change: succeeds at once when no PIN is set; otherwise checks `pin`.
    ///
    /// - Throws: ``StoreError/pinRequired`` when a PIN is set and none was given; the errors of
    ///   ``verifyPIN(_:)`` otherwise.
    public func authorize(pin: String?) throws(StoreError) -> ParentalAuthorization {
        if try isPINSet() {
            guard let pin else { throw .pinRequired }
            try verifyPIN(pin)
        }
        return ParentalAuthorization(databasePath: path)
    }

    /// Checks a typed PIN against the stored hash, counting wrong tries and locking after 5.
    ///
    /// - Throws: ``StoreError/noPINSet``, ``StoreError/pinLocked(remaining:)`` (nothing is compared
    ///   while locked), ``StoreError/pinFormat(_:)`` (not counted as a try), or
    ///   ``StoreError/wrongPIN(triesLeftBeforeLockout:lockedFor:)``.
    public func verifyPIN(_ typed: String) throws(StoreError) {
        guard let stored = try storedPIN() else { throw .noPINSet }
        let lockout = try pinLockout()
        let remaining = lockout.remaining(at: clock.now())
        if remaining > 0 { throw .pinLocked(remaining: remaining) }

        // A PIN of the wrong shape cannot match: say what a PIN looks like, without counting a try.
        let pin: String
        do { pin = try ParentalPIN.validate(typed) } catch { throw .pinFormat(error) }
        let matches = (try? stored.matches(pin)) ?? false
        let now = clock.now()
        let after = try write { db -> PINLockout in
            let current = try Self.lockout(in: db)
            let next = matches ? PINLockout() : current.recordingFailure(at: now)
            try db.execute(
                sql: "UPDATE parentalLock SET failedAttempts = ?, lockedUntil = ? WHERE id = 1",
                arguments: [next.failedAttempts, next.lockedUntil])
            // The lockout stays on this kiosk; the failed try goes to the site's log.
            if !matches, try Self.isJoined(db), let node = try String.fetchOne(db, sql: "SELECT node FROM syncState WHERE id = 1") {
                let id = UUID()
                try Self.enqueue([.failedPIN(kiosk: node, at: now)], ids: [id], in: db, at: now)
                try db.execute(sql: "INSERT INTO pinFailure (syncId, kiosk, at) VALUES (?, ?, ?)", arguments: [id.uuidString, node, now])
            }
            return next
        }
        if matches { return }
        let left = max(0, PINLockout.freeTries - after.failedAttempts)
        throw .wrongPIN(triesLeftBeforeLockout: left, lockedFor: after.lockedUntil.map { $0.timeIntervalSince(now) })
    }

    /// Sets the PIN when none is set.
    public func setPIN(_ newPIN: String) throws(StoreError) {
        let pin: String
        do { pin = try ParentalPIN.validate(newPIN) } catch { throw .pinFormat(error) }
        let hash: PINHash
        do { hash = try PINHash.make(pin: pin, cost: pinCost) } catch { throw .unreadable(path: path, reason: "cannot hash the PIN: \(error)") }
        let now = clock.now()
        // A joined kiosk sets the site's PIN: only with the server's agreement (see `writeAgreed`).
        try writeAgreed(.setPIN) { (db: Database) throws -> Result<Void, StoreError> in
            if try Bool.fetchOne(db, sql: "SELECT hash IS NOT NULL FROM parentalLock WHERE id = 1") ?? false { return .failure(.pinAlreadySet) }
            try Self.store(hash, in: db)
            try Self.enqueueSitePIN(hash, in: db, at: now)
            return .success(())
        }
    }

    /// Replaces the PIN after checking the current one.
    public func changePIN(current: String, to newPIN: String) throws(StoreError) {
        let pin: String
        do { pin = try ParentalPIN.validate(newPIN) } catch { throw .pinFormat(error) }
        try verifyPIN(current)
        let hash: PINHash
        do { hash = try PINHash.make(pin: pin, cost: pinCost) } catch { throw .unreadable(path: path, reason: "cannot hash the PIN: \(error)") }
        let now = clock.now()
        try writeAgreed(.changePIN) { (db: Database) throws -> Result<Void, StoreError> in
            try Self.store(hash, in: db)
            try Self.enqueueSitePIN(hash, in: db, at: now)
            return .success(())
        }
    }

    /// Removes the PIN after checking it.
    public func clearPIN(current: String) throws(StoreError) {
        try verifyPIN(current)
        let now = clock.now()
        try writeAgreed(.clearPIN) { (db: Database) throws -> Result<Void, StoreError> in
            try db.execute(sql: "DELETE FROM parentalLock")
            try Self.enqueueSitePIN(nil, in: db, at: now)
            return .success(())
        }
    }

    /// How the site's PIN travels: the hash and its parameters, never the PIN.
    struct SitePIN: Codable {
        var algorithm: String
        var salt: Data
        var key: Data
        var cost: PINHashCost
    }

    /// Queues the site's PIN (nil: cleared) when joined; `writeAgreed` sends it to the server first.
    static func enqueueSitePIN(_ hash: PINHash?, in db: Database, at now: Date) throws {
        let record = try hash.map { hash in
            String(decoding: try JSONEncoder.sync.encode(SitePIN(algorithm: PINHash.algorithm, salt: hash.salt, key: hash.key, cost: hash.cost)), as: UTF8.self)
        }
        try enqueue([.pinHash(record: record)], in: db, at: now)
    }

    /// Takes the site's PIN pulled from the server, keeping this kiosk's wrong-try count and lockout.
    static func applySitePIN(_ record: String?, in db: Database) throws {
        guard let record else {
            try db.execute(sql: "DELETE FROM parentalLock")
            return
        }
        guard let pin = try? JSONDecoder.sync.decode(SitePIN.self, from: Data(record.utf8)), pin.algorithm == PINHash.algorithm else { return }
        try db.execute(
            sql: """
                INSERT INTO parentalLock (id, algorithm, salt, hash, rounds, blockSize, parallelism, failedAttempts, lockedUntil)
                VALUES (1, ?, ?, ?, ?, ?, ?, 0, NULL)
                ON CONFLICT (id) DO UPDATE SET algorithm = excluded.algorithm, salt = excluded.salt, hash = excluded.hash,
                rounds = excluded.rounds, blockSize = excluded.blockSize, parallelism = excluded.parallelism
                """,
            arguments: [pin.algorithm, pin.salt, pin.key, pin.cost.rounds, pin.cost.blockSize, pin.cost.parallelism])
    }

    func storedPIN() throws(StoreError) -> PINHash? {
        try read { db in
            guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM parentalLock WHERE id = 1 AND hash IS NOT NULL") else { return nil }
            // Throwing decodes, not GRDB's subscripts, which stop the program on a value of the
            // wrong type: a damaged PIN row is an error to report, not a crash (issue 33).
            let cost = PINHashCost(
                rounds: try row.decode(Int.self, forColumn: "rounds"), blockSize: try row.decode(Int.self, forColumn: "blockSize"),
                parallelism: try row.decode(Int.self, forColumn: "parallelism"))
            guard cost.isSane else {
                throw StoreError.unreadable(
                    path: path,
                    reason: "the parental PIN's stored cost (N \(cost.rounds), r \(cost.blockSize), p \(cost.parallelism)) is not one this program writes")
            }
            return PINHash(salt: try row.decode(Data.self, forColumn: "salt"), key: try row.decode(Data.self, forColumn: "hash"), cost: cost)
        }
    }

    static func store(_ hash: PINHash, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO parentalLock (id, algorithm, salt, hash, rounds, blockSize, parallelism, failedAttempts, lockedUntil)
                VALUES (1, ?, ?, ?, ?, ?, ?, 0, NULL)
                """,
            arguments: [PINHash.algorithm, hash.salt, hash.key, hash.cost.rounds, hash.cost.blockSize, hash.cost.parallelism])
    }

    static func lockout(in db: Database) throws -> PINLockout {
        guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT failedAttempts, lockedUntil FROM parentalLock WHERE id = 1") else {
            return PINLockout()
        }
        return PINLockout(
            failedAttempts: try row.decode(Int.self, forColumn: "failedAttempts"),
            lockedUntil: try row.decode(Date?.self, forColumn: "lockedUntil"))
    }

    /// Refuses an authorization made for another database file.
    func check(_ authorization: ParentalAuthorization) throws(StoreError) {
        if authorization.databasePath != path { throw .pinRequired }
    }
}
