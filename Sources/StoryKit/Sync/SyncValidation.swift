import Foundation

/// The rules every change must meet when it crosses from one machine to another: the server checks
/// each change a kiosk uploads (and refuses the batch with 400, storing nothing), and each kiosk
/// checks each change it pulls (and sets a bad one aside instead of storing it). One validator for
/// both sides, so that what one side lets through the other takes.
///
/// A change that passes can be stored and read back without trapping: every profile field holds
/// what ``ProfileValidation`` accepts, every date fits the database's date format, every clock
/// stamp sorts as text and is far from any overflow, every text is of bounded length and free of
/// terminal controls where it is shown.
public enum SyncValidation {
    /// How far ahead of the checking machine's clock a date may be: a kiosk whose clock runs ahead
    /// (its clock stamps are re-stamped, see ``ClockSkew``) still has its reads taken.
    public static let futureWindowMillis: Int64 = 366 * 24 * 3600 * 1000
    /// The longest story id, kiosk name and session record accepted.
    public static let storyIDLength = 200
    public static let nodeLength = 64
    public static let recordBytes = 64 * 1024
    /// The largest sentence number a place may name.
    public static let sentenceRange = 0...1_000_000
    /// The words a coached read may count in each of its tallies (a story's words at most).
    public static let wordCountRange = 0...10_000_000

    /// What is wrong with `change`, checked at `nowMillis` (the checking machine's idea of the
    /// server's time), or nil when it may be stored.
    public static func problem(with change: SyncChange, nowMillis: Int64) -> String? {
        if let problem = clockProblem(change.hlc) { return problem }
        if let title = change.storyTitle {
            if change.story == nil { return "a story title comes only with a read, a place, a favourite or a bookmark" }
            if let problem = StoryTitles.problem(title) { return problem }
        }
        switch change.body {
        case .read(_, let story, let finishedAt):
            return storyProblem(story) ?? dateProblem(finishedAt, "finishedAt", nowMillis: nowMillis)
        case .coachedRead(_, let story, let finishedAt, let read, let helped, let skipped):
            for (name, count) in [("read", read), ("helped", helped), ("skipped", skipped)] where !wordCountRange.contains(count) {
                return "coached read: \(name) \(count) is out of range (\(wordCountRange.lowerBound) to \(wordCountRange.upperBound))"
            }
            return storyProblem(story) ?? dateProblem(finishedAt, "finishedAt", nowMillis: nowMillis)
        case .position(_, let story, let sentence):
            if let sentence, !sentenceRange.contains(sentence) {
                return "sentence \(sentence) is out of range (\(sentenceRange.lowerBound) to \(sentenceRange.upperBound))"
            }
            return storyProblem(story)
        case .favourite(_, let story, _):
            return storyProblem(story)
        case .bookmark(_, let bookmark, _):
            return storyProblem(bookmark.story) ?? Bookmark.problem(bookmark) ?? dateProblem(bookmark.createdAt, "createdAt", nowMillis: nowMillis)
        case .profileField(_, let field, let value):
            return profileFieldProblem(field, value)
        case .profileRemoved, .readRemoved:
            return nil
        case .kioskSession(_, let kiosk, let record):
            return nodeProblem(kiosk, "kiosk") ?? sessionProblem(record, nowMillis: nowMillis)
        case .failedPIN(let kiosk, let at):
            return nodeProblem(kiosk, "kiosk") ?? dateProblem(at, "at", nowMillis: nowMillis)
        case .pinHash(let record):
            return record.flatMap(pinProblem)
        }
    }

    /// A clock stamp that sorts as text (``HLCTimestamp/description``) and whose counter can grow.
    static func clockProblem(_ stamp: HLCTimestamp) -> String? {
        if !HLCTimestamp.millisRange.contains(stamp.millis) {
            return "clock stamp \(stamp.millis) ms is out of range (\(HLCTimestamp.millisRange.lowerBound) to \(HLCTimestamp.millisRange.upperBound))"
        }
        if !HLCTimestamp.counterRange.contains(stamp.counter) {
            return "clock counter \(stamp.counter) is out of range (\(HLCTimestamp.counterRange.lowerBound) to \(HLCTimestamp.counterRange.upperBound))"
        }
        return nodeProblem(stamp.node, "clock node")
    }

