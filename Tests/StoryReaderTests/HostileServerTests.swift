import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A site server that answers every request with what a test chose (a hostile or broken one):
/// one thread per connection, one answer per connection, each request counted.
final class ScriptedSite: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var requests: [String] = []
    private let answer: @Sendable (String) -> String

    /// `answer` gets the request line (`GET /v1/… HTTP/1.1`) and returns the JSON body sent with 200.
    init(answer: @escaping @Sendable (String) -> String) throws {
        self.answer = answer
        (listener, port) = try LoopbackListener.open()
        LoopbackListener.acceptEach(on: listener) { [self] in serve($0) }
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var requestLines: [String] { lock.withLock { requests } }

    private func serve(_ client: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        // Read the head and, when it says so, the whole body.
        while true {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let length =
                text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if text[end.upperBound...].utf8.count >= length { break }
        }
        let line = String(String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? "")
        lock.withLock { requests.append(line) }
        let body = answer(line)
        let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = response.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        close(client)
    }

    func stop() { LoopbackListener.close(listener) }
}

/// Issue 33, item 4: a hostile or broken server cannot hang or stop a kiosk.
@Suite struct HostileServerTests {
    static let lowest = "-9223372036854775808"

    func joinedKiosk(_ label: String, url: String) throws -> (TemporaryDatabase, StoryStore, SyncClient) {
        let database = try TemporaryDatabase(label)
        let store = try database.open()
        try store.markJoined()
        let client = SyncClient(settings: SyncSettings(url: url, site: "branch", token: "branch.0123456789abcdef0123"), callDeadline: 5)
        return (database, store, client)
    }

    /// serverMillis = Int64.min in every answer, and "more" for ever without moving the cursor:
    /// the round ends with an error after two pages (it asked 2,270 times in 60 s), the clock is
    /// left alone with a warning, and `sync` and `sync join` end without a crash.
    @Test func theLowestServerClockAndAStuckCursorEndTheRound() async throws {
        let server = try ScriptedSite { line in
            line.hasPrefix("POST")
                ? #"{"stored":0,"serverMillis":\#(Self.lowest)}"#
                : #"{"changes":[],"cursor":0,"more":true,"serverMillis":\#(Self.lowest)}"#
        }
        defer { server.stop() }
        let (database, store, client) = try joinedKiosk("stuck", url: server.url)
        defer { database.remove() }
        let clockBefore = try store.read { db in try StoryStore.loadClock(in: db) }
        do {
            try await client.round(store)
            Issue.record("a stuck cursor ended the round without an error")
        } catch SyncFailure.stuckCursor(let cursor) {
            #expect(cursor == 0)
        }
        #expect(server.requestLines.filter { $0.hasPrefix("GET") }.count == 1)
        #expect(try store.read { db in try StoryStore.loadClock(in: db) }.offsetMillis == clockBefore.offsetMillis)
        #expect(try store.syncStatus().lastError?.contains("did not move past change 0") == true)

        try SyncClient.save(client.settings, in: database.url)
        let sync = try StoryReaderProcess.run(["sync", "--attempts", "1"], dataDirectory: database.url.path)
        #expect(sync.status == 1, "\(sync.standardError)")
        #expect(sync.standardError.contains("did not move past change 0"), "\(sync.standardError)")
        let folder = try TemporaryFolder("join-hostile")
        defer { folder.remove() }
        let join = try StoryReaderProcess.run(["sync", "join", server.url, "--token", "branch.0123456789abcdef0123"], dataDirectory: folder.url.path)
        #expect(join.status == 0, "\(join.standardError)")
        #expect(join.standardOutput.contains("The first sync did not work yet"), "\(join.standardOutput)")
    }

    /// A server that moves the cursor by one change a page and always says "more": one round
    /// stops after a bounded number of pages, without an error (the next round goes on).
    @Test func oneRoundPullsABoundedNumberOfPages() async throws {
        let server = try ScriptedSite { line in
            let after = line.split(separator: "after=").last.flatMap { Int64($0.prefix { $0.isNumber }) } ?? 0
            return #"{"changes":[],"cursor":\#(after + 1),"more":true,"serverMillis":\#(HybridLogicalClock.millis(Date()))}"#
        }
        defer { server.stop() }
        let (database, store, client) = try joinedKiosk("endless", url: server.url)
        defer { database.remove() }
        try store.confirmUploaded(through: Int64.max)
        try await client.round(store)
        #expect(server.requestLines.count == SyncClient.maximumPagesPerRound)
        #expect(try store.syncCursor() == Int64(SyncClient.maximumPagesPerRound))
    }

    /// A server clock out of range (here in the year 1970) is ignored with a warning: the kiosk
    /// does not move its clock by it.
    @Test func aServerClockOutOfRangeIsIgnoredWithAWarning() async throws {
        let server = try ScriptedSite { line in
            line.hasPrefix("POST") ? #"{"stored":1,"serverMillis":5}"# : #"{"changes":[],"cursor":0,"more":false,"serverMillis":5}"#
        }
        defer { server.stop() }
        let (database, store, client) = try joinedKiosk("clock", url: server.url)
        defer { database.remove() }
        let round = try await client.round(store)
        #expect(round.clockWarning == SyncClient.implausibleServerClock)
        #expect(try store.read { db in try StoryStore.loadClock(in: db) }.offsetMillis == 0)
    }

    /// Issue 32: the upload's answer brings the pull's first page when the kiosk asked for it; the
    /// round then asks for no page of its own. A page in that answer that does not read as one is
    /// left out (the upload was stored all the same) and the kiosk pulls as before.
    @Test func aPageInTheUploadsAnswerSavesThePull() async throws {
        let zoe = SyncChange(
            hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "other"), body: .profileField(profile: UUID(), field: "name", value: "Zoe"))
        let page = String(
            decoding: try JSONEncoder.sync.encode(PullResponse(changes: [zoe], cursor: 7, more: false, serverMillis: HybridLogicalClock.millis(Date()))),
            as: UTF8.self)
        for broken in [false, true] {
            let server = try ScriptedSite { line in
                let now = HybridLogicalClock.millis(Date())
                if line.hasPrefix("POST") {
                    return line.contains("?after=0&limit=")
                        ? #"{"stored":1,"serverMillis":\#(now),"page":\#(broken ? "5" : page)}"# : #"{"stored":1,"serverMillis":\#(now)}"#
                }
                return #"{"changes":[],"cursor":7,"more":false,"serverMillis":\#(now)}"#
            }
            defer { server.stop() }
            let (database, store, client) = try joinedKiosk("page", url: server.url)
            defer { database.remove() }
            try store.recordFinishedRead(profileID: try store.profiles()[0].id!, storyID: "fox")
            let round = try await client.round(store)
            #expect(round.uploaded >= 1)
            #expect(server.requestLines.first?.hasPrefix("POST /v1/sites/branch/changes?after=0&limit=") == true)
            #expect(server.requestLines.filter { $0.hasPrefix("GET") }.count == (broken ? 1 : 0))
            #expect(try store.profiles().contains { $0.name == "Zoe" } == !broken)
            #expect(try store.syncCursor() == 7)
            #expect(try store.syncStatus().outbox == 0)
        }
    }
}
