import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The server's pull page spliced from stored bodies (issue 32): the same page a kiosk decodes
/// from the encoder's, and a syntax check that agrees with a real JSON parser.
struct SyncPageTests {
    static let changes: [SyncChange] = [
        SyncChange(
            hlc: HLCTimestamp(millis: 1_800_000_000_000, node: "a"),
            body: .read(profile: UUID(), story: "lighthouse", finishedAt: Date(timeIntervalSince1970: 1_800_000_000))),
        SyncChange(
            hlc: HLCTimestamp(millis: 1_800_000_000_001, counter: 3, node: "b"),
            body: .profileField(profile: UUID(), field: "name", value: "Zoë \"the\" \\ reader\n")),
        SyncChange(hlc: HLCTimestamp(millis: 1_800_000_000_002, node: "c"), body: .position(profile: UUID(), story: "s", sentence: nil)),
        SyncChange(hlc: HLCTimestamp(millis: 1_800_000_000_003, node: "d"), body: .kioskSession(session: UUID(), kiosk: "k", record: #"{"id":1}"#)),
    ]

    @Test func aSplicedPageDecodesAsTheEncodedOne() throws {
        let bodies = try Self.changes.enumerated().map {
            (seq: Int64($0.offset + 1), body: String(decoding: try JSONEncoder.sync.encode($0.element), as: UTF8.self))
        }
        let spliced = try JSONDecoder.sync.decode(
            PullResponse.self, from: Data(PullResponse.json(bodies: bodies, cursor: 4, more: true, serverMillis: 1_800_000_000_500)))
        let encoded = try JSONDecoder.sync.decode(
            PullResponse.self, from: try JSONEncoder.sync.encode(PullResponse(changes: Self.changes, cursor: 4, more: true, serverMillis: 1_800_000_000_500)))
        #expect(spliced.changes == Self.changes)
        #expect(spliced.changes == encoded.changes)
        #expect((spliced.cursor, spliced.more, spliced.serverMillis) == (encoded.cursor, encoded.more, encoded.serverMillis))
        #expect(spliced.unreadable.isEmpty)

        let empty = try JSONDecoder.sync.decode(PullResponse.self, from: Data(PullResponse.json(bodies: [], cursor: 7, more: false, serverMillis: 1)))
        #expect(empty.changes.isEmpty && empty.cursor == 7 && !empty.more)
    }

    /// A body that is not JSON is left out and named; one that is JSON but no change reaches the
    /// kiosk as unreadable (set aside there), and the rest of the page still reads.
    @Test func aBodyThatIsNotJSONIsLeftOutOfThePage() throws {
        let good = try Self.changes.map { String(decoding: try JSONEncoder.sync.encode($0), as: UTF8.self) }
        let rows: [(seq: Int64, body: String)] = [
            (1, good[0]), (2, "not json"), (3, #"{"id":"#), (4, #"{"neither":"a change"}"#), (5, good[1]), (6, "{}}"), (7, good[2]),
        ]
        var skipped: [Int64] = []
        let page = try JSONDecoder.sync.decode(
            PullResponse.self, from: Data(PullResponse.json(bodies: rows, cursor: 7, more: false, serverMillis: 1) { skipped.append($0) }))
        #expect(skipped == [2, 3, 6])
        #expect(page.changes == Array(Self.changes.prefix(3)))
        #expect(page.unreadable.count == 1)
        #expect(page.cursor == 7)
    }

    /// The server reads a page of its log as one row (the bodies as one text, with their lengths):
    /// cut by those lengths, it is the page the rows give, bad rows left out the same; a page
    /// whose numbers do not rise or whose lengths do not cut its text is refused (the server then
    /// reads the rows one by one).
    @Test func aPageReadAsOneRowIsThePageItsRowsGive() throws {
        let good = try Self.changes.map { String(decoding: try JSONEncoder.sync.encode($0), as: UTF8.self) }
        let rows: [(seq: Int64, body: String)] = [
            (3, good[0]), (5, "not json"), (8, good[1]), (9, #"{"neither":"a change"}"#), (12, "{\"é\":\"ü\"}}"), (13, good[2]), (20, good[3]),
        ]
        let lengths = rows.map { Int32($0.body.utf8.count) }
        let page = try #require(LogPage(seqs: rows.map(\.seq), lengths: lengths, text: rows.map(\.body).joined()))
        #expect(page == LogPage(rows: rows))
        for count in [0, 1, 4, rows.count, rows.count + 3] {
            var fromRows: [Int64] = []
            var fromPage: [Int64] = []
            let expected = PullResponse.json(bodies: rows.prefix(count), cursor: 20, more: true, serverMillis: 1) { fromRows.append($0) }
            #expect(PullResponse.json(page, count: count, cursor: 20, more: true, serverMillis: 1) { fromPage.append($0) } == expected)
            #expect(fromPage == fromRows)
        }
        var skipped: [Int64] = []
        let decoded = try JSONDecoder.sync.decode(
            PullResponse.self, from: Data(PullResponse.json(page, count: 5, cursor: 12, more: true, serverMillis: 1) { skipped.append($0) }))
        #expect(skipped == [5, 12])
        #expect(decoded.changes == Array(Self.changes.prefix(2)) && decoded.unreadable.count == 1)

        let text = rows.map(\.body).joined()
        #expect(LogPage(seqs: [3, 5, 5, 9, 12, 13, 20], lengths: lengths, text: text) == nil, "numbers that do not rise")
        #expect(LogPage(seqs: [3, 5, 8, 9, 12, 13], lengths: Array(lengths.prefix(6)), text: text) == nil, "lengths short of the text")
        #expect(LogPage(seqs: rows.map(\.seq), lengths: lengths.map { $0 + 1 }, text: text) == nil, "lengths past the text")
        #expect(LogPage(seqs: [1, 2], lengths: [-1, Int32(text.utf8.count + 1)], text: text) == nil, "a negative length")
        #expect(LogPage(seqs: [1], lengths: [1, 2], text: "abc") == nil, "as many lengths as numbers")
        #expect(LogPage(seqs: [], lengths: [], text: "")?.count == 0)
    }

    /// The check says yes exactly when Foundation's parser reads the text as one value: on
    /// hand-picked edge cases, and on every prefix and many one-byte mutations of real changes.
    @Test func theSyntaxCheckAgreesWithAParser() throws {
        var cases = [
            "{}", "[]", "0", "-0", "1.5e+10", "-1E-2", "\"\\u00e9\\n\"", "true", "null", " { \"a\" : [1, {\"b\": null}] } ",
            "", " ", "01", "1.", ".5", "1e", "+1", "[1,]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "\"\\x\"", "\"\\u12\"", "\"a\u{1}\"",
            "tru", "nul", "[1 2]", "{} {}", "\"unterminated", "[[[[]]]]", "{\"a\":1}}", "-", "--1", "1e+",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ]
        var random = SeededGenerator(seed: 32)
        for change in Self.changes {
            let text = String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self)
            let bytes = Array(text.utf8)
            for end in 0...bytes.count { cases.append(String(decoding: bytes[..<end], as: UTF8.self)) }
            let alphabet = Array("{}[]\",:0123456789.-+eE \\ntfu".utf8)
            for _ in 0..<300 {
                var mutated = bytes
                mutated[Int.random(in: 0..<mutated.count, using: &random)] = alphabet.randomElement(using: &random)!
                cases.append(String(decoding: mutated, as: UTF8.self))
            }
        }
        for text in cases {
            let parsed = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
            // Foundation has no depth limit of ours; past it the check refuses on purpose.
            let expected = parsed && !text.hasPrefix(String(repeating: "[", count: JSONSyntax.maximumDepth + 1))
            #expect(JSONSyntax.isValue(text) == expected, "\(text.prefix(120).debugDescription)")
        }
    }
}
