import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Issue 33, items 1–4 on the kiosk's side (no network): arithmetic on times from other machines
/// never traps, one validator decides what crosses between machines, a pulled change that breaks
/// it is set aside instead of poisoning the kiosk, and a stored row that cannot be read back is
/// skipped and reported instead of stopping the program.
@Suite struct SyncValidationTests {
    static let now = HybridLogicalClock.millis(Date(timeIntervalSince1970: 1_800_000_000))

    func kiosk(_ label: String) throws -> (TemporaryDatabase, StoryStore) {
        let database = try TemporaryDatabase(label)
        let store = try database.open()
        try store.markJoined()
        return (database, store)
    }

    @Test func clockArithmeticOnAnyInt64NeverTraps() {
        // Item 1: the server computed kioskMillis - serverMillis and stopped on Int64.min.
        #expect(ClockSkew.warning(kioskMillis: .min, serverMillis: Self.now) == nil)
        #expect(ClockSkew.warning(kioskMillis: .max, serverMillis: .min)?.contains("minutes ahead") == true)
        #expect(ClockSkew.warning(kioskMillis: .max, serverMillis: Self.now)?.contains("minutes ahead") == true)
        #expect(ClockSkew.isTrusted(HLCTimestamp(millis: .max, node: "a"), serverMillis: .max))
        #expect(SyncClient.offset(serverMillis: .min, kioskMillis: Self.now) == .min)
        #expect(SyncClient.offset(serverMillis: .max, kioskMillis: -1) == .max)
        // A clock that observed the largest counter moves on to the next millisecond.
        var clock = HybridLogicalClock(node: "k", last: HLCTimestamp(millis: Self.now, counter: HLCTimestamp.counterRange.upperBound, node: "k"))
        let next = clock.tick(now: Date(timeIntervalSince1970: 1_000))
        #expect(next > HLCTimestamp(millis: Self.now, counter: HLCTimestamp.counterRange.upperBound, node: "k"))
        #expect(HLCTimestamp.counterRange.contains(next.counter))
        var saturated = HybridLogicalClock(node: "k", offsetMillis: .max)
        #expect(saturated.tick(now: Date(timeIntervalSince1970: 1_000)).millis == .max)
        #expect(HybridLogicalClock.millis(Date(timeIntervalSince1970: 1e300)) == .max)
    }

