import Foundation
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
    /// The site server asked before changes every kiosk must agree on (see ``SiteAuthority``).
    let siteLink = SiteLink()
    /// Rows that could not be read back (see ``DamagedRow``).
    let damagedRows = DamagedRowLog()

    /// Opens (creating when needed) the database in `dataDirectory` and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - dataDirectory: the data folder; created when missing.
    ///   - clock: the time source for read timestamps and the PIN lockout.
    ///   - pinCost: the scrypt cost for PINs set through this store (small in tests).
    ///   - busyTimeout: how long a write waits for another process's write.
    ///   - firstProfileName: the profile a new database starts with (an existing one keeps its own).
    /// - Throws: ``StoreError`` (folder not writable, not a database, newer schema, unreadable).
    public init(
        dataDirectory: URL, clock: WallClock = .system, pinCost: PINHashCost = .standard, busyTimeout: TimeInterval = 5,
        firstProfileName: String = ChildProfile.defaultProfile.name
    ) throws(StoreError) {
        let folder = dataDirectory.standardizedFileURL
        let databaseURL = folder.appendingPathComponent(Self.fileName)
        self.databaseURL = databaseURL
        self.clock = clock
        self.pinCost = pinCost
        let path = databaseURL.path

        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .dataFolderNotWritable(path: folder.path, reason: Self.whyNotCreatable(folder))
        }
        let lockPath = folder.appendingPathComponent(Self.lockFileName).path
        let lockDescriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else {
            throw .dataFolderNotWritable(path: folder.path, reason: String(cString: strerror(errno)))
        }
        defer { Glibc.close(lockDescriptor) }
        if access(folder.path, W_OK) != 0 {
            throw .dataFolderNotWritable(path: folder.path, reason: String(cString: strerror(errno)))
        }
        while flock(lockDescriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .unreadable(path: path, reason: "cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        }
        defer { flock(lockDescriptor, LOCK_UN) }

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
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw Self.translate(error, path: path)
        }
        do {
            let migrator = StoreSchema.migrator(firstProfileName: firstProfileName)
            let (superseded, version) = try pool.read { db in
                (try migrator.hasBeenSuperseded(db), try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
            }
            if superseded || version > Self.schemaVersion {
                throw StoreError.newerSchema(path: path, found: max(version, Self.schemaVersion + 1), known: Self.schemaVersion)
            }
            try migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.translate(error, path: path)
        }
        self.pool = pool
    }

    /// The data folder's database file path.
    public var path: String { databaseURL.path }

    static func checkHeader(path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw .unreadable(path: path, reason: "permission denied: make the file readable and writable")
            }
            return
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }  // an empty file is a valid, empty SQLite database
        if header != Data("SQLite format 3\u{0}".utf8) { throw .notADatabase(path: path) }
    }

    static func translate(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path)
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
                return .dataFolderNotWritable(path: (path as NSString).deletingLastPathComponent, reason: error.message ?? "\(error.resultCode)")
            default: return .unreadable(path: path, reason: error.message ?? "\(error)")
            }
        }
        return .unreadable(path: path, reason: "\(error)")
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
