import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The kiosk's own reader of pull pages (issue 32): it must give what `JSONDecoder` gives, and
/// refuse (or leave to the decoder) whatever the decoder refuses.
struct SyncPageReaderTests {
    /// A page as a busy site sends it: reads with dates to the microsecond, positions, and a few
    /// changes of other kinds (which the decoder reads).
    static func page(count: Int, seed: UInt64) throws -> Data {
        var random = SeededGenerator(seed: seed)
        let profiles = (0..<3).map { _ in UUID() }
        let changes: [SyncChange] = (0..<count).map { index in
            let hlc = HLCTimestamp(millis: 1_700_000_000_000 + Int64(index), counter: index % 7, node: "kiosk-\(index % 5)")
            let profile = profiles[index % profiles.count]
            switch index % 9 {
            case 8: return SyncChange(hlc: hlc, body: .profileField(profile: profile, field: "name", value: "Zoë \"\(index)\""))
            case 1, 3, 5: return SyncChange(hlc: hlc, body: .position(profile: profile, story: "story-\(index)", sentence: index % 2 == 0 ? nil : index))
            default:
                let seconds = Double.random(in: 1_600_000_000...1_900_000_000, using: &random)
                return SyncChange(hlc: hlc, body: .read(profile: profile, story: "histoire-é-\(index)", finishedAt: Date(timeIntervalSince1970: seconds)))
            }
        }
        let bodies = try changes.enumerated().map {
            (seq: Int64($0.offset + 1), body: String(decoding: try JSONEncoder.sync.encode($0.element), as: UTF8.self))
        }
        return Data(PullResponse.json(bodies: bodies, cursor: Int64(count), more: true, serverMillis: 1_800_000_000_500))
    }