    /// Every change a real kiosk makes passes; each kind of poison named in the issue is refused
    /// with a reason that names the field.
    @Test func theValidatorTakesWhatKiosksMakeAndRefusesEachPoison() throws {
        let (database, store) = try kiosk("valid")
        defer { database.remove() }
        var random = SeededGenerator(seed: 33)
        _ = try KioskActivity.randomOperations(on: store, count: 60, using: &random)
        let session = try store.beginKioskSession(profile: "Reader")
        try store.updateKioskSession(id: session, profiles: ["Reader"], storiesRead: ["fox"], blockedKeys: 1, endReason: "pin")
        // The PIN goes to the site at once (the relay stands in for the server).
        let relay = SyncRelay()
        store.useSiteAuthority(relay)
        try store.setPIN("4321")
        let made = relay.log + (try store.pendingChanges(limit: 10_000).map(\.change))
        #expect(made.contains { $0.isPIN })
        #expect(made.count > 60)
        for change in made {
            #expect(SyncValidation.problem(with: change, nowMillis: Self.now) == nil, "\(change)")
        }

        let profile = UUID()
        let stamp = HLCTimestamp(millis: Self.now, node: "k")
        func field(_ name: String, _ value: String?) -> SyncChange { SyncChange(hlc: stamp, body: .profileField(profile: profile, field: name, value: value)) }
        let poisons: [(SyncChange, String)] = [
            (field("age", "abc"), "age"),
            (field("age", nil), "age"),
            (field("age", "99"), "age"),
            (field("rate", "99999999999999999999999"), "rate"),
            (field("volume", "-1"), "volume"),
            (field("name", "\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}]52;c;aGk=\u{7}Mia"), "name"),
            (field("name", String(repeating: "a", count: 41)), "name"),
            (field("name", " Mia"), "name"),
            (field("hints", "true"), "hints"),
            (field("theme", "neon"), "theme"),
            (field("interests", "not json"), "interests"),
            (field("voice", "en\u{1B}[31m"), "voice"),
            (field("syncId", "x"), "syncId"),
            (SyncChange(hlc: stamp, body: .read(profile: profile, story: "fox", finishedAt: Date(timeIntervalSince1970: 1e15))), "finishedAt"),
            (SyncChange(hlc: stamp, body: .read(profile: profile, story: "fox", finishedAt: Date(timeIntervalSince1970: -1))), "finishedAt"),
            (SyncChange(hlc: stamp, body: .read(profile: profile, story: "fox\u{1B}[2J", finishedAt: Date(timeIntervalSince1970: 1_800_000_000))), "story"),
            (
                SyncChange(
                    hlc: HLCTimestamp(millis: Self.now + 240_000, counter: .max, node: "x"), body: .favourite(profile: profile, story: "fox", isFavourite: true)
                ), "counter"
            ),
            (SyncChange(hlc: HLCTimestamp(millis: -5, node: "x"), body: .favourite(profile: profile, story: "fox", isFavourite: true)), "clock stamp"),
            (SyncChange(hlc: HLCTimestamp(millis: Self.now, node: "a:b\u{1B}"), body: .favourite(profile: profile, story: "fox", isFavourite: true)), "node"),
            (SyncChange(hlc: stamp, body: .position(profile: profile, story: "fox", sentence: Int.max)), "sentence"),
            (SyncChange(hlc: stamp, body: .failedPIN(kiosk: "k", at: Date(timeIntervalSince1970: 1e15))), "at"),
            (SyncChange(hlc: stamp, body: .kioskSession(session: UUID(), kiosk: "k", record: "{}")), "session"),
            (
                SyncChange(
                    hlc: stamp,
                    body: .pinHash(
                        record:
                            #"{"algorithm":"scrypt","salt":"AAAAAAAAAAAAAAAAAAAAAA==","key":"AAAAAAAAAAAAAAAAAAAAAA==","cost":{"rounds":1099511627776,"blockSize":8,"parallelism":1}}"#
                    )), "PIN"
            ),
        ]
        for (change, named) in poisons {
            let problem = SyncValidation.problem(with: change, nowMillis: Self.now)
            #expect(problem?.contains(named) == true, "\(change): \(problem ?? "accepted")")
            #expect(problem.map { !$0.contains("\u{1B}") } ?? true)
        }
    }

