import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

#if canImport(Glibc)
    import Glibc
#endif

/// A kiosk newer than its site's server: the changes of a kind the server does not know are kept
/// apart by the real server (in PostgreSQL) and named in its answer, the rest of the batch is
/// stored, and the kiosk keeps those changes in its outbox until a server that knows them takes them.
extension SyncServerTests {
    @Test func aChangeOfAKindTheServerDoesNotKnowIsKeptApartAndTheRestOfTheBatchStored() async throws {
        let token = try addSite("newer-kiosk")
        let k = try kiosk("newer", token: token)
        defer { k.folder.remove() }
        let now = HybridLogicalClock.millis(Date())
        let known = SyncChange(hlc: HLCTimestamp(millis: now, node: "k"), body: .failedPIN(kiosk: "k", at: Date()))
        let newer = SyncChange(hlc: HLCTimestamp(millis: now + 1, node: "k"), body: .failedPIN(kiosk: "k", at: Date()))
        // The second change as a newer kiosk would send a kind this server has never heard of.
        func json(_ change: SyncChange) throws -> String { String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self) }
        let renamed = try json(newer).replacingOccurrences(of: "\"failedPIN\":{", with: "\"stickerEarned\":{")
        #expect(renamed != (try json(newer)))
        let text = #"{"changes":["# + (try json(known)) + "," + renamed + #"],"kioskMillis":\#(now)}"#
        let url = try #require(URL(string: site.serve.url + SyncAPI.changesPath(site: "newer-kiosk")))
        for _ in 0..<2 {
            // Sent twice (a kiosk sends it again each round): kept once.
            let (status, data) = try await k.client.exchange("POST", url, body: Data(text.utf8))
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            let answer = try JSONDecoder.sync.decode(UploadResponse.self, from: data)
            #expect(answer.unknownKinds?.map(\.id) == [newer.id])
            #expect(answer.unknownKinds?.first?.reason.contains("stickerEarned") == true)
        }
        #expect(try serverRows(site: "newer-kiosk") == 1, "the known change is stored, the other is not in the log")
        let kept = try site.postgres.psql(
            "SELECT kind || ' ' || count(*) FROM set_aside WHERE id = '\(newer.id.uuidString.lowercased())' GROUP BY kind")
        #expect(kept == "stickerEarned 1")
        // A batch that is not one is still refused whole.
        let broken = text.replacingOccurrences(of: "\"stickerEarned\":{", with: "\"stickerEarned\":[")
        let (status, _) = try await k.client.exchange("POST", url, body: Data(broken.utf8))
        #expect(status == 400)
    }

    /// The kiosk's side, against the real server behind a proxy that renames the kind of every
    /// bookmark the kiosk uploads (the server then meets a kind it does not know, as an older
    /// server does): the read is uploaded, the bookmark stays in the outbox, and once the kiosk
    /// talks to a server that knows bookmarks (the proxy gone) it is stored and the outbox empties.
    /// `olderServer`: the proxy answers a batch with a bookmark as servers from before this change
    /// do (400, "not a valid batch", naming no change), and the kiosk still sends the rest.
    @Test(arguments: [false, true]) func aKioskKeepsWhatTheServerDoesNotKnowAndStillUploadsTheRest(olderServer: Bool) async throws {
        let name = "newer-kiosk-round" + (olderServer ? "-older" : "")
        let token = try addSite(name)
        let port = try #require(URL(string: site.serve.url)?.port)
        let proxy = try KindRenamingProxy(target: UInt16(port), answerAsOlderServer: olderServer)
        defer { proxy.close() }
        let k = try kiosk("newer-round", token: token, url: proxy.url)
        defer { k.folder.remove() }
        let child = try #require(try k.store.profiles().first?.id)
        try k.store.recordFinishedRead(profileID: child, storyID: "fox")
        let bookmark = Bookmark(story: "fox", word: 3, sentence: 0, text: "fox", note: nil, createdAt: .distantPast)
        try k.store.saveBookmark(bookmark, profileID: child)
        let before = try k.store.syncStatus().outbox
        for _ in 0..<2 {
            try await k.client.round(k.store)
            #expect(try k.store.pendingChanges(limit: 100).map(\.change.kind) == ["bookmark"], "only the bookmark waits")
        }
        #expect(proxy.renamed > 0)
        let site1 = try await k.client.siteSnapshot()
        #expect(site1.reads.count == 1)
        #expect(try serverRows(site: name) == before - 1)
        // The site's server updated: the same kiosk, straight to it.
        var direct = k.client
        direct.settings.url = site.serve.url
        try await direct.round(k.store)
        #expect(try k.store.syncStatus().outbox == 0)
        #expect(try serverRows(site: name) == before)
    }
}

