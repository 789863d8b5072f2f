import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct StoreTests {
    @Test func aNewDatabaseIsMigratedInWALModeWithTheDefaultProfile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        #expect(FileManager.default.fileExists(atPath: database.databaseURL.path))
        #expect(try store.profiles().map(\.name) == ["Reader"])
        let (mode, version) = try DatabaseQueue(path: database.databaseURL.path).read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA user_version"))
        }
        #expect(mode == "wal")
        #expect(version == StoryStore.schemaVersion)
        #expect(StoryStore.schemaVersion >= 1)
    }

    @Test func reopeningKeepsEverythingAndAddsNoSecondDefaultProfile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let store = try database.open()
            let mia = try store.addProfile(ChildProfile(name: "Mia", age: 7), authorization: store.authorize(pin: nil))
            try store.recordFinishedRead(profileID: mia.id!, storyID: "fox")
        }
        let store = try database.open()
        #expect(try store.profiles().map(\.name) == ["Mia", "Reader"])
        #expect(try store.readCount(profileID: store.requireProfile(named: "mia").id!, storyID: "fox") == 1)
    }

    @Test func aDatabaseFromANewerVersionIsRefusedAndLeftAlone() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        _ = try database.open()
        try DatabaseQueue(path: database.databaseURL.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
            try db.execute(sql: "PRAGMA user_version = 99")
        }
        let error = try #require(throws: StoreError.self) { try database.open() }
        guard case .newerSchema(let path, let found, let known) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(path == database.databaseURL.path)
        #expect(found == 99)
        #expect(known == StoryStore.schemaVersion)
        #expect(error.description.contains("written by a newer version of storyreader"))
        #expect(error.description.contains("update storyreader"))
        let (version, migrations) = try DatabaseQueue(path: database.databaseURL.path).read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        #expect(version == 99)
        #expect(migrations.count == StoryStore.schemaVersion + 1)
    }

    @Test func aNewerDatabaseInRollbackModeIsRefusedWithItsBytesUnchanged() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try DatabaseQueue(path: database.databaseURL.path).write { db in
            try db.execute(sql: "CREATE TABLE future (x)")
            try db.execute(sql: "PRAGMA user_version = 99")
        }
        let before = try Data(contentsOf: database.databaseURL)
        #expect(before[18] == 1)  // rollback journal: opening it in WAL mode would rewrite this byte
        let error = try #require(throws: StoreError.self) { try database.open() }
        guard case .newerSchema(_, let found, _) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(found == 99)
        #expect(try Data(contentsOf: database.databaseURL) == before)
        #expect(!FileManager.default.fileExists(atPath: database.databaseURL.path + "-wal"))
    }

    /// Another program's SQLite file (a browser's history, a shop's stock list) in the data folder:
    /// refused with its tables named, in rollback or WAL mode, and every byte kept (opening it for
    /// writing added our tables and switched it to WAL mode).
    @Test(arguments: ["DELETE", "WAL"]) func anotherProgramsDatabaseIsRefusedWithItsBytesUnchanged(_ mode: String) throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let queue = try DatabaseQueue(path: database.databaseURL.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = \(mode)")
            try db.execute(sql: "CREATE TABLE moz_places (url TEXT); CREATE TABLE moz_bookmarks (title TEXT)")
            try db.execute(sql: "INSERT INTO moz_places VALUES ('https://example.org')")
        }
        try queue.close()
        let before = try Data(contentsOf: database.databaseURL)
        for readOnlyFallback in [false, true] {
            let error = try #require(throws: StoreError.self) {
                try StoryStore(dataDirectory: database.url, clock: database.clock.wallClock, pinCost: .testing, readOnlyFallback: readOnlyFallback)
            }
            #expect(error == .foreignDatabase(path: database.databaseURL.path, tables: "moz_bookmarks, moz_places"))
            #expect(error.description.contains("is another program's SQLite database (its tables: moz_bookmarks, moz_places)"), "\(error)")
            #expect(error.description.contains("choose another folder with --data-dir"))
            #expect(try Data(contentsOf: database.databaseURL) == before)
        }
        #expect((try? Data(contentsOf: URL(fileURLWithPath: database.databaseURL.path + "-wal")))?.isEmpty ?? true)
    }

    /// An SQLite file without any table holds nothing to lose: it becomes the store.
    @Test func anSQLiteFileWithoutTablesBecomesTheStore() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try DatabaseQueue(path: database.databaseURL.path).write { db in try db.execute(sql: "PRAGMA user_version = 0") }
        #expect(FileManager.default.fileExists(atPath: database.databaseURL.path))
        let store = try database.open()
        #expect(try store.profiles().count == 1)
    }

    @Test(arguments: [
        Data("this is a shopping list, not a database\n".utf8),
        Data(repeating: 0xFF, count: 8192),
        Data("SQLite format 2\u{0}garbage".utf8),
    ])
    func aFileThatIsNotSQLiteIsNeverReplaced(_ content: Data) throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try content.write(to: database.databaseURL)
        let error = try #require(throws: StoreError.self) { try database.open() }
        #expect(error == .notADatabase(path: database.databaseURL.path))
        #expect(error.description.contains("is not a storyreader database"))
        #expect(error.description.contains("move it aside (mv"))
        #expect(try Data(contentsOf: database.databaseURL) == content)
        #expect(!FileManager.default.fileExists(atPath: database.databaseURL.path + "-wal"))
    }

    @Test func aSQLiteHeaderWithCorruptPagesIsRefusedToo() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var content = Data("SQLite format 3\u{0}".utf8)
        content.append(Data(repeating: 0xAB, count: 4096))
        try content.write(to: database.databaseURL)
        let error = try #require(throws: StoreError.self) { try database.open() }
        // An SQLite header is a damaged database, not a foreign file: nothing of it reads.
        guard case .damaged(let path, _, let readable, _) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(path == database.databaseURL.path)
        #expect(readable.isEmpty)
        #expect(error.description.contains("Still read whole: none"), "\(error)")
        #expect(try Data(contentsOf: database.databaseURL) == content)
    }

    @Test func aDataFolderThatCannotBeCreatedNamesTheFolder() throws {
        let folder = try TemporaryFolder("unwritable")
        defer { folder.remove() }
        let file = try folder.write("plain-file", "not a folder")
        let target = file.appendingPathComponent("data")
        let error = try #require(throws: StoreError.self) { try StoryStore(dataDirectory: target, pinCost: .testing) }
        guard case .dataFolderNotWritable(let path, _) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(path == target.path)
        #expect(error.description.contains("cannot be written (\(file.path) is a file, not a folder)"))
        #expect(error.description.contains("--data-dir"))
    }

    @Test func aReadOnlyDataFolderIsRefused() throws {
        // Root ignores permission bits, so this runs only for an ordinary user; the case above runs for all.
        guard geteuid() != 0 else { return }
        let folder = try TemporaryFolder("readonly")
        defer {
            chmod(folder.path, 0o755)
            folder.remove()
        }
        chmod(folder.path, 0o555)
        let error = try #require(throws: StoreError.self) { try StoryStore(dataDirectory: folder.url, pinCost: .testing) }
        guard case .dataFolderNotWritable(let path, _) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(path == folder.url.standardizedFileURL.path)
    }

    @Test func manyOpeningsOfAFreshDatabaseAtOnceAllSucceed() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        let store = try database.open()
                        return try store.profiles().map(\.name).joined()
                    } catch {
                        return "failed: \(error)"
                    }
                }
            }
            var all: [String?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results == Array(repeating: "Reader", count: 6))
    }
}