    /// Item 2 with two kiosk stores: kiosk A's outbox carries the issue's poisons (as a kiosk on an
    /// older version, or a hostile one, would upload them) through a relay that checks nothing;
    /// kiosk B sets each aside, keeps working, and its later pulls still succeed.
    @Test func aPoisonedChangeFromAnotherKioskIsSetAsideAndLaterPullsStillWork() throws {
        let (databaseA, a) = try kiosk("poison-a")
        let (databaseB, b) = try kiosk("poison-b")
        defer {
            databaseA.remove()
            databaseB.remove()
        }
        let relay = SyncRelay()
        try relay.round(a)
        try relay.round(b)
        let reader = try #require(try a.syncSnapshot().profiles.first { $0.value["name"] == "Reader" }?.key)
        let stamp = HLCTimestamp(millis: HybridLogicalClock.millis(a.now) + 1000, node: "evil")
        let poisons: [SyncChange] = [
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: "abc")),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "rate", value: "99999999999999999999999")),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: nil)),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "name", value: "\u{1B}]0;pwned\u{7}\u{1B}[2JEvil")),
            SyncChange(hlc: stamp, body: .read(profile: reader, story: "fox", finishedAt: Date(timeIntervalSince1970: 1e15))),
            SyncChange(
                hlc: HLCTimestamp(millis: HybridLogicalClock.millis(a.now) + 240_000, counter: .max, node: "x"),
                body: .position(profile: reader, story: "fox", sentence: 2)),
        ]
        try a.write { db in
            for change in poisons {
                try db.execute(
                    sql: "INSERT INTO syncOutbox (change) VALUES (?)", arguments: [String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self)])
            }
        }
        try a.recordFinishedRead(profileID: try a.profiles()[0].id!, storyID: "valid-read")
        try relay.round(a)
        try relay.round(b)

        let status = try b.syncStatus()
        #expect(status.setAside == poisons.count)
        #expect(status.lastSetAside != nil)
        let profiles = try b.profiles()
        #expect(profiles.map(\.name) == ["Reader"])
        #expect(profiles[0].age == ChildProfile.defaultProfile.age)
        #expect(try b.history().map(\.storyID) == ["valid-read"])
        #expect(b.damagedRowsFound.isEmpty)
        // The counter at Int.max was not observed: B's next stamps stay small and never trap.
        try b.recordFinishedRead(profileID: profiles[0].id!, storyID: "after")
        #expect(try b.pendingChanges(limit: 10).allSatisfy { HLCTimestamp.counterRange.contains($0.change.hlc.counter) })
        // Later pulls (the issue's age = null made every one fail) go on.
        try a.recordFinishedRead(profileID: try a.profiles()[0].id!, storyID: "later")
        try relay.round(a)
        try relay.round(b)
        #expect(Set(try b.history().map(\.storyID)) == ["valid-read", "after", "later"])
    }

    /// Rows stored before pulled changes were checked (the issue's exit 132): each is read back
    /// without trapping, a damaged field takes its default, a damaged read or session is skipped,
    /// and each is reported once.
    @Test func aDamagedStoredRowIsSkippedOrDefaultedAndReported() throws {
        let database = try TemporaryDatabase("damaged")
        defer { database.remove() }
        let store = try database.open()
        let reader = try store.profiles()[0].id!
        try store.recordFinishedRead(profileID: reader, storyID: "good")
        try store.recordFinishedRead(profileID: reader, storyID: "bad-date")
        _ = try store.beginKioskSession(profile: "Reader")
        let queue = try DatabaseQueue(path: database.databaseURL.path)
        try queue.write { db in
            try db.execute(
                sql: "UPDATE profile SET age = 'abc', rate = 1e23, name = ? WHERE id = ?",
                arguments: ["\u{1B}]0;title\u{7}\u{1B}[2JReader", reader])
            try db.execute(sql: "UPDATE readEvent SET finishedAt = 'not a date' WHERE storyId = 'bad-date'")
            try db.execute(sql: "UPDATE kioskSession SET startedAt = 'garbage'")
        }
        try queue.close()
        let reported = ReportedRows()
        store.reportDamagedRows { reported.add($0) }

        let profile = try #require(try store.profiles().first)
        #expect(profile.age == ChildProfile.defaultProfile.age)
        #expect(profile.settings.speech.rate == ChildProfile.defaultProfile.speech.rate)
        #expect(!profile.name.contains("\u{1B}"))
        #expect(try store.profile(id: reader)?.id == reader)
        #expect(try store.history().map(\.storyID) == ["good"])
        #expect(try store.kioskSessions().isEmpty)
        _ = try store.profiles()
        #expect(reported.rows.map(\.table).sorted() == ["kioskSession", "profile", "profile", "readEvent"], "\(reported.rows)")
        #expect(store.damagedRowsFound == reported.rows)
    }
}

/// The rows a store reported, collected from its handler.
final class ReportedRows: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [DamagedRow] = []
    func add(_ row: DamagedRow) { lock.withLock { collected.append(row) } }
    var rows: [DamagedRow] { lock.withLock { collected } }
}
