import Foundation
import GRDB
import Testing
import StoryKitTestSupport
@testable import StoryKit

/// Issue 33, item 1: arithmetic on times from other machines never traps.
@Suite struct SyncValidationTests {
    static let now = HybridLogicalClock.millis(Date(timeIntervalSince1970: 1_800_000_000))

    @Test func clockArithmeticOnAnyInt64NeverTraps() {
        // Item 1: the server computed kioskMillis - serverMillis and stopped on Int64.min.
        #expect(ClockSkew.warning(kioskMillis: .min, serverMillis: Self.now) == nil)
        #expect(ClockSkew.warning(kioskMillis: .max, serverMillis: .min)?.contains("minutes ahead") == true)
        #expect(ClockSkew.warning(kioskMillis: .max, serverMillis: Self.now)?.contains("minutes ahead") == true)
        #expect(ClockSkew.isTrusted(HLCTimestamp(millis: .max, node: "a"), serverMillis: .max))
        // A clock that observed the largest counter moves on to the next millisecond.
        var clock = HybridLogicalClock(node: "k", last: HLCTimestamp(millis: Self.now, counter: HLCTimestamp.counterRange.upperBound, node: "k"))
        let next = clock.tick(now: Date(timeIntervalSince1970: 1_000))
        #expect(next > HLCTimestamp(millis: Self.now, counter: HLCTimestamp.counterRange.upperBound, node: "k"))
        #expect(HLCTimestamp.counterRange.contains(next.counter))
        var saturated = HybridLogicalClock(node: "k", offsetMillis: .max)
        #expect(saturated.tick(now: Date(timeIntervalSince1970: 1_000)).millis == .max)
        #expect(HybridLogicalClock.millis(Date(timeIntervalSince1970: 1e300)) == .max)
    }
}
