import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A profile's default bedtime is kept by the store (migration v11), off for every other profile.
@Suite struct BedtimeStoreTests {
    @Test func aProfilesBedtimeIsStoredAndReadBack() throws {
        let database = try TemporaryDatabase("bedtime")
        defer { database.remove() }
        let store = try database.open()
        let parent = try store.authorize(pin: nil)
        var mia = ChildProfile(name: "Mia", age: 7)
        mia.settings.bedtime = .minutes(20)
        _ = try store.addProfile(mia, authorization: parent)
        #expect(try store.requireProfile(named: "Mia").settings.bedtime == .minutes(20))
        #expect(try store.requireProfile(named: "Reader").settings.bedtime == .off, "the default: no timer")
        var edited = try store.requireProfile(named: "Mia")
        edited.settings.bedtime = .chapter
        _ = try store.updateProfile(edited, authorization: parent)
        // A new store on the same file: the choice survives a restart.
        #expect(try database.open().requireProfile(named: "Mia").settings.bedtime == .chapter)
    }
}
