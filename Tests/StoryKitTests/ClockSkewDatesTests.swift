import Foundation
import Testing

@testable import StoryKit

/// Issue 43: a kiosk whose clock is a year ahead. The server tells the dates of its changes in
/// the server's time before it checks them (no network here: the server's own test is
/// `SyncTrustTests.aKioskAYearAheadGetsItsReadsToTheSiteDatedInTheServersTime`).
@Suite struct ClockSkewDatesTests {
    static let server = HybridLogicalClock.millis(Date(timeIntervalSince1970: 1_800_000_000))
    static let day: Int64 = 24 * 3600 * 1000
    let stamp = HLCTimestamp(millis: server, node: "k")

    func millis(_ change: SyncChange) -> Int64? {
        switch change.body {
        case .read(_, _, let date), .failedPIN(_, let date): HybridLogicalClock.millis(date)
        default: nil
        }
    }

    func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    @Test func aKioskFarAheadHasItsDatesMovedBackByAsMuch() throws {
        let ahead = 400 * Self.day
        let kiosk = Self.server + ahead
        let read = SyncChange(hlc: stamp, body: .read(profile: UUID(), story: "fox", finishedAt: date(kiosk - 600_000)))
        let pin = SyncChange(hlc: stamp, body: .failedPIN(kiosk: "k", at: date(kiosk - 60_000)))
        let record = KioskSessionRecord(
            id: 1, profiles: ["Reader"], startedAt: date(kiosk - 900_000), endedAt: date(kiosk - 300_000), storiesRead: ["fox"], blockedKeys: 0)
        let session = SyncChange(
            hlc: stamp, body: .kioskSession(session: UUID(), kiosk: "k", record: String(decoding: try JSONEncoder.sync.encode(record), as: UTF8.self)))
        let corrected = ClockSkew.datesCorrected([read, pin, session], kioskMillis: kiosk, serverMillis: Self.server)
        #expect(corrected.map(millis) == [Self.server - 600_000, Self.server - 60_000, nil])
        #expect(corrected.map(\.id) == [read.id, pin.id, session.id])
        guard case .kioskSession(_, _, let text) = corrected[2].body else { return }
        let moved = try JSONDecoder.sync.decode(KioskSessionRecord.self, from: Data(text.utf8))
        #expect(moved.startedAt == date(Self.server - 900_000))
        #expect(moved.endedAt == date(Self.server - 300_000))
        #expect(moved.storiesRead == ["fox"])
        // Before: refused as more than a year ahead (and set aside by the kiosk); now valid.
        #expect(SyncValidation.problem(with: read, nowMillis: Self.server) != nil)
        #expect(corrected.allSatisfy { SyncValidation.problem(with: $0, nowMillis: Self.server) == nil })
    }

    @Test func aDateToComeFromAKioskOnTimeIsTheServersNow() {
        let future = SyncChange(hlc: stamp, body: .read(profile: UUID(), story: "fox", finishedAt: date(Self.server + 200 * Self.day)))
        let past = SyncChange(hlc: stamp, body: .read(profile: UUID(), story: "fox", finishedAt: Date(timeIntervalSince1970: 1_700_000_000.123)))
        let nearlyNow = SyncChange(hlc: stamp, body: .failedPIN(kiosk: "k", at: date(Self.server + 60_000)))
        let corrected = ClockSkew.datesCorrected([future, past, nearlyNow], kioskMillis: Self.server + 1000, serverMillis: Self.server)
        #expect(millis(corrected[0]) == Self.server)
        // Within the tolerance, and in the past: each exactly as it came.
        #expect(corrected[1] == past)
        #expect(corrected[2] == nearlyNow)
    }

    @Test func aHostileKioskClockCannotMoveADateBefore1970() {
        let read = SyncChange(hlc: stamp, body: .read(profile: UUID(), story: "fox", finishedAt: date(Self.server)))
        let corrected = ClockSkew.datesCorrected([read], kioskMillis: .max, serverMillis: Self.server)
        #expect(corrected == [read])
    }

    /// A date past any clock (year 31 million) is garbage, not a clock ahead: it stays, and is refused.
    @Test func aDatePastAnyClockIsLeftForTheValidatorToRefuse() {
        let read = SyncChange(hlc: stamp, body: .read(profile: UUID(), story: "fox", finishedAt: Date(timeIntervalSince1970: 1e15)))
        for kiosk in [Self.server, Self.server + 400 * Self.day] {
            let corrected = ClockSkew.datesCorrected([read], kioskMillis: kiosk, serverMillis: Self.server)
            #expect(corrected == [read])
            #expect(SyncValidation.problem(with: corrected[0], nowMillis: Self.server)?.contains("finishedAt") == true)
        }
    }
}
