import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A database that is damaged, empty or not a file: told apart from a foreign file, never written
/// to, never replaced, and read as far as it still reads.
@Suite struct DamagedStoreTests {
    /// A store with Maya, one finished read and a favourite, closed and checkpointed (everything
    /// in the main file).
    static func filled() throws -> TemporaryDatabase {
        let database = try TemporaryDatabase("damaged")
        do {
            let store = try database.open()
            let maya = try store.addProfile(ChildProfile(name: "Maya", age: 5), authorization: try store.authorize(pin: nil))
            _ = try store.recordFinishedRead(profileID: maya.id ?? 0, storyID: "tiny-fox")
            _ = try store.toggleFavourite(profileID: maya.id ?? 0, storyID: "tiny-fox")
        }
        try DatabaseDamage.checkpoint(database.databaseURL.path)
        return database
    }

    /// One flipped page (the changes waiting to sync) is damage, not "not an SQLite file": the
    /// message says what still reads and to keep a copy, and the file is not written.
    @Test func aFlippedPageIsDamageAndNamesWhatStillReads() throws {
        let database = try Self.filled()
        defer { database.remove() }
        try DatabaseDamage.flipRootPage(of: "syncOutbox", in: database.databaseURL.path)
        let before = try Data(contentsOf: database.databaseURL)
        let error = try #require(throws: StoreError.self) { try database.open() }
        guard case .damaged(let path, _, let readable, let unreadable) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(path == database.databaseURL.path)
        #expect(readable == ["profiles", "finished reads", "reading positions", "favourites", "the parental PIN", "kiosk sessions"])
        #expect(unreadable == ["changes waiting to sync"])
        #expect(!error.description.contains("not an SQLite file"), "\(error)")
        #expect(error.description.contains("is damaged ("), "\(error)")
        #expect(error.description.contains("it was left untouched. Still read whole: profiles, finished reads"), "\(error)")
        #expect(error.description.contains("not: changes waiting to sync. Keep a copy before anything else (cp '\(path)' '\(path).copy')"), "\(error)")
        #expect(try Data(contentsOf: database.databaseURL) == before, "the message says the file was left untouched")
    }

    /// Opened for reading, the damaged store gives its profiles, history and favourites; every
    /// write is refused with the damage, and the file is never written.
    @Test func aDamagedStoreOpensReadOnlyWithWhatStillReads() throws {
        let database = try Self.filled()
        defer { database.remove() }
        try DatabaseDamage.flipRootPage(of: "syncOutbox", in: database.databaseURL.path)
        let before = try Data(contentsOf: database.databaseURL)
        let store = try StoryStore(dataDirectory: database.url, clock: database.clock.wallClock, pinCost: .testing, readOnlyFallback: true)
        guard case .damaged = store.readOnlyReason else {
            Issue.record("not read-only: \(String(describing: store.readOnlyReason))")
            return
        }
        #expect(store.readOnlyNotice(.english)?.hasPrefix("opened read-only, nothing can be saved: \(database.databaseURL.path) is damaged") == true)
        let maya = try #require(try store.profile(named: "Maya"))
        #expect(Set(try store.profiles().map(\.name)) == ["Reader", "Maya"])
        #expect(try store.history().map(\.storyID) == ["tiny-fox"])
        #expect(try store.favourites(profileID: maya.id ?? 0) == ["tiny-fox"])
        #expect(throws: StoreError.self) { try store.recordFinishedRead(profileID: maya.id ?? 0, storyID: "big-owl") }
        do {
            _ = try store.addProfile(ChildProfile(name: "Sam", age: 9), authorization: try store.authorize(pin: nil))
            Issue.record("a damaged store was written")
        } catch {
            guard case .damaged = error else {
                Issue.record("wrong error \(error)")
                return
            }
        }
        #expect(try Data(contentsOf: database.databaseURL) == before)
    }

    /// A 0-byte database (cut short by a full disk, a failed copy) is refused with its path,
    /// read-only too; it is not replaced by a new database.
    @Test(arguments: [false, true]) func anEmptyDatabaseIsRefusedNotReplaced(_ readOnly: Bool) throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try Data().write(to: database.databaseURL)
        let error = try #require(throws: StoreError.self) {
            try StoryStore(dataDirectory: database.url, pinCost: .testing, readOnlyFallback: readOnly)
        }
        #expect(error == .emptyDatabase(path: database.databaseURL.path))
        #expect(error.description.contains("is empty (0 bytes), not a storyreader database; it was left untouched and no new database was made over it"))
        #expect(try Data(contentsOf: database.databaseURL).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: database.databaseURL.path + "-wal"))
    }

    /// A FIFO where the database, its log or its lock should be is refused at once (opening it
    /// waited forever for a writer); a device (here through a link) is refused too.
    @Test(.timeLimit(.minutes(1)), arguments: ["storyreader.sqlite", "storyreader.sqlite-wal", "storyreader.lock", "device"])
    func aFIFOOrADeviceInPlaceOfAStoreFileIsRefusedAtOnce(_ name: String) throws {
        let database = try Self.filled()
        defer { database.remove() }
        let path: String
        if name == "device" {
            path = database.databaseURL.path
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        } else {
            path = database.url.appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o644) == 0)
        }
        let error = try #require(throws: StoreError.self) { try database.open() }
        #expect(error == .notAFile(path: path, kind: name == "device" ? "a device" : "a FIFO (named pipe)"))
        #expect(error.description.contains("where a file should be: storyreader does not open it; move it away (mv '\(path)'"), "\(error)")
    }
}
