import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The hand-written text of changes, UUIDs and clock stamps (issue 32) says exactly what
/// Foundation's general paths say: the server stores it, every kiosk reads it, and an old kiosk or
/// server must not be able to tell the difference.
struct SyncTextTests {
    /// Changes of every kind a site sends, with the strings and dates that take the slow paths
    /// (escapes, a slash, controls, non-ASCII text, dates with and without fractions, far ones).
    static func changes(count: Int, seed: UInt64) -> [SyncChange] {
        var random = SeededGenerator(seed: seed)
        let stories = ["story-1", "histoire-é", "a/b", "say \"hi\"", "back\\slash", "tab\there", "line\u{2028}sep", "del\u{7F}", "🐸", "x"]
        let dates = [
            0, 0.000_1, 1_764_215_000, 1_764_215_000.123, 1_764_215_000.123_456, 99_999_999_999.999_5, 1e15, 253_402_300_799.999,
        ]
        func change(_ index: Int, _ random: inout SeededGenerator) -> SyncChange {
            let hlc = HLCTimestamp(
                millis: Int64.random(in: 0...9_999_999_999_999, using: &random), counter: Int.random(in: 0...999_999, using: &random),
                node: ["kiosk-1", "k.2_b", "a:b", "x/y"][index % 4])
            let profile = UUID()
            let story = stories[Int.random(in: 0..<stories.count, using: &random)]
            let seconds =
                index % 3 == 0 ? dates[index % dates.count] : Double.random(in: 1_600_000_000...1_900_000_000, using: &random)
            switch index % 6 {
            case 0, 1: return SyncChange(hlc: hlc, body: .read(profile: profile, story: story, finishedAt: Date(timeIntervalSince1970: seconds)))
            case 2: return SyncChange(hlc: hlc, body: .position(profile: profile, story: story, sentence: nil))
            case 3: return SyncChange(hlc: hlc, body: .position(profile: profile, story: story, sentence: Int.random(in: 0...1_000_000, using: &random)))
            case 4: return SyncChange(hlc: hlc, body: .favourite(profile: profile, story: story, isFavourite: index % 2 == 0))
            default: return SyncChange(hlc: hlc, body: .profileField(profile: profile, field: "name", value: "Zoë \(index)"))
            }
        }
        return (0..<count).map { index in
            var made = change(index, &random)
            // A title from a kiosk that knows its library (issue 44), plain or with escapes.
            if made.story != nil, index % 5 != 0 { made.storyTitle = ["The Little Red Hen", stories[index % stories.count]][index % 2] }
            return made
        }
    }

