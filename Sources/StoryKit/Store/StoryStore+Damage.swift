import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

extension StoryStore {
    /// What to tell the user of a store opened read-only (nil when it can be written).
    ///
    /// - Parameter keepingReads: for a reading session, whose finished reads, places and
    ///   favourites are kept for a later start (``PendingChanges``) when that can be done.
    public func readOnlyNotice(_ messages: MessageCatalog, keepingReads: Bool = false) -> String? {
        guard let readOnlyReason else { return nil }
        let reason = readOnlyReason.localized(messages)
        guard keepingReads, pending.url != nil, Self.cannotWrite(readOnlyReason) else {
            return messages.tr("opened read-only, nothing can be saved: {reason}", ["reason": reason])
        }
        return messages.tr("opened read-only: {reason}", ["reason": SpokenForm.finish(reason)]) + " "
            + messages.tr("Reads, places and favourites are kept, and saved the next time storyreader starts with room.")
    }

    /// What the database holds, by table, as a parent names it: what a damaged file still reads.
    static let parts: [(table: String, name: String)] = [
        ("profile", N_("profiles")), ("readEvent", N_("finished reads")), ("readingPosition", N_("reading positions")),
        ("favourite", N_("favourites")), ("parentalLock", N_("the parental PIN")), ("kioskSession", N_("kiosk sessions")),
        ("syncOutbox", N_("changes waiting to sync")),
    ]

    /// `.damaged` when the SQLite file at `path` fails `PRAGMA quick_check`, with the parts that
    /// still read whole; nil when it passes (or cannot be looked at, which opening then reports).
    /// Read-only: nothing is written to the file.
    static func damage(path: String) -> StoreError? {
        var configuration = Configuration()
        configuration.label = "storyreader.check"
        let reader: DatabasePool
        do {
            reader = try readOnlyPool(path: path, configuration: configuration)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // An SQLite header over pages that do not read: damaged, and nothing of it reads.
            return .damaged(path: path, problem: error.message ?? "\(error.resultCode)", readable: [], unreadable: parts.map(\.name))
        } catch {
            return nil
        }
        var problems: [String]
        do {
            problems = try reader.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        } catch {
            problems = [(error as? DatabaseError)?.message ?? "\(error)"]
        }
        guard problems != ["ok"] else { return nil }
        var readable: [String] = []
        var unreadable: [String] = []
        for part in parts {
            do {
                let exists = try reader.read { db in
                    guard try db.tableExists(part.table) else { return false }
                    // Every row, so that every page of the table is read.
                    let rows = try GRDB.Row.fetchCursor(db, sql: "SELECT * FROM \(part.table)")
                    while try rows.next() != nil {}
                    return true
                }
                if exists { readable.append(part.name) }
            } catch {
                unreadable.append(part.name)
            }
        }
        let problem = problems.prefix(3).flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("***") }.prefix(3).joined(separator: "; ")
        return .damaged(path: path, problem: problem, readable: readable, unreadable: unreadable)
    }

    /// `.foreignDatabase` when the SQLite file at `path` holds another program's tables and none of
    /// storyreader's (its migration log lacks our first migration): opening it for writing would add
    /// our tables to it and switch it to WAL mode. An SQLite file without tables is taken (nothing
    /// in it to lose); nil too when it cannot be read (opening then reports why). Read-only.
    static func foreign(path: String) -> StoreError? {
        var configuration = Configuration()
        configuration.label = "storyreader.check"
        guard let reader = try? readOnlyPool(path: path, configuration: configuration) else { return nil }
        let first = StoreSchema.firstMigration
        let tables = try? reader.read { db -> [String]? in
            let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            if names.isEmpty { return nil }
            if names.contains("grdb_migrations"),
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)", arguments: [first]) == true
            {
                return nil
            }
            return names
        }
        guard let found = tables ?? nil else { return nil }
        let shown = found.prefix(5).map { Sanitizer.quote($0) }.joined(separator: ", ") + (found.count > 5 ? ", …" : "")
        return .foreignDatabase(path: path, tables: shown)
    }

    /// The database at `path` opened with `configuration` made read-only. Where SQLite cannot
    /// make its shared-memory file (a read-only folder, a full disk), the file is read as one
    /// nobody changes, which is right only when no write-ahead log holds changes not yet in it:
    /// with one, the error stands (reading without it would hide the newest reads).
    static func readOnlyPool(path: String, configuration: Configuration) throws -> DatabasePool {
        var configuration = configuration
        configuration.readonly = true
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return pool
        } catch {
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
            guard wal == 0 else { throw error }
            return try DatabasePool(path: immutableURI(path), configuration: configuration)
        }
    }

    /// SQLite's URI for `path` opened read-only as a file nobody changes (no lock, no shared
    /// memory, no log).
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro&immutable=1"
    }
}

/// The exclusive `flock` on `storyreader.lock` held while the database is opened and migrated, so
/// that two processes opening a fresh database at once both succeed.
struct DataFolderLock {
    private let descriptor: Int32
    /// Why the lock was not taken (a read-only open goes on without it, and writes nothing).
    let problem: StoreError?

    /// Makes the data folder when missing and takes the lock. `readOnly`: for a read-only open,
    /// a lock file that cannot be made (a read-only folder) is done without.
    init(folder: URL, lockPath: String, readOnly: Bool) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .dataFolderNotWritable(path: folder.path, reason: StoryStore.whyNotCreatable(folder))
        }
        var descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // flock needs no write permission: a lock file this user may only read still locks.
        if descriptor < 0, errno == EACCES { descriptor = Glibc.open(lockPath, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            let problem: StoreError =
                FileManager.default.fileExists(atPath: lockPath)
                ? .fileNotReadable(path: lockPath, reason: reason)
                : .dataFolderNotWritable(path: folder.path, reason: reason)
            guard readOnly else { throw problem }
            self.descriptor = -1
            self.problem = problem
            return
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw .unreadable(path: lockPath, reason: "cannot lock: \(reason)")
            }
        }
        self.descriptor = descriptor
        problem = nil
    }

    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        Glibc.close(descriptor)
    }
}
