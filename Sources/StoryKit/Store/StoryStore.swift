public import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// The embedded database: profiles, the parental PIN and lockout, and the reading log.
///
/// One SQLite file, `storyreader.sqlite`, in the data folder, opened as a GRDB `DatabasePool` in WAL
/// mode with a busy timeout, so several processes can read and write at once. Opening and migrating
/// happen under an exclusive `flock` on `storyreader.lock`, so two processes opening a fresh
/// database at the same moment both succeed.
public final class StoryStore: Sendable {
    public static let fileName = "storyreader.sqlite"
    public static let lockFileName = "storyreader.lock"
    /// The newest database version this program knows (the number of migrations).
    public static let schemaVersion = StoreSchema.migrator().migrations.count

    public let databaseURL: URL
    let pool: DatabasePool
    let clock: WallClock
    let pinCost: PINHashCost
    /// The site server asked before changes every kiosk must agree on (Sync's `SiteAuthority`).
    let siteLink = SiteChoice()
    /// Why the store was opened read-only (see `readOnlyFallback` of `init`): what every write
    /// answers. Nil when it can be written.
    public let readOnlyReason: StoreError?
    /// Rows that could not be read back (see ``DamagedRow``).
    let damagedRows = DamagedRowLog()
    /// Reads, places and favourites kept while the database could not be written.
    let pending: PendingChanges

    /// Opens (creating when needed) the database in `dataDirectory` and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - dataDirectory: the data folder; created when missing.
    ///   - clock: the time source for read timestamps and the PIN lockout.
    ///   - pinCost: the scrypt cost for PINs set through this store (small in tests).
    ///   - busyTimeout: how long a write waits for another process's write.
    ///   - firstProfileName: the profile a new database starts with (an existing one keeps its own).
    ///   - readOnlyFallback: when the database exists but cannot be written (a file or folder
    ///     without write permission, a full disk, a damaged file), open it read-only instead of
    ///     refusing: every read works, every write throws ``readOnlyReason``. For commands that only
    ///     read, and for the REPL, which says so.
    /// - Throws: ``StoreError`` (folder or file not writable, not a database, another program's database, damaged, newer
    ///   schema, unreadable, not a regular file, empty).
    public init(
        dataDirectory: URL, clock: WallClock = .system, pinCost: PINHashCost = .standard, busyTimeout: TimeInterval = 5,
        firstProfileName: String = ChildProfile.defaultProfile.name, readOnlyFallback: Bool = false
    ) throws(StoreError) {
        let folder = dataDirectory.standardizedFileURL
        let databaseURL = folder.appendingPathComponent(Self.fileName)
        self.databaseURL = databaseURL
        self.pending = PendingChanges(databasePath: databaseURL.path)
        self.clock = clock
        self.pinCost = pinCost
        let path = databaseURL.path

        // A FIFO or a device in place of a file would make every open below wait forever.
        let lockPath = folder.appendingPathComponent(Self.lockFileName).path
        for file in [path, path + "-wal", path + "-shm", lockPath] { try Self.checkRegularFile(file) }
        let exists = FileManager.default.fileExists(atPath: path)
        let lock = try DataFolderLock(folder: folder, lockPath: lockPath, readOnly: readOnlyFallback && exists)
        defer { lock.release() }

        // Never let SQLite open (and later overwrite) a file that is not a database.
        try Self.checkHeader(path: path)

        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "storyreader"
        configuration.prepareDatabase { db in
            // WAL with synchronous=NORMAL keeps every committed transaction through a crash of the
            // program (only a power cut can lose the last few), and makes a commit cost no fsync.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Deleted rows (an old PIN hash, a removed child) are overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        // A damaged file is found before anything could write to it, and so are another program's
        // database and one that cannot be written: each is opened read-only or refused, never written.
        if let reason = lock.problem ?? (exists ? Self.damage(path: path) ?? Self.foreign(path: path) : nil) ?? Self.writeProblem(folder: folder, path: path) {
            guard readOnlyFallback, Self.canOpenReadOnly(reason) else { throw reason }
            pool = try Self.openReadOnly(path: path, configuration: configuration, because: reason)
            readOnlyReason = reason
            return
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrate(pool, path: path, firstProfileName: firstProfileName, clock: clock)
        } catch {
            let reason = Self.translate(error, path: path)
            // A full disk (an error only writing finds) opens read-only when asked, with every read.
            guard readOnlyFallback, exists, Self.canOpenReadOnly(reason) else { throw reason }
            self.pool = try Self.openReadOnly(path: path, configuration: configuration, because: reason)
            readOnlyReason = reason
            return
        }
        self.pool = pool
        readOnlyReason = nil
        applyPendingChanges()
    }

    /// The data folder's database file path.
    public var path: String { databaseURL.path }

    static func migrate(_ pool: DatabasePool, path: String, firstProfileName: String, clock: WallClock) throws {
        let migrator = StoreSchema.migrator(firstProfileName: firstProfileName, clock: clock)
        let (superseded, version) = try pool.read { db in
            (try migrator.hasBeenSuperseded(db), try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
        }
        if superseded || version > Self.schemaVersion {
            throw StoreError.newerSchema(path: path, found: max(version, Self.schemaVersion + 1), known: Self.schemaVersion)
        }
        try migrator.migrate(pool)
    }

    /// Whether a store that cannot be written for `reason` can still be read.
    static func canOpenReadOnly(_ reason: StoreError) -> Bool {
        switch reason {
        case .dataFolderNotWritable, .fileNotWritable, .fileNotReadable, .diskFull: true
        case .damaged(_, _, let readable, _): !readable.isEmpty
        default: false
        }
    }

    /// The database opened for reading only (see ``readOnlyPool(path:configuration:)``), its
    /// schema checked; `reason` stands when it cannot be.
    static func openReadOnly(path: String, configuration: Configuration, because reason: StoreError) throws(StoreError) -> DatabasePool {
        do {
            let pool = try readOnlyPool(path: path, configuration: configuration)
            // Read-only, the schema cannot be brought up to date: an older one is not read with
            // this program's queries, a newer one is refused as always.
            let migrator = StoreSchema.migrator()
            let (superseded, complete, version) = try pool.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db), try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
            }
            if superseded || version > Self.schemaVersion {
                throw StoreError.newerSchema(path: path, found: max(version, Self.schemaVersion + 1), known: Self.schemaVersion)
            }
            guard complete else { throw reason }
            return pool
        } catch let error as StoreError {
            throw error
        } catch {
            throw reason
        }
    }