/// Forwards each HTTP request to the real server on `target`, with every uploaded change whose
/// kind is `bookmark` renamed to `bookmarkFromTheFuture`: the only thing not real in the test above
/// is which kind the server does not know. With `answerAsOlderServer` it answers such a batch
/// itself, with the 400 a server from before kept-apart kinds gives (its words, from
/// `SyncServer.guarded`): that build cannot run here.
final class KindRenamingProxy: Sendable {
    let descriptor: Int32
    let port: UInt16
    private let count = LockedValue(0)
    var renamed: Int { count.withLock { $0 } }
    var url: String { "http://127.0.0.1:\(port)" }

    init(target: UInt16, answerAsOlderServer: Bool = false) throws {
        (descriptor, port) = try LoopbackListener.open()
        let count = self.count
        LoopbackListener.acceptEach(on: descriptor) { client in
            Self.forward(client, to: target, count: count, answerAsOlderServer: answerAsOlderServer)
        }
    }

    func close() { LoopbackListener.close(descriptor) }

    static func forward(_ client: Int32, to target: UInt16, count: LockedValue<Int>, answerAsOlderServer: Bool) {
        defer { Glibc.close(client) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func fill() -> Bool {
            let read = recv(client, &buffer, buffer.count, 0)
            guard read > 0 else { return false }
            received += buffer[0..<read]
            return true
        }
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            guard fill() else { return }
            headEnd = received.indices.dropLast(3).first { Array(received[$0..<($0 + 4)]) == separator }
        }
        let head = String(decoding: received[..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let length =
            lines.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
        while received.count < headEnd! + 4 + length { guard fill() else { return } }
        var body = String(decoding: received[(headEnd! + 4)..<(headEnd! + 4 + length)], as: UTF8.self)
        let pattern = #""body"\s*:\s*\{\s*"bookmark"\s*:"#
        let renamings = body.ranges(of: try! Regex(pattern)).count
        if renamings > 0 {
            count.withLock { $0 += renamings }
            body = body.replacing(try! Regex(pattern), with: #""body":{"bookmarkFromTheFuture":"#)
        }
        if answerAsOlderServer && renamings > 0 {
            let refusal = #"{"error":"the request is not a valid batch: dataCorrupted(Swift.DecodingError.Context(debugDescription: \"Invalid enum\"))"}"#
            let answer =
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: \(refusal.utf8.count)\r\nConnection: close\r\n\r\n" + refusal
            send(all: Array(answer.utf8), to: client)
            return
        }
        lines.removeAll { $0.lowercased().hasPrefix("content-length:") || $0.lowercased().hasPrefix("connection:") }
        lines += ["Content-Length: \(body.utf8.count)", "Connection: close"]
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)

        guard let server = TCP.connect(port: target, from: "127.0.0.1") else { return }
        defer { Glibc.close(server) }
        send(all: request, to: server)
        while true {
            let read = recv(server, &buffer, buffer.count, 0)
            guard read > 0 else { break }
            send(all: Array(buffer[0..<read]), to: client)
        }
    }

    static func send(all bytes: [UInt8], to socket: Int32) {
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard wrote > 0 else { return }
            sent += wrote
        }
    }
}