    /// A machine's name (its clock's node): letters, digits, `-`, `_` and `.`.
    static func nodeProblem(_ node: String, _ what: String) -> String? {
        // Every change's clock names a node: the ASCII bytes are checked first, without Unicode's
        // tables (ASCII letters are exactly the alphabetic ASCII scalars).
        if (1...nodeLength).contains(node.utf8.count),
            node.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            })
        {
            return nil
        }
        guard !node.isEmpty, node.count <= nodeLength,
            node.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) })
        else { return "\(what) \(quoted(node)) is not 1 to \(nodeLength) letters, digits, '-', '_' or '.'" }
        return nil
    }

    static func storyProblem(_ story: String) -> String? {
        if story.isEmpty || story.unicodeScalars.count > storyIDLength || UnsafeCharacters.containsUnsafe(story) {
            return "story id \(quoted(story)) is not 1 to \(storyIDLength) characters without controls"
        }
        return nil
    }

    /// A date the database can store and give back, not before 1970 and at most a year ahead.
    static func dateProblem(_ date: Date, _ field: String, nowMillis: Int64) -> String? {
        let millis = HybridLogicalClock.millis(date)
        let latest = nowMillis.saturatingAdd(futureWindowMillis)
        guard millis >= 0, millis <= latest, millis <= HLCTimestamp.millisRange.upperBound else {
            return "\(field) \(millis) ms is outside 1970 to a year after the server's time"
        }
        return nil
    }

    /// The profile fields that travel, each checked by the rules of the profile form.
    static func profileFieldProblem(_ field: String, _ value: String?) -> String? {
        guard StoryStore.syncedProfileFields.contains(field) else {
            return "profile field \(quoted(field)) is not one that is shared"
        }
        guard let value else {
            return field == "voice" ? nil : "profile field \(field) cannot be empty"
        }
        do throws(ProfileProblem) {
            switch field {
            case "name":
                if try ProfileValidation.name(value) != value { return "profile name \(quoted(value)) has spaces around it" }
            case "age":
                _ = try ProfileValidation.age(value)
            case "interests":
                guard let words = try? JSONDecoder().decode([String].self, from: Data(value.utf8)) else {
                    return "profile field interests is not a list of words"
                }
                if try Interests.parse(words.joined(separator: ",")) != words { return "profile field interests holds a word twice" }
            case "voice":
                if try ProfileValidation.voice(value) != value { return "profile field voice \(quoted(value)) is not written as a voice name" }
            case "rate": _ = try ProfileValidation.number(value, field: .rate, range: SpeechSettings.rateRange)
            case "pitch": _ = try ProfileValidation.number(value, field: .pitch, range: SpeechSettings.pitchRange)
            case "volume": _ = try ProfileValidation.number(value, field: .volume, range: SpeechSettings.volumeRange)
            case "textSize" where TextSizePreset(rawValue: value) == nil,
                "motion" where MotionPreference(rawValue: value) == nil,
                "theme" where ThemeName(rawValue: value) == nil,
                "lineFocus" where LineFocus(rawValue: value) == nil,
                "spacing" where TextSpacing(rawValue: value) == nil,
                "brailleCode" where BrailleCode(rawValue: value) == nil,
                "narration" where NarrationSource(rawValue: value) == nil:
                return "profile field \(field): \(quoted(value)) is not one of its choices"
            case "hintVerbosity": _ = try ProfileValidation.hintVerbosity(value)
            case "recordingTempo": _ = try ProfileValidation.recordingTempo(value)
            case "coachWait":
                if try String(ProfileValidation.coachWait(value)) != value { return "profile field coachWait \(quoted(value)) is not written as stored" }
            case "bedtime":
                if try ProfileValidation.bedtime(value).text != value { return "profile field bedtime \(quoted(value)) is not written as stored" }
            case "hints", "stepMode", "syllables":
                if value != "0" && value != "1" { return "profile field \(field): \(quoted(value)) is not 0 or 1" }
            default:
                break
            }
        } catch {
            return "profile field \(field): \(error.message)"
        }
        return nil
    }

    /// A kiosk session's log line: bounded, with dates the database can store.
    static func sessionProblem(_ record: String, nowMillis: Int64) -> String? {
        guard record.utf8.count <= recordBytes,
            let session = try? JSONDecoder.sync.decode(KioskSessionRecord.self, from: Data(record.utf8))
        else { return "kiosk session record is not a session (or over \(recordBytes / 1024) KB)" }
        if let problem = dateProblem(session.startedAt, "startedAt", nowMillis: nowMillis)
            ?? session.endedAt.flatMap({ dateProblem($0, "endedAt", nowMillis: nowMillis) })
        {
            return "kiosk session: \(problem)"
        }
        if session.blockedKeys < 0 { return "kiosk session: blockedKeys \(session.blockedKeys) is negative" }
        if let story = session.storiesRead.first(where: { storyProblem($0) != nil }) { return "kiosk session: \(storyProblem(story) ?? "")" }
        return nil
    }

    /// The site's PIN: a scrypt hash whose cost every kiosk can afford to check.
    static func pinProblem(_ record: String) -> String? {
        guard let pin = try? JSONDecoder.sync.decode(StoryStore.SitePIN.self, from: Data(record.utf8)), pin.algorithm == PINHash.algorithm else {
            return "the PIN record is not a \(PINHash.algorithm) hash"
        }
        let cost = pin.cost
        guard (8...64).contains(pin.salt.count), (16...128).contains(pin.key.count), (2...(1 << 17)).contains(cost.rounds),
            cost.rounds & (cost.rounds - 1) == 0, (1...8).contains(cost.blockSize), (1...4).contains(cost.parallelism)
        else { return "the PIN record's salt, key or cost is out of range" }
        return nil
    }

    /// Untrusted text, cut short and made safe to show in a reason.
    static func quoted(_ text: String) -> String {
        "\"\(Sanitizer.sanitizeLine(String(text.prefix(40))))\(text.count > 40 ? "…" : "")\""
    }
}