    /// Refuses `path` at once when it is there but is not a regular file (a FIFO would make SQLite
    /// wait forever for a writer; a device or folder is no database).
    static func checkRegularFile(_ path: String) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFIFO: kind = N_("a FIFO (named pipe)")
        case S_IFCHR, S_IFBLK: kind = N_("a device")
        case S_IFDIR: kind = N_("a folder")
        case S_IFSOCK: kind = N_("a socket")
        default: kind = N_("a special file")
        }
        throw .notAFile(path: path, kind: kind)
    }

    static func checkHeader(path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .fileNotReadable(path: path, reason: String(cString: strerror(EACCES)))
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 64)) ?? Data()
        // An empty file would be taken by SQLite for a new database and filled: whatever it was
        // (a database cut short by a full disk, a copy that failed), it is not replaced silently.
        if header.isEmpty { throw .emptyDatabase(path: path) }
        if header.prefix(16) != Data("SQLite format 3\u{0}".utf8) { throw .notADatabase(path: path) }
        // A newer program's database is refused before SQLite opens it: opening it for writing
        // already rewrites its header (WAL mode). `user_version` is the header's bytes 60–63; bytes
        // 21–23 are always 64, 32, 32 in a sound header (a damaged one is left to the damage check).
        if header.count == 64, Array(header[21...23]) == [64, 32, 32] {
            let version = header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
            if version > schemaVersion { throw .newerSchema(path: path, found: version, known: schemaVersion) }
        }
    }

    /// The file among the database, its log and shared memory that this user cannot write, or
    /// the folder (where SQLite makes them); nil when all can be written.
    static func writeProblem(folder: URL, path: String) -> StoreError? {
        if access(folder.path, W_OK) != 0 { return .dataFolderNotWritable(path: folder.path, reason: String(cString: strerror(errno))) }
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            if access(file, W_OK) != 0 { return .fileNotWritable(path: file, reason: String(cString: strerror(errno))) }
        }
        return nil
    }

    static func translate(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return damage(path: path) ?? .unreadable(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                return writeProblem(folder: folder, path: path)
                    ?? .unreadable(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_FULL, .SQLITE_IOERR:
                // SQLite says "disk I/O error"; the disk says why.
                if let full = diskFull(path: path) { return full }
                return .unreadable(path: path, reason: error.message ?? "\(error)")
            default: return .unreadable(path: path, reason: error.message ?? "\(error)")
            }
        }
        return .unreadable(path: path, reason: "\(error)")
    }

    /// `.diskFull` when the file system holding `path` has no space left for this user.
    static func diskFull(path: String) -> StoreError? {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(folder, &info) == 0 else { return nil }
        // A database page is 4 KB: less than a few pages free is full for SQLite.
        guard UInt64(info.f_bavail) * UInt64(info.f_bsize) < 64 * 1024 else { return nil }
        return .diskFull(path: path, reason: String(cString: strerror(ENOSPC)))
    }

    /// Why `folder` cannot be created, naming the ancestor that is in the way.
    static func whyNotCreatable(_ folder: URL) -> String {
        var ancestor = folder.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        while ancestor.path != "/", !FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
            ancestor.deleteLastPathComponent()
        }
        _ = FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory)
        if !isDirectory.boolValue { return "\(ancestor.path) is a file, not a folder" }
        if access(ancestor.path, W_OK) != 0 { return "\(ancestor.path) is not writable: \(String(cString: strerror(errno)))" }
        return "it could not be created inside \(ancestor.path)"
    }

    /// SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems found.
    public func integrityCheck() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The current time from the store's clock.
    public var now: Date { clock.now() }
}
