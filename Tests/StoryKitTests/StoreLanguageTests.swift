import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A profile's interface language in the real SQLite store (migration v6).
@Suite struct StoreLanguageTests {
    @Test func aProfilesLanguageIsKeptChangedAndCleared() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        let parent = try store.authorize(pin: nil)
        var mia = ChildProfile(name: "Mia", age: 7)
        mia.settings.interfaceLanguage = "fr"
        mia = try store.addProfile(mia, authorization: parent)
        #expect(try store.requireProfile(named: "Mia").settings.interfaceLanguage == "fr")
        mia.settings.interfaceLanguage = "de"
        try store.updateProfile(mia, authorization: parent)
        #expect(try database.open().requireProfile(named: "Mia").settings.interfaceLanguage == "de", "kept across a reopening")
        mia.settings.interfaceLanguage = nil
        try store.updateProfile(mia, authorization: parent)
        #expect(try store.requireProfile(named: "Mia").settings.interfaceLanguage == nil)
        // A saved settings change (from the settings screen) keeps it too.
        mia.settings.interfaceLanguage = "es"
        try store.updateProfile(mia, authorization: parent)
        #expect(try store.profiles().first { $0.name == "Mia" }?.settings.interfaceLanguage == "es")
    }

    @Test func aVersion5DatabaseIsMigratedWithEveryProfileOnAutomatic() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        // The database as the previous version left it: migrated up to v5, with its default profile.
        try FileManager.default.createDirectory(at: database.url, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: database.databaseURL.path)
        try StoreSchema.migrator().migrate(pool, upTo: "v5: site names, the site's PIN log, clock warnings")
        let columns = try pool.read { db in try db.columns(in: "profile").map(\.name) }
        #expect(!columns.contains("interfaceLanguage"))
        try pool.close()
        let store = try database.open()
        let profiles = try store.profiles()
        #expect(profiles.map(\.name) == ["Reader"])
        #expect(profiles.allSatisfy { $0.settings.interfaceLanguage == nil })
        let version = try DatabaseQueue(path: database.databaseURL.path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == StoryStore.schemaVersion)
        // A hand-edited language the interface does not speak reads as automatic.
        try DatabaseQueue(path: database.databaseURL.path).write { db in
            try db.execute(sql: "UPDATE profile SET interfaceLanguage = 'tlh'")
        }
        #expect(try store.requireProfile(named: "Reader").settings.interfaceLanguage == nil)
    }
}