    @Test func aChangeIsWrittenAsJSONEncoderWritesIt() throws {
        var fast = 0
        for change in Self.changes(count: 3000, seed: 7) {
            let expected = String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self)
            #expect(change.jsonText == expected)
            if change.fastJSON() != nil { fast += 1 }
        }
        // The usual changes (reads and positions of plain story ids) do take the fast path.
        #expect(fast > 600)
        let read = SyncChange(hlc: HLCTimestamp(millis: 1, node: "k"), body: .read(profile: UUID(), story: "s", finishedAt: Date()))
        #expect(read.fastJSON() != nil)
    }

    @Test func aStoryTitleTravelsOnlyWithAChangeThatNamesAStoryAndAsTheLibraryHasIt() throws {
        let database = try TemporaryDatabase("titles")
        defer { database.remove() }
        let store = try database.open()
        try store.markJoined()
        let reader = try store.profiles()[0].id!
        store.storyTitles.know([("hen", "The Little Red Hen"), ("bad", "Bad\u{1B}[31m title"), ("hen", "Another")])
        try store.recordFinishedRead(profileID: reader, storyID: "hen")
        try store.setPosition(profileID: reader, storyID: "bad", sentenceIndex: 3)
        try store.toggleFavourite(profileID: reader, storyID: "unknown")
        let sent = try store.pendingChanges().map(\.change).filter { $0.story != nil }
        #expect(sent.filter { $0.story == "hen" }.map(\.storyTitle) == ["The Little Red Hen", "The Little Red Hen"])
        // The sanitized title travels, never the escape; a story the library lacks has none.
        let bad = try #require(sent.first { $0.story == "bad" }?.storyTitle)
        #expect(bad.hasPrefix("Bad") && !bad.contains("\u{1B}"))
        #expect(sent.first { $0.story == "unknown" }?.storyTitle == nil)
        let hlc = HLCTimestamp(millis: 1_800_000_000_000, node: "k")
        var field = SyncChange(hlc: hlc, body: .profileField(profile: UUID(), field: "age", value: "5"))
        field.storyTitle = "Hen"
        #expect(SyncValidation.problem(with: field, nowMillis: hlc.millis)?.contains("only with a read") == true)
        for title in ["", String(repeating: "a", count: 201), "\u{202E}evil"] {
            let read = SyncChange(hlc: hlc, body: .read(profile: UUID(), story: "s", finishedAt: Date()), storyTitle: title)
            #expect(SyncValidation.problem(with: read, nowMillis: hlc.millis) != nil, "\(title)")
        }
    }

    @Test func aPulledReadRemovalDeletesTheReadHereAndOnlyIt() throws {
        let database = try TemporaryDatabase("read-removed")
        defer { database.remove() }
        let store = try database.open()
        try store.markJoined()
        let reader = try store.profiles()[0].id!
        try store.recordFinishedRead(profileID: reader, storyID: "hen")
        try store.recordFinishedRead(profileID: reader, storyID: "hen")
        let sent = try store.pendingChanges().map(\.change)
        let read = try #require(sent.first { if case .read = $0.body { true } else { false } })
        let profile = try #require(read.profile)
        let removal = SyncChange(hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "web"), body: .readRemoved(profile: profile, read: read.id))
        #expect(try store.applyPulled([removal], cursor: 1) == 1)
        #expect(try store.readCount(profileID: reader, storyID: "hen") == 1)
        #expect(try store.history(profileID: reader).count == 1)
        // Again (a page pulled twice): nothing more goes.
        #expect(try store.applyPulled([removal], cursor: 2) == 0)
        #expect(try store.readCount(profileID: reader, storyID: "hen") == 1)
        #expect(try store.syncStatus().setAside == 0)
    }

    @Test func anUploadIsWrittenAsJSONEncoderWritesIt() throws {
        let request = UploadRequest(changes: Self.changes(count: 300, seed: 8), kioskMillis: 1_764_215_000_123)
        #expect(request.json == (try JSONEncoder.sync.encode(request)))
        let empty = UploadRequest(changes: [], kioskMillis: -5)
        #expect(empty.json == (try JSONEncoder.sync.encode(empty)))
    }

    @Test func theServerReadsAnUploadAsTheDecoderReadsIt() throws {
        let request = UploadRequest(changes: Self.changes(count: 300, seed: 9), kioskMillis: 42)
        let data = request.json
        let read = try #require(SyncPageReader.uploadRequest(data))
        let decoded = try JSONDecoder.sync.decode(UploadRequest.self, from: data)
        #expect(read.changes == decoded.changes && read.changes == request.changes)
        #expect(read.kioskMillis == 42)
        // What the decoder refuses (a change that is not one, a key twice, a fraction) is left to it.
        let broken = String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""hlc":"#, with: #""hlc":5,"x":"#)
        #expect(SyncPageReader.uploadRequest(Data(broken.utf8)) == nil)
        #expect(SyncPageReader.uploadRequest(Data(#"{"changes":[],"kioskMillis":1,"kioskMillis":2}"#.utf8)) == nil)
        #expect(SyncPageReader.uploadRequest(Data(#"{"changes":[],"kioskMillis":1.5}"#.utf8)) == nil)
        #expect(SyncPageReader.uploadRequest(Data(#"{"changes":[]}"#.utf8)) == nil)
    }

    @Test func anOutboxEntryReadsAsTheDecoderReadsIt() throws {
        // As this version writes them (sorted keys) and as earlier ones did (JSONEncoder's own order).
        let plain = JSONEncoder()
        plain.dateEncodingStrategy = .millisecondsSince1970
        for change in Self.changes(count: 600, seed: 10) {
            for text in [change.jsonText, String(decoding: try plain.encode(change), as: UTF8.self)] {
                let decoded = try JSONDecoder.sync.decode(SyncChange.self, from: Data(text.utf8))
                if let read = SyncPageReader.change(text) { #expect(read == decoded) }
            }
        }
        #expect(SyncPageReader.change(#"{"id":"x"}"#) == nil)
    }

    @Test func aUUIDsTextIsFoundationsText() {
        for _ in 0..<2000 {
            let uuid = UUID()
            #expect(uuid.syncText == uuid.uuidString)
            #expect(UUID(syncText: uuid.uuidString) == uuid)
            #expect(UUID(syncText: uuid.uuidString.lowercased()) == uuid)
        }
        let text = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        // Whatever is not the usual form is UUID(uuidString:)'s to take or refuse.
        let variants: [String] = [
            text, String(text.dropLast()) + "G", "-" + String(text.dropFirst()), text + "0", String(text.dropLast()),
            text.replacingOccurrences(of: "-", with: ""), text.replacingOccurrences(of: "-", with: "_"), "", " " + String(text.dropFirst()),
            String(text.prefix(8)) + "é" + String(text.dropFirst(9)),
        ]
        for variant in variants {
            #expect(UUID(syncText: variant) == UUID(uuidString: variant), "\(variant)")
        }
    }

    @Test func aClockStampReadsAsItWasWritten() {
        var random = SeededGenerator(seed: 11)
        for index in 0..<1000 {
            let stamp = HLCTimestamp(
                millis: Int64.random(in: 0...9_999_999_999_999, using: &random), counter: Int.random(in: 0...999_999, using: &random),
                node: ["kiosk-\(index)", "a:b:c", "ü", ":"][index % 4])
            #expect(HLCTimestamp(stamp.description) == stamp)
        }
        #expect(HLCTimestamp("12:3:node:with:colons") == HLCTimestamp(millis: 12, counter: 3, node: "node:with:colons"))
        #expect(HLCTimestamp("-4:+5:n") == HLCTimestamp(millis: -4, counter: 5, node: "n"))
        for bad in ["", ":", "::", "1:2:", "1::n", ":2:n", "1:2", "x:2:n", "1:y:n", "1 :2:n", "99999999999999999999:1:n"] {
            #expect(HLCTimestamp(bad) == nil, "\(bad)")
        }
    }

    @Test func plainTextIsCheckedAsUnicodesTablesCheckIt() {
        var random = SeededGenerator(seed: 12)
        for _ in 0..<3000 {
            let text = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...8, using: &random)).map { _ in
                        Unicode.Scalar(UInt8.random(in: 0...0x7F, using: &random))
                    }))
            #expect(UnsafeCharacters.containsUnsafe(text) == text.unicodeScalars.contains(where: UnsafeCharacters.isUnsafe), "\(Array(text.utf8))")
            let slow =
                !text.isEmpty && text.count <= SyncValidation.nodeLength
                && text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
            #expect((SyncValidation.nodeProblem(text, "node") == nil) == slow, "\(Array(text.utf8))")
        }
        #expect(UnsafeCharacters.containsUnsafe("histoire-é\u{202E}"))
        #expect(SyncValidation.nodeProblem("kiosk-é", "node") != nil)
        #expect(SyncValidation.nodeProblem(String(repeating: "k", count: 65), "node") != nil)
    }

    @Test func theStoredClockReadsBackAndAsEarlierVersionsReadIt() throws {
        var random = SeededGenerator(seed: 13)
        for index in 0..<500 {
            var clock = HybridLogicalClock(
                node: ["kiosk-\(index)", "say \"hi\"", "a/b"][index % 3], offsetMillis: Int64.random(in: -1_000_000...1_000_000, using: &random))
            _ = clock.tick(now: Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &random)))
            let text = clock.storedText
            #expect(try HybridLogicalClock(storedText: text) == clock)
            // A version before this one reads what this one keeps, and this one reads what it kept.
            #expect(try JSONDecoder().decode(HybridLogicalClock.self, from: Data(text.utf8)) == clock)
            #expect(try HybridLogicalClock(storedText: String(decoding: JSONEncoder().encode(clock), as: UTF8.self)) == clock)
        }
        #expect(throws: (any Error).self) { try HybridLogicalClock(storedText: #"{"last":"1:2:k","node":"k"}"#) }
    }

    /// A pulled position is written to its register in one statement when it can be: whatever
    /// the register held (nothing, an older or newer stamp, a tie, this same change re-stamped,
    /// a stamp not written as this version writes them), it decides as reading the register does.
    @Test func theRegisterIsWrittenAtOnceAsReadingItDecides() throws {
        let database = try TemporaryDatabase("register")
        let store = try database.open()
        var random = SeededGenerator(seed: 14)
        let profile = UUID()
        let ids = (0..<4).map { _ in UUID() }
        func stamp() -> HLCTimestamp {
            HLCTimestamp(
                millis: Int64.random(in: 1_000...1_003, using: &random), counter: Int.random(in: 0...2, using: &random),
                node: ["a", "b", "B", "a-b", "a.b"][Int.random(in: 0..<5, using: &random)])
        }
        var taken = 0
        for round in 0..<600 {
            let change = SyncChange(id: ids[Int.random(in: 0..<4, using: &random)], hlc: stamp(), body: .position(profile: profile, story: "s", sentence: nil))
            let key = try #require(change.registerKey)
            // What the register holds before: nothing, a stamp as written, one written otherwise.
            let stored: (hlc: String, changeId: String?)? =
                switch round % 5 {
                case 0: nil
                case 1: ("5:1:a", ids[0].syncText)
                case 2: ("junk", nil)
                default: (stamp().description, [ids[0].syncText, ids[1].syncText, nil][round % 3])
                }
            func prepare(_ db: Database) throws {
                try db.execute(sql: "DELETE FROM syncRegister")
                if let stored {
                    try db.execute(sql: "INSERT INTO syncRegister (key, hlc, changeId) VALUES (?, ?, ?)", arguments: [key, stored.hlc, stored.changeId])
                }
            }
            func register(_ db: Database) throws -> [String?] {
                try Row.fetchOne(db, sql: "SELECT hlc, changeId FROM syncRegister WHERE key = ?", arguments: [key]).map { [$0["hlc"], $0["changeId"]] } ?? []
            }
            let (expected, after) = try store.write { db in
                try prepare(db)
                return (try StoryStore.takes(change, in: db), try register(db))
            }
            let (fast, fastAfter) = try store.write { db in
                try prepare(db)
                return (try StoryStore.takesAtOnce(change, in: db) || StoryStore.takes(change, in: db), try register(db))
            }
            #expect(fast == expected && fastAfter == after, "\(change.hlc) over \(String(describing: stored))")
            if expected { taken += 1 }
        }
        // Both outcomes were met many times.
        #expect(taken > 100 && taken < 500)
    }
}