@Suite struct StoreProfileTests {
    @Test func addEditAndRemoveAProfile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        let authorization = try store.authorize(pin: nil)
        var mia = try store.addProfile(ChildProfile(name: "Mia", age: 7, interests: ["space"]), authorization: authorization)
        #expect(mia.id != nil)
        #expect(try store.profile(named: "MIA") == mia)

        mia.age = 8
        mia.settings.textSize = .accessibility3
        try store.updateProfile(mia, authorization: authorization)
        #expect(try store.requireProfile(named: "mia").settings.textSize == .accessibility3)
        #expect(try store.requireProfile(named: "mia").age == 8)

        try store.recordFinishedRead(profileID: mia.id!, storyID: "fox")
        try store.setPosition(profileID: mia.id!, storyID: "owl", sentenceIndex: 4)
        try store.toggleFavourite(profileID: mia.id!, storyID: "fox")
        let removed = try store.removeProfile(mia, authorization: authorization)
        #expect(removed == ProfileRemoval(name: "Mia", reads: 1, positions: 1, favourites: 1))
        #expect(removed.description == "Mia's profile and settings, 1 finished read, 1 reading position and 1 favourite")
        #expect(try store.profile(named: "Mia") == nil)
        // Nothing of the child stays behind.
        let leftovers = try DatabaseQueue(path: database.databaseURL.path).read { db in
            try ["readEvent", "readingPosition", "favourite"].map {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0) WHERE profileId = ?", arguments: [mia.id!]) ?? -1
            }
        }
        #expect(leftovers == [0, 0, 0])
    }

    @Test func aDuplicateNameInAnotherCaseIsRefusedAndNothingSaved() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        let authorization = try store.authorize(pin: nil)
        let error = try #require(throws: StoreError.self) {
            try store.addProfile(ChildProfile(name: "READER", age: 5), authorization: authorization)
        }
        guard case .invalidProfile(let problems) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(problems.map(\.field) == [.name])
        #expect(try store.profiles().count == 1)
    }

    @Test func anInvalidProfileIsRefusedWholeByTheStore() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        var bad = ChildProfile(name: "Mia\u{1B}[2J", age: 200)
        bad.settings.speech.rate = 5
        let error = try #require(throws: StoreError.self) { try store.addProfile(bad, authorization: store.authorize(pin: nil)) }
        guard case .invalidProfile(let problems) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(problems.map(\.field) == [.name, .age, .rate])
        #expect(try store.profiles().count == 1)
    }

    @Test func theLastProfileCannotBeRemoved() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        let reader = try store.requireProfile(named: "Reader")
        #expect(throws: StoreError.lastProfile(name: "Reader")) { try store.removeProfile(reader, authorization: store.authorize(pin: nil)) }
        #expect(throws: StoreError.profileNotFound(name: "Nobody")) { try store.requireProfile(named: "Nobody") }
    }
}
