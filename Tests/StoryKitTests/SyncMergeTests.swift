import Foundation
import Testing

@testable import StoryKit

/// The merge rules as pure functions: the same changes in any order, any number of times, give one state.
@Suite struct SyncMergeTests {
    let mia = UUID()
    func stamp(_ millis: Int64, _ node: String = "a", counter: Int = 0) -> HLCTimestamp {
        HLCTimestamp(millis: millis, counter: counter, node: node)
    }

    @Test func aClockNeverGoesBackAndSortsAfterWhatItSaw() {
        var clock = HybridLogicalClock(node: "a")
        let first = clock.tick(now: Date(timeIntervalSince1970: 100))
        let wentBack = clock.tick(now: Date(timeIntervalSince1970: 50))
        #expect(wentBack > first)
        clock.observe(stamp(900_000, "b"))
        let afterRemote = clock.tick(now: Date(timeIntervalSince1970: 60))
        #expect(afterRemote > stamp(900_000, "b"))
        #expect(HLCTimestamp(afterRemote.description) == afterRemote)
        // The text form sorts like the value (SQL compares it as text).
        #expect(stamp(99, counter: 5).description < stamp(100).description)
    }

    @Test func twoKiosksThatEachSawOneReadCountTwoNeverOneNorThree() {
        let a = SyncChange(hlc: stamp(1, "a"), body: .read(profile: mia, story: "fox", finishedAt: Date()))
        let b = SyncChange(hlc: stamp(1, "b"), body: .read(profile: mia, story: "fox", finishedAt: Date()))
        let state = SiteState(changes: [a, b, a, b, a])
        #expect(state.readCounts["\(mia.uuidString)/fox"] == 2)
    }

    @Test func aRemovedReadStaysRemovedWhateverTheArrivalOrder() {
        let a = SyncChange(hlc: stamp(1, "a"), body: .read(profile: mia, story: "fox", finishedAt: Date()))
        let b = SyncChange(hlc: stamp(1, "b"), body: .read(profile: mia, story: "fox", finishedAt: Date()))
        let removed = SyncChange(hlc: stamp(2, "web"), body: .readRemoved(profile: mia, read: a.id))
        let orders = [[a, b, removed], [removed, a, b], [b, removed, a, a], [a, removed, b, removed]]
        for order in orders {
            let state = SiteState(changes: order)
            #expect(state == SiteState(changes: orders[0]))
            #expect(state.readCounts["\(mia.uuidString)/fox"] == 1 && state.reads[a.id] == nil && state.reads[b.id] != nil)
        }
    }

    @Test func placesAndFavouritesTakeTheLatestClockWhateverTheArrivalOrder() {
        let old = SyncChange(hlc: stamp(10, "b"), body: .position(profile: mia, story: "fox", sentence: 3))
        let new = SyncChange(hlc: stamp(11, "a"), body: .position(profile: mia, story: "fox", sentence: 7))
        #expect(SiteState(changes: [old, new]) == SiteState(changes: [new, old]))
        #expect(SiteState(changes: [new, old]).positions["\(mia.uuidString)/fox"]?.value == 7)
        let on = SyncChange(hlc: stamp(10, "a"), body: .favourite(profile: mia, story: "fox", isFavourite: true))
        let off = SyncChange(hlc: stamp(10, "b"), body: .favourite(profile: mia, story: "fox", isFavourite: false))
        // Same millisecond: the node breaks the tie, the same way on every machine.
        #expect(SiteState(changes: [on, off]).favourites == SiteState(changes: [off, on]).favourites)
    }

    @Test func editsOfDifferentFieldsInFiftyRandomOrdersGiveOneStateAndLoseNone() {
        var changes: [SyncChange] = []
        for i in 0..<10 {
            changes.append(SyncChange(hlc: stamp(Int64(i), "a"), body: .profileField(profile: mia, field: "age", value: "\(i)")))
            changes.append(SyncChange(hlc: stamp(Int64(i), "b"), body: .profileField(profile: mia, field: "theme", value: "theme\(i)")))
        }
        var generator = SystemRandomNumberGenerator()
        let states = Set((0..<50).map { _ in SiteState(changes: changes.shuffled(using: &generator)) })
        #expect(states.count == 1)
        #expect(states.first?.profileFields[mia]?["age"]?.value == "9")
        #expect(states.first?.profileFields[mia]?["theme"]?.value == "theme9")
    }

