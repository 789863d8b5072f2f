import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct ReadingLogTests {
    func opened() throws -> (TemporaryDatabase, StoryStore, Int64, Int64) {
        let database = try TemporaryDatabase()
        let store = try database.open()
        let reader = try store.requireProfile(named: "Reader").id!
        let mia = try store.addProfile(ChildProfile(name: "Mia", age: 7), authorization: store.authorize(pin: nil)).id!
        return (database, store, reader, mia)
    }

    @Test func finishedReadsAreCountedPerProfilePerStory() throws {
        let (database, store, reader, mia) = try opened()
        defer { database.remove() }
        #expect(try store.recordFinishedRead(profileID: mia, storyID: "fox") == 1)
        #expect(try store.recordFinishedRead(profileID: mia, storyID: "fox") == 2)
        try store.recordFinishedRead(profileID: mia, storyID: "owl")
        try store.recordFinishedRead(profileID: reader, storyID: "fox")
        #expect(try store.readCount(profileID: mia, storyID: "fox") == 2)
        #expect(try store.readCount(profileID: mia, storyID: "bear") == 0)
        #expect(try store.readCounts(profileID: mia) == ["fox": 2, "owl": 1])
        #expect(try store.readCounts(profileID: reader) == ["fox": 1])
    }

    @Test func historyIsNewestFirstWithProfileAndTime() throws {
        let (database, store, reader, mia) = try opened()
        defer { database.remove() }
        let start = database.clock.now
        try store.recordFinishedRead(profileID: mia, storyID: "fox")
        database.clock.advance(by: 60)
        try store.recordFinishedRead(profileID: reader, storyID: "owl")
        database.clock.advance(by: 60)
        try store.recordFinishedRead(profileID: mia, storyID: "bear")
        let all = try store.history()
        #expect(all.map(\.storyID) == ["bear", "owl", "fox"])
        #expect(all.map(\.profileName) == ["Mia", "Reader", "Mia"])
        #expect(abs(all[2].finishedAt.timeIntervalSince(start)) < 0.01)
        #expect(try store.history(profileID: mia).map(\.storyID) == ["bear", "fox"])
        #expect(try store.history(limit: 1).map(\.storyID) == ["bear"])
    }

    @Test func thePositionIsKeptToResumeAndForgottenWhenTheStoryIsFinished() throws {
        let (database, store, reader, mia) = try opened()
        defer { database.remove() }
        #expect(try store.position(profileID: mia, storyID: "fox") == nil)
        try store.setPosition(profileID: mia, storyID: "fox", sentenceIndex: 3)
        try store.setPosition(profileID: mia, storyID: "fox", sentenceIndex: 7)
        try store.setPosition(profileID: reader, storyID: "fox", sentenceIndex: 1)
        #expect(try database.open().position(profileID: mia, storyID: "fox") == 7)
        try store.recordFinishedRead(profileID: mia, storyID: "fox")
        #expect(try store.position(profileID: mia, storyID: "fox") == nil)
        #expect(try store.position(profileID: reader, storyID: "fox") == 1)
        try store.clearPosition(profileID: reader, storyID: "fox")
        #expect(try store.position(profileID: reader, storyID: "fox") == nil)
    }

    @Test func favouritesToggle() throws {
        let (database, store, reader, mia) = try opened()
        defer { database.remove() }
        #expect(try store.toggleFavourite(profileID: mia, storyID: "fox"))
        #expect(try store.isFavourite(profileID: mia, storyID: "fox"))
        #expect(try !store.isFavourite(profileID: reader, storyID: "fox"))
        #expect(try store.toggleFavourite(profileID: mia, storyID: "owl"))
        #expect(try store.favourites(profileID: mia) == ["fox", "owl"])
        #expect(try !store.toggleFavourite(profileID: mia, storyID: "fox"))
        #expect(try store.favourites(profileID: mia) == ["owl"])
    }

    @Test func progressCombinesCountsFavouritesAndPositions() throws {
        let (database, store, _, mia) = try opened()
        defer { database.remove() }
        try store.recordFinishedRead(profileID: mia, storyID: "fox")
        try store.toggleFavourite(profileID: mia, storyID: "fox")
        try store.setPosition(profileID: mia, storyID: "owl", sentenceIndex: 2)
        #expect(
            try store.progress(profileID: mia) == [
                "fox": StoryProgress(readCount: 1, isFavourite: true), "owl": StoryProgress(sentenceIndex: 2),
            ])
    }

    @Test func writingForAMissingProfileIsRefused() throws {
        let (database, store, _, _) = try opened()
        defer { database.remove() }
        #expect(throws: StoreError.profileNotFound(name: "#999")) { try store.recordFinishedRead(profileID: 999, storyID: "fox") }
        #expect(try store.history().isEmpty)
    }

    @Test func concurrentRecordersInOneProcessLoseNothing() async throws {
        let (database, _, _, mia) = try opened()
        defer { database.remove() }
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let store = try database.open()
                    for _ in 0..<50 { try store.recordFinishedRead(profileID: mia, storyID: "fox") }
                }
            }
        }
        #expect(try database.open().readCount(profileID: mia, storyID: "fox") == 200)
    }
}
