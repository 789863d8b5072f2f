import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Issue 45 per child: each child's wait in a silence ("Coach waits", migration v12-coach) and the
/// reads aloud with the coach, kept apart from the finished reads and synced like them.
@Suite struct CoachKeptTests {
    @Test func aChildsCoachWaitIsStoredAndReadBackThreeSecondsUnlessSet() throws {
        let database = try TemporaryDatabase("coach-wait")
        defer { database.remove() }
        let store = try database.open()
        let parent = try store.authorize(pin: nil)
        var mia = ChildProfile(name: "Mia", age: 7)
        mia.settings.coachWaitSeconds = 6
        _ = try store.addProfile(mia, authorization: parent)
        #expect(try store.requireProfile(named: "Mia").settings.coachWaitSeconds == 6)
        #expect(try store.requireProfile(named: "Reader").settings.coachWaitSeconds == 3, "the default")
        var edited = try store.requireProfile(named: "Mia")
        edited.settings.coachWaitSeconds = 8
        _ = try store.updateProfile(edited, authorization: parent)
        #expect(try database.open().requireProfile(named: "Mia").settings.coachWaitSeconds == 8)
    }

    @Test func theFormsPickerOffersTwoToEightSecondsNamedInTheChildsLanguage() throws {
        #expect(ProfileField.coachWait.choices == ["2", "3", "4", "5", "6", "7", "8"])
        #expect(ProfileForm.texts(of: ChildProfile(name: "Leo", age: 5))[.coachWait] == "3")
        let spanish = LanguageFixtures.languages.catalog("es")
        #expect(Screens.choiceName("3", field: .coachWait, messages: spanish) == "3 segundos")
        #expect(Screens.choiceName("3", field: .coachWait, messages: LanguageFixtures.languages.catalog("en")) == "3 seconds")
        // The site's web page shows the same words as the kiosk's picker.
        #expect(ProfileField.coachWait.choiceLabel("5", messages: spanish) == "5 segundos")
        #expect(try ProfileValidation.coachWait("5 seconds") == 5)
        #expect(throws: ProfileProblem.self) { try ProfileValidation.coachWait("9") }
        #expect(throws: ProfileProblem.self) { try ProfileValidation.coachWait("soon") }
        // Typed in the form, checked and saved with the profile.
        var form = ProfileForm(editing: ChildProfile(name: "Leo", age: 5))
        form.setText("7", for: .coachWait)
        guard case .valid(let saved) = form.save() else {
            Issue.record("the form did not save")
            return
        }
        #expect(saved.settings.coachWaitSeconds == 7)
        form.setText("1", for: .coachWait)
        guard case .invalid(let problems) = form.save() else {
            Issue.record("1 s was saved")
            return
        }
        #expect(problems.map(\.field) == [.coachWait])
    }

    @Test func theSitesRulesTakeOnlyWhatAKioskStores() {
        #expect(SyncValidation.profileFieldProblem("coachWait", "5") == nil)
        #expect(SyncValidation.profileFieldProblem("coachWait", "9") != nil)
        #expect(SyncValidation.profileFieldProblem("coachWait", "5 seconds") != nil, "not written as stored")
        let now = HybridLogicalClock.millis(Date())
        let hlc = HLCTimestamp(millis: now, counter: 0, node: "k1")
        func coached(_ read: Int, _ date: Date = Date()) -> SyncChange {
            SyncChange(hlc: hlc, body: .coachedRead(profile: UUID(), story: "the-snail", finishedAt: date, read: read, helped: 3, skipped: 1))
        }
        #expect(SyncValidation.problem(with: coached(42), nowMillis: now) == nil)
        #expect(SyncValidation.problem(with: coached(-1), nowMillis: now)?.contains("out of range") == true)
        #expect(SyncValidation.problem(with: coached(4, Date(timeIntervalSince1970: -10)), nowMillis: now) != nil)
    }

    /// A coached read is kept for the child apart from the finished reads (it is not one more read
    /// of the story), goes out with the kiosk's changes, and another kiosk that pulls it keeps it
    /// for the same child; applying it twice keeps it once.
    @Test func aCoachedReadIsKeptApartQueuedAndTakenByAnotherKiosk() throws {
        let one = try TemporaryDatabase("coached-one")
        let two = try TemporaryDatabase("coached-two")
        defer {
            one.remove()
            two.remove()
        }
        let store = try one.open()
        try store.markJoined()
        let reader = try #require(try store.requireProfile(named: "Reader").id)
        try store.recordCoachedRead(profileID: reader, storyID: "the-snail", tally: CoachTally(read: 42, helped: 3, skipped: 1))
        #expect(try store.readCount(profileID: reader, storyID: "the-snail") == 0, "not a finished read")
        #expect(try store.history(profileID: reader).isEmpty)
        let kept = try store.coachedReads(profileID: reader)
        #expect(kept.map { [$0.read, $0.helped, $0.skipped] } == [[42, 3, 1]] && kept.first?.storyID == "the-snail")

        let sent = try store.pendingChanges().map(\.change).filter {
            if case .coachedRead = $0.body { return true }
            return false
        }
        #expect(sent.count == 1)
        // Through the wire's text and back, as the server and the other kiosk read it.
        let wire = try JSONDecoder.sync.decode(SyncChange.self, from: Data(sent[0].jsonText.utf8))
        #expect(wire == sent[0])

        let other = try two.open()
        try other.applyPulled(sent, cursor: 1)
        try other.applyPulled(sent, cursor: 1)
        let theirs = try #require(try other.requireProfile(named: "Reader").id)
        #expect(try other.coachedReads(profileID: theirs).map(\.read) == [42])
        var site = SiteState(changes: sent)
        #expect(site.coachedReads.values.map(\.helped) == [3])
        site.apply(SyncChange(hlc: HLCTimestamp(millis: sent[0].hlc.millis + 1, counter: 0, node: "k1"), body: .profileRemoved(profile: sent[0].profile!)))
        #expect(site.visible.coachedReads.isEmpty, "a removed child's coached reads go with them")
    }

    /// A coached read the disk could not take is kept in the pending file and written at the next start.
    @Test func aCoachedReadKeptOverAFullDiskIsWrittenLater() throws {
        let change = StoreChange.recordCoachedRead(profileID: 1, story: "the-snail", CoachTally(read: 5, helped: 2, skipped: 0))
        let line = try #require(PendingChanges.line(change, at: Date(timeIntervalSince1970: 1_800_000_000)))
        let folder = try TemporaryFolder("coached-pending")
        defer { folder.remove() }
        let pending = PendingChanges(databasePath: "/nowhere/coached.sqlite", environment: ["STORYREADER_PENDING_DIR": folder.url.path])
        try line.write(to: try #require(pending.url))
        let loaded = pending.load()
        #expect(loaded.map(\.change) == [change])
        #expect(loaded.first?.at == Date(timeIntervalSince1970: 1_800_000_000))
    }
}
