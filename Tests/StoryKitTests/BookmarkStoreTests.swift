import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Bookmarks in the store (migration `v13-bookmarks`) and in the site's merge rules.
@Suite struct BookmarkStoreTests {
    @Test func aBookmarkAndItsNoteSurviveARestartAndDeleteRemovesIt() throws {
        let database = try TemporaryDatabase("bookmarks")
        defer { database.remove() }
        let id: Int64
        let bookmark = Bookmark(story: "fox", word: 17, sentence: 2, text: "fox", createdAt: .distantPast)
        do {
            let store = try database.open()
            id = try #require(try store.profiles().first?.id)
            #expect(store.apply(.saveBookmark(profileID: id, bookmark), authorization: nil) == nil)
            var noted = bookmark
            noted.note = "the fox is funny"
            #expect(store.apply(.saveBookmark(profileID: id, noted), authorization: nil) == nil)
        }
        // A new process: the same bookmark, with its note, dated by the store's clock.
        let store = try database.open()
        let kept = try store.bookmarks(profileID: id)
        #expect(kept.count == 1)
        #expect(kept.first?.id == bookmark.id && kept.first?.word == 17 && kept.first?.sentence == 2 && kept.first?.note == "the fox is funny")
        #expect(kept.first?.createdAt == database.clock.now)
        let name = try #require(try store.profiles().first?.name)
        #expect(try store.sessionSnapshot().bookmarks[name]?.map(\.id) == [bookmark.id])
        #expect(store.apply(.removeBookmark(profileID: id, id: bookmark.id), authorization: nil) == nil)
        #expect(try database.open().bookmarks(profileID: id).isEmpty)
    }

    @Test func aBookmarkForAProfileThatIsGoneIsRefusedWithTheStoresMessage() throws {
        let database = try TemporaryDatabase("bookmarks-gone")
        defer { database.remove() }
        let store = try database.open()
        let bookmark = Bookmark(story: "fox", word: 1, sentence: 0, text: "fox", createdAt: .distantPast)
        guard case .failed(_, let message)? = store.apply(.saveBookmark(profileID: 999, bookmark), authorization: nil) else {
            Issue.record("not refused")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test func theSiteKeepsTheNewestVersionOfEachBookmarkAndADeletionWins() {
        let profile = UUID()
        let node = "kiosk-a"
        var bookmark = Bookmark(story: "fox", word: 3, sentence: 0, text: "fox", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        let made = SyncChange(
            hlc: HLCTimestamp(millis: 1_800_000_000_000, counter: 0, node: node), body: .bookmark(profile: profile, bookmark: bookmark, removed: false))
        bookmark.note = "a note"
        let noted = SyncChange(
            hlc: HLCTimestamp(millis: 1_800_000_001_000, counter: 0, node: node), body: .bookmark(profile: profile, bookmark: bookmark, removed: false))
        let deleted = SyncChange(
            hlc: HLCTimestamp(millis: 1_800_000_002_000, counter: 0, node: node), body: .bookmark(profile: profile, bookmark: bookmark, removed: true))
        // Any order, any number of times: the same state.
        let forward = SiteState(changes: [made, noted])
        let backward = SiteState(changes: [noted, made, noted])
        #expect(forward == backward)
        #expect(forward.visible.bookmarks.values.first?.value?.note == "a note")
        #expect(SiteState(changes: [deleted, made, noted]).visible.bookmarks.isEmpty)
        #expect(made.story == "fox" && made.profile == profile)
    }

    @Test func validationRefusesABookmarkWithControlsOrOutOfRange() {
        let now: Int64 = 1_800_000_000_000
        let hlc = HLCTimestamp(millis: now, counter: 0, node: "kiosk-a")
        func change(_ edit: (inout Bookmark) -> Void) -> SyncChange {
            var bookmark = Bookmark(story: "fox", word: 3, sentence: 0, text: "fox", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            edit(&bookmark)
            return SyncChange(hlc: hlc, body: .bookmark(profile: UUID(), bookmark: bookmark, removed: false), storyTitle: "The Fox")
        }
        #expect(SyncValidation.problem(with: change { _ in }, nowMillis: now) == nil)
        #expect(SyncValidation.problem(with: change { $0.note = "\u{1B}[2J" }, nowMillis: now) != nil)
        #expect(SyncValidation.problem(with: change { $0.note = String(repeating: "a", count: Bookmark.noteLength + 1) }, nowMillis: now) != nil)
        #expect(SyncValidation.problem(with: change { $0.word = -1 }, nowMillis: now) != nil)
        #expect(SyncValidation.problem(with: change { $0.text = "" }, nowMillis: now) != nil)
        #expect(SyncValidation.problem(with: change { $0.story = "" }, nowMillis: now) != nil)
        #expect(SyncValidation.problem(with: change { $0.createdAt = .distantPast }, nowMillis: now) != nil)
    }

    @Test func aBookmarksWordAndNoteAreMadeOneSafeLine() {
        let bookmark = Bookmark(story: "fox", word: 0, sentence: 0, text: "fo\u{1B}[31mx", note: "  \u{202E}hi\nthere  ", createdAt: .distantPast)
        #expect(!bookmark.text.unicodeScalars.contains { $0.value == 0x1B })
        #expect(bookmark.note?.contains("\n") == false)
        #expect(bookmark.note?.unicodeScalars.contains { $0.value == 0x202E } == false)
        #expect(Bookmark(story: "fox", word: 0, sentence: 0, text: "x", note: "   ", createdAt: .distantPast).note == nil)
    }
}
