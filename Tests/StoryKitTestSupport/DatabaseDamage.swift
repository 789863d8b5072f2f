import Foundation
import GRDB

/// Damage done to a real database file on purpose, as a disk or a bad copy would.
public enum DatabaseDamage {
    /// Moves everything in the write-ahead log into the main file (then only the file holds it).
    public static func checkpoint(_ path: String) throws {
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Every bit of the root page of `table` flipped: one damaged page, the rest sound.
    public static func flipRootPage(of table: String, in path: String) throws {
        try checkpoint(path)
        var configuration = Configuration()
        configuration.readonly = true
        let found = try DatabaseQueue(path: path, configuration: configuration).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]),
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            )
        }
        guard let page = found.0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path]) }
        let size = found.1
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64((page - 1) * size))
        let bytes = try handle.read(upToCount: size) ?? Data()
        try handle.seek(toOffset: UInt64((page - 1) * size))
        try handle.write(contentsOf: Data(bytes.map { ~$0 }))
    }
}