    /// What the decoder makes of `data`, and what the kiosk's reading makes of it: the same
    /// changes, frame and number of unreadable changes, or both an error.
    static func expectSame(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        let decoded = Result { try JSONDecoder.sync.decode(PullResponse.self, from: data) }
        let read = Result { try SyncClient.decode(PullResponse.self, from: data) }
        switch (decoded, read) {
        case (.success(let decoded), .success(let read)):
            #expect(read.changes == decoded.changes, sourceLocation: sourceLocation)
            #expect(read.unreadable.count == decoded.unreadable.count, sourceLocation: sourceLocation)
            #expect(
                (read.cursor, read.more, read.serverMillis) == (decoded.cursor, decoded.more, decoded.serverMillis),
                sourceLocation: sourceLocation)
        case (.failure, .failure): break
        default:
            Issue.record("decoder \(decoded), reader \(read): \(String(decoding: data.prefix(300), as: UTF8.self))", sourceLocation: sourceLocation)
        }
    }

    @Test func aPageReadsAsTheDecoderReadsIt() throws {
        let data = try Self.page(count: 200, seed: 1)
        let page = try #require(SyncPageReader.pull(data), "the server's own page is read without the decoder's help for its frame")
        let decoded = try JSONDecoder.sync.decode(PullResponse.self, from: data)
        #expect(page.changes == decoded.changes)
        #expect(page.changes.count == 200 && page.unreadable.isEmpty)
        #expect(page.cursor == 200 && page.more && page.serverMillis == 1_800_000_000_500)
        let empty = try #require(SyncPageReader.pull(Data(PullResponse.json(bodies: [], cursor: 9, more: false, serverMillis: 1))))
        #expect(empty.changes.isEmpty && empty.cursor == 9 && !empty.more)
    }

    /// Every prefix and thousands of one-byte changes of a page: the reader never takes what the
    /// decoder would not, nor reads it otherwise.
    @Test func mutatedPagesReadAsTheDecoderReadsThem() throws {
        let bytes = Array(try Self.page(count: 10, seed: 2))
        var random = SeededGenerator(seed: 32)
        let alphabet = Array("{}[]\",:0123456789.-+eE \\ntfuabcdlr".utf8) + [0x00, 0x1F, 0xC3, 0xFF]
        for end in stride(from: 0, through: bytes.count, by: 7) { Self.expectSame(Data(bytes[..<end])) }
        for _ in 0..<3000 {
            var mutated = bytes
            let at = Int.random(in: 0..<mutated.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: mutated[at] = alphabet.randomElement(using: &random)!
            case 1: mutated.remove(at: at)
            default: mutated.insert(alphabet.randomElement(using: &random)!, at: at)
            }
            Self.expectSame(Data(mutated))
        }
    }

    /// Hostile pages, by hand: wrong types, numbers too large, escapes in names and keys, a key
    /// twice, unknown keys, nesting past the limit. Each reads as the decoder reads it.
    @Test func hostilePagesReadAsTheDecoderReadsThem() throws {
        let profile = UUID().uuidString
        let id = UUID().uuidString
        func page(_ change: String, frame: String = #""cursor":3,"more":false,"serverMillis":1800000000000"#) -> Data {
            Data(#"{"changes":[\#(change)],\#(frame)}"#.utf8)
        }
        func read(_ fields: String, hlc: String = "1700000000000:000000:k") -> String {
            #"{"body":{"read":{\#(fields)}},"hlc":"\#(hlc)","id":"\#(id)"}"#
        }
        let good = #""finishedAt":1700000000123.456,"profile":"\#(profile)","story":"s""#
        let cases = [
            page(read(good)),
            page(read(#""finishedAt":"1700000000123","profile":"\#(profile)","story":"s""#)),  // a date as text
            page(read(#""finishedAt":1700000000123,"profile":"\#(profile)","story":5"#)),  // a story as a number
            page(read(#""finishedAt":1e999,"profile":"\#(profile)","story":"s""#)),  // out of range
            page(read(#""finishedAt":1,"profile":"not-a-uuid","story":"s""#)),
            page(read(#""finishedAt":1,"profile":"\#(profile)""#)),  // a field missing
            page(read(#""finishedAt":1,"profile":"\#(profile)","story":"a\nb""#)),  // a raw control character
            page(read(#""finishedAt":1,"profile":"\#(profile)","story":"\u0041\n\"\\ \ud83d\ude00""#)),  // escapes in a name
            page(read(#""finishedAt":1,"profile":"\#(profile)","stor\u0079":"s""#)),  // an escape in a key
            page(read(#""finishedAt":1,"profile":"\#(profile)","story":"s","story":"t""#)),  // a key twice
            page(read(#""finishedAt":1,"profile":"\#(profile)","story":"s","extra":[1,{"a":null}]"#)),  // an unknown key
            page(read(good, hlc: "not a clock")),
            page(read(good, hlc: "1700000000000:0:")),
            page(#"{"body":{"position":{"profile":"\#(profile)","sentence":99999999999999999999,"story":"s"}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"position":{"profile":"\#(profile)","sentence":3.0,"story":"s"}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"position":{"profile":"\#(profile)","sentence":"3","story":"s"}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"position":{"profile":"\#(profile)","sentence":null,"story":"s"}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"position":{"profile":"\#(profile)","story":"s"}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"position":{"profile":"\#(profile)","story":"s"},"read":{}},"hlc":"1:0:k","id":"\#(id)"}"#),  // two kinds
            page(#"{"body":{},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"unknown":{}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"{"body":{"pinHash":{"record":null}},"hlc":"1:0:k","id":"\#(id)"}"#),
            page(#"[]"#),
            page(read(good), frame: #""cursor":"3","more":false,"serverMillis":1"#),
            page(read(good), frame: #""cursor":3,"more":0,"serverMillis":1"#),
            page(read(good), frame: #""cursor":3,"more":false"#),
            page(read(good), frame: #""cursor":3,"cursor":4,"more":false,"serverMillis":1"#),
            page(read(good), frame: #""cursor":3,"more":false,"serverMillis":1,"#),
            page(
                read(good), frame: #""cursor":3,"more":false,"serverMillis":1,"x":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600)),
            page(read(good), frame: #""cursor":99999999999999999999,"more":false,"serverMillis":1"#),
            Data("\u{FEFF}".utf8) + page(read(good)),
            page(read(good)) + Data(" \n".utf8),
            page(read(good)) + Data("{}".utf8),
        ]
        for data in cases { Self.expectSame(data) }
    }

    /// An upload's answer, with its page, without, with a null one and with one that does not
    /// read (the upload stands; the page is left out and pulled again).
    @Test func anUploadsAnswerReadsAsTheDecoderReadsIt() throws {
        let page = Array(try Self.page(count: 20, seed: 3))
        let answer = try JSONEncoder.sync.encode(UploadResponse(stored: 5, serverMillis: 1_800_000_000_000, clockWarning: "ahead"))
        let cases: [Data] = [
            Data(UploadResponse.json(encoded: answer, page: page)),
            answer,
            Data(UploadResponse.json(encoded: answer, page: Array("null".utf8))),
            Data(UploadResponse.json(encoded: answer, page: Array(page.dropLast(2)) + Array("}".utf8))),
            Data(UploadResponse.json(encoded: answer, page: Array(#"{"changes":[],"cursor":1}"#.utf8))),
            Data(#"{"stored":"5","serverMillis":1}"#.utf8),
            Data(#"{"stored":5,"serverMillis":1,"clockWarning":5}"#.utf8),
        ]
        for data in cases {
            let decoded = Result { try JSONDecoder.sync.decode(UploadResponse.self, from: data) }
            let read = Result { try SyncClient.decode(UploadResponse.self, from: data) }
            switch (decoded, read) {
            case (.success(let decoded), .success(let read)):
                #expect((read.stored, read.serverMillis, read.clockWarning) == (decoded.stored, decoded.serverMillis, decoded.clockWarning))
                #expect(read.page?.changes == decoded.page?.changes)
                #expect(read.page?.cursor == decoded.page?.cursor)
            case (.failure, .failure): break
            default: Issue.record("decoder \(decoded), reader \(read)")
            }
        }
        let withPage = try #require(SyncPageReader.upload(Data(UploadResponse.json(encoded: answer, page: page))))
        #expect(withPage.page?.changes.count == 20 && withPage.stored == 5 && withPage.clockWarning == "ahead")
    }

    /// Pulled dates are stored as GRDB stores them, to the character.
    @Test func datesAreStoredAsGRDBStoresThem() {
        var random = SeededGenerator(seed: 5)
        var dates = [0, 951_782_400, 951_868_799.999, 4_107_542_400, 253_402_300_799.999, 1_700_000_000.0005].map(Date.init(timeIntervalSince1970:))
        for _ in 0..<5000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<253_402_300_800, using: &random)))
            // As the wire's milliseconds make them.
            dates.append(Date(timeIntervalSince1970: Double(Int64.random(in: 0..<4_000_000_000_000, using: &random)) / 1000.0))
        }
        dates.append(Date(timeIntervalSince1970: -1))
        for date in dates {
            #expect(StoryStore.databaseDate(date) == date.databaseValue, "\(date.timeIntervalSince1970)")
        }
    }
}

/// A pulled position that forgets where to resume (one with every finished read) takes the fast
/// path of ``StoryStore/forgetPosition(_:profile:story:children:in:)``: it must do what the
/// general path did, for a newer and an older clock, the same change again, a child that is not
/// here and a child removed for good.
struct PulledPositionTests {
    @Test func aForgottenPositionMergesAsEveryOtherChange() throws {
        let database = try TemporaryDatabase("forget")
        defer { database.remove() }
        let store = try database.open()
        try store.markJoined()
        let reader = try store.profiles()[0].id!
        try store.setPosition(profileID: reader, storyID: "fox", sentenceIndex: 4)
        let local = try #require(try store.pendingChanges(limit: 10_000).last?.change)
        guard case .position(let profile, "fox", 4) = local.body else {
            Issue.record("expected the position just set, got \(local)")
            return
        }
        // Times after the kiosk's own clock (the test store's, which need not be this machine's).
        let now = local.hlc.millis
        func forget(_ millis: Int64, profile: UUID = profile, id: UUID = UUID()) -> SyncChange {
            SyncChange(id: id, hlc: HLCTimestamp(millis: millis, node: "other"), body: .position(profile: profile, story: "fox", sentence: nil))
        }
        // Older than this kiosk's own: it loses, and changes nothing.
        #expect(try store.applyPulled([forget(local.hlc.millis - 60_000)], cursor: 1) == 0)
        #expect(try store.position(profileID: reader, storyID: "fox") == 4)
        // A child that is not here: nothing.
        #expect(try store.applyPulled([forget(now + 1000, profile: UUID())], cursor: 2) == 0)
        #expect(try store.position(profileID: reader, storyID: "fox") == 4)
        // Newer: the position is forgotten, and a later older position of the same page loses to it.
        let newer = forget(now + 1000)
        let older = SyncChange(hlc: HLCTimestamp(millis: now + 500, node: "other"), body: .position(profile: profile, story: "fox", sentence: 9))
        #expect(try store.applyPulled([newer, older], cursor: 3) == 1)
        #expect(try store.position(profileID: reader, storyID: "fox") == nil)
        // The same change coming back re-stamped older takes its new stamp, as every register
        // change does; another change as old loses.
        #expect(try store.applyPulled([forget(now + 2)], cursor: 4) == 0)
        #expect(try store.applyPulled([forget(now + 2, id: newer.id)], cursor: 4) == 1)
        #expect(try store.applyPulled([forget(now + 3)], cursor: 4) == 1)
        #expect(try store.syncStatus().cursor == 4)
    }

    @Test func aForgottenPositionOfARemovedChildIsIgnored() throws {
        let database = try TemporaryDatabase("forget-removed")
        defer { database.remove() }
        let store = try database.open()
        try store.markJoined()
        let profile = UUID()
        let now = HybridLogicalClock.millis(store.now)
        let removed = SyncChange(hlc: HLCTimestamp(millis: now, node: "other"), body: .profileRemoved(profile: profile))
        let forget = SyncChange(hlc: HLCTimestamp(millis: now + 1, node: "other"), body: .position(profile: profile, story: "fox", sentence: nil))
        #expect(try store.applyPulled([removed, forget], cursor: 2) == 1)
        #expect(try store.syncStatus().setAside == 0)
    }
}
