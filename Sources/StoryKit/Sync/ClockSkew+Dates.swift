import Foundation

extension ClockSkew {
    /// A kiosk's changes with the dates they carry (a finished or coached read, a wrong PIN, a kiosk
    /// session's start and end) told in the server's time, so that other kiosks never show a date
    /// to come, and a kiosk a year ahead still gets its reads to the site (they were refused as
    /// "outside 1970 to a year after the server's time", and set aside).
    ///
    /// When the kiosk's clock (`kioskMillis`, read as it sent the batch) is ahead of the server's by
    /// more than the tolerance, each date moves back by as much: the kiosk's clock was most likely
    /// as far ahead when it made the change. Any date still later than the server's now is the
    /// server's now: a read does not finish in the future. Other dates are left as they are, and
    /// so is one past what a clock stamp holds (2286) or that moving back would put before 1970:
    /// the validator refuses those.
    public static func datesCorrected(_ changes: [SyncChange], kioskMillis: Int64, serverMillis: Int64) -> [SyncChange] {
        let ahead = kioskMillis.saturatingSubtract(serverMillis)
        let shift = ahead > toleranceMillis ? ahead : 0
        let latest = serverMillis.saturatingAdd(toleranceMillis)
        func corrected(_ date: Date) -> Date {
            let millis = HybridLogicalClock.millis(date)
            // A date no clock reads (past 2286) is no clock's error: the validator refuses it.
            guard shift != 0 || millis > latest, millis <= HLCTimestamp.millisRange.upperBound else { return date }
            let moved = millis.saturatingSubtract(shift)
            guard moved >= 0 else { return date }
            return Date(timeIntervalSince1970: Double(min(moved, serverMillis)) / 1000)
        }
        return changes.map { change in
            var change = change
            switch change.body {
            case .read(let profile, let story, let finishedAt):
                change.body = .read(profile: profile, story: story, finishedAt: corrected(finishedAt))
            case .coachedRead(let profile, let story, let finishedAt, let read, let helped, let skipped):
                change.body = .coachedRead(profile: profile, story: story, finishedAt: corrected(finishedAt), read: read, helped: helped, skipped: skipped)
            case .failedPIN(let kiosk, let at):
                change.body = .failedPIN(kiosk: kiosk, at: corrected(at))
            case .kioskSession(let session, let kiosk, let record):
                guard var parsed = try? JSONDecoder.sync.decode(KioskSessionRecord.self, from: Data(record.utf8)) else { break }
                let original = parsed
                parsed.startedAt = corrected(parsed.startedAt)
                parsed.endedAt = parsed.endedAt.map(corrected)
                guard parsed != original, let encoded = try? JSONEncoder.sync.encode(parsed) else { break }
                change.body = .kioskSession(session: session, kiosk: kiosk, record: String(decoding: encoded, as: UTF8.self))
            default:
                break
            }
            return change
        }
    }
}