    @Test func aRemovedProfileStaysRemovedWhateverLaterEditsArrive() {
        let removed = SyncChange(hlc: stamp(5, "a"), body: .profileRemoved(profile: mia))
        let laterEdit = SyncChange(hlc: stamp(500, "b"), body: .profileField(profile: mia, field: "age", value: "9"))
        let laterRead = SyncChange(hlc: stamp(600, "b"), body: .read(profile: mia, story: "fox", finishedAt: Date()))
        for order in [[removed, laterEdit, laterRead], [laterEdit, laterRead, removed]] {
            let visible = SiteState(changes: order).visible
            #expect(visible.profileFields[mia] == nil)
            #expect(visible.reads.isEmpty)
        }
    }

    /// Kiosk A's clock is an hour ahead, then an hour behind; edits alternate between A and B in real
    /// time, so the last one made should win. With clocks corrected by the server's offset (and the
    /// hybrid clock), none is lost; with naive wall-clock last-writer-wins, edits are lost.
    @Test(arguments: [Int64(3_600_000), -3_600_000])
    func aSkewedKioskLosesNoNewerEditWhileNaiveWallClockDoes(skew: Int64) {
        func run(naive: Bool) -> Int {
            var a = HybridLogicalClock(node: "a", offsetMillis: -skew)
            var b = HybridLogicalClock(node: "b")
            var state = SiteState()
            var lost = 0
            for step in 0..<20 {
                let realMillis: Int64 = 1_800_000_000_000 + Int64(step) * 1000
                let onA = step.isMultiple(of: 2)
                let wall = Date(timeIntervalSince1970: Double(realMillis + (onA ? skew : 0)) / 1000)
                let hlc =
                    naive
                    ? HLCTimestamp(millis: HybridLogicalClock.millis(wall), node: onA ? "a" : "b")
                    : (onA ? a.tick(now: wall) : b.tick(now: wall))
                state.apply(SyncChange(hlc: hlc, body: .position(profile: mia, story: "fox", sentence: step)))
                if state.positions["\(mia.uuidString)/fox"]?.value != step { lost += 1 }
                // Each kiosk syncs after its edit: the other sees its clock.
                a.observe(hlc)
                b.observe(hlc)
            }
            return lost
        }
        #expect(run(naive: false) == 0)
        #expect(run(naive: true) > 0)
    }

    @Test func aKioskFarAheadOfTheServerIsToldAndNotTrusted() {
        let server: Int64 = 1_800_000_000_000
        #expect(ClockSkew.isTrusted(stamp(server + 60_000), serverMillis: server))
        #expect(!ClockSkew.isTrusted(stamp(server + 3_600_000), serverMillis: server))
        #expect(ClockSkew.warning(kioskMillis: server + 3_600_000, serverMillis: server)?.contains("60 minutes ahead") == true)
        #expect(ClockSkew.warning(kioskMillis: server + 1000, serverMillis: server) == nil)
    }

    /// Bug A: the server re-stamps changes from a kiosk an hour ahead. Two edits of one field in one
    /// batch used to get the same stamp (server time, each one's own counter 0), so the server and
    /// every other kiosk kept the older edit while the kiosk that made them kept the newer one.
    @Test func twoEditsOfOneFieldRestampedInOneBatchKeepTheirOrder() {
        let server: Int64 = 1_800_000_000_000
        let first = SyncChange(hlc: stamp(server + 3_600_000, "fast"), body: .profileField(profile: mia, field: "age", value: "7"))
        let second = SyncChange(hlc: stamp(server + 3_601_000, "fast"), body: .profileField(profile: mia, field: "age", value: "8"))
        let trusted = SyncChange(hlc: stamp(server - 5, "good"), body: .profileField(profile: mia, field: "theme", value: "dark"))
        let clock = RestampClock()
        // Sent in the opposite order of their stamps: the kiosk's order (its stamps) is what counts.
        let stamped = clock.restamped([second, trusted, first], serverMillis: server)
        #expect(stamped[1] == trusted)
        #expect(stamped[0].hlc.millis == server && stamped[2].hlc.millis == server)
        #expect(stamped[2].hlc < stamped[0].hlc)
        #expect(SiteState(changes: stamped).profileFields[mia]?["age"]?.value == "8")
        #expect(SiteState(changes: stamped.reversed()).profileFields[mia]?["age"]?.value == "8")
        // A later batch within the same millisecond still sorts after everything stamped before.
        let third = SyncChange(hlc: stamp(server + 3_602_000, "fast"), body: .profileField(profile: mia, field: "age", value: "9"))
        let next = clock.restamped([third], serverMillis: server)
        #expect(next[0].hlc > stamped[0].hlc)
        #expect(SiteState(changes: next + stamped).profileFields[mia]?["age"]?.value == "9")
    }
}
