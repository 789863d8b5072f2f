import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 32, item 4: the kiosk's own HTTP/1.1 client for `http://` sites, against servers that
/// answer as a test scripts them, byte for byte: kept-alive connections, chunked answers, and
/// servers that close mid-answer, say too much, say nothing, or do not speak HTTP.
@Suite struct PlainHTTPTests {
    /// A server whose every connection is handed to `serve` with its number (0, 1, …).
    final class RawServer: Sendable {
        let port: UInt16
        private let listener: Int32
        private let accepted = Atomic<Int>(0)

        init(_ serve: @escaping @Sendable (_ client: Int32, _ connection: Int) -> Void) throws {
            (listener, port) = try LoopbackListener.open()
            LoopbackListener.acceptEach(on: listener) { [self] client in
                serve(client, accepted.add(1, ordering: .relaxed).oldValue)
                close(client)
            }
        }

        var connections: Int { accepted.load(ordering: .relaxed) }
        func url(_ path: String = "/v1/health") -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
        func stop() { LoopbackListener.close(listener) }

        /// Reads one request (head and Content-Length body); its request line, or nil when the
        /// client closed the connection.
        static func readRequest(_ client: Int32) -> String? {
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let end = received.indices.dropLast(3).first(where: { received[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) {
                    let head = String(decoding: received[..<end], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if received.count >= end + 4 + length { return String(head.split(separator: "\r\n").first ?? "") }
                }
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { return nil }
                received.append(contentsOf: buffer[0..<count])
            }
        }

        /// A server that reads the request and holds the connection open, silent, until the client goes.
        static func silent() throws -> RawServer {
            try RawServer { client, _ in
                _ = readRequest(client)
                var byte: UInt8 = 0
                _ = read(client, &byte, 1)
            }
        }

        static func send(_ client: Int32, _ text: String) {
            _ = text.withCString { Glibc.send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }

        static func answer(_ body: String, extra: String = "") -> String {
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
        }
    }

    func get(_ server: RawServer, _ path: String = "/v1/health", deadline: Double = 5, pool: IdleConnections) async throws -> PlainHTTP.Answer {
        try await PlainHTTP.exchange("GET", server.url(path), headers: [("Authorization", "Bearer x")], body: nil, deadline: deadline, connections: pool)
    }

    /// `call` must fail with `expected`'s case (compared by description).
    func expectFailure(_ expected: SyncFailure, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> Void) async {
        do {
            try await call()
            Issue.record("expected \(expected), got an answer", sourceLocation: sourceLocation)
        } catch let failure as SyncFailure {
            #expect(failure.description == expected.description, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func answersOnAKeptAliveConnectionComeBackWholeAndTheConnectionIsUsedAgain() async throws {
        let paths = Mutex<[String]>([])
        let server = try RawServer { client, _ in
            while let line = RawServer.readRequest(client) {
                paths.withLock { $0.append(line) }
                RawServer.send(client, RawServer.answer(#"{"line":"\#(line)"}"#))
            }
        }
        defer { server.stop() }
        let pool = IdleConnections()
        for number in 1...3 {
            let answer = try await get(server, "/v1/sites/branch/changes?after=\(number)&limit=10", pool: pool)
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"line":"GET /v1/sites/branch/changes?after=\#(number)&limit=10 HTTP/1.1"}"#)
        }
        #expect(server.connections == 1)
        #expect(paths.withLock { $0.count } == 3)
    }

    @Test func aChunkedAnswerIsJoinedAndItsTrailersRead() async throws {
        let server = try RawServer { client, _ in
            while RawServer.readRequest(client) != nil {
                RawServer.send(
                    client, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\n{\"a\":\r\nA\r\n\"0123456\"}\r\n0\r\nX-Trailer: yes\r\n\r\n")
            }
        }
        defer { server.stop() }
        let pool = IdleConnections()
        for _ in 1...2 {
            let answer = try await get(server, pool: pool)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"a":"0123456"}"#)
        }
        #expect(server.connections == 1)
    }

    @Test func aServerThatClosesMidAnswerIsAnErrorThatSaysSo() async throws {
        let server = try RawServer { client, _ in
            _ = RawServer.readRequest(client)
            RawServer.send(client, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"changes\":[")
        }
        defer { server.stop() }
        await expectFailure(.unreachable(PlainHTTP.closedEarly)) { _ = try await get(server, pool: IdleConnections()) }
        #expect(SyncFailure.unreachable(PlainHTTP.closedEarly).isTransient)
    }

    @Test func anAnswerLargerThanTheLimitIsRefusedUnread() async throws {
        let chunked = Mutex(false)
        let sent = Atomic<Int>(0)
        let server = try RawServer { client, _ in
            _ = RawServer.readRequest(client)
            if chunked.withLock({ $0 }) {
                RawServer.send(client, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4000001\r\n")
            } else {
                RawServer.send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(PlainHTTP.maximumBodyBytes + 1)\r\n\r\n")
            }
            // Offers a body for as long as the client reads.
            let block = [UInt8](repeating: 32, count: 65536)
            while Glibc.send(client, block, block.count, Int32(MSG_NOSIGNAL)) > 0 { sent.add(block.count, ordering: .relaxed) }
        }
        defer { server.stop() }
        for isChunked in [false, true] {
            chunked.withLock { $0 = isChunked }
            await expectFailure(.answerTooLarge(limit: PlainHTTP.maximumBodyBytes)) { _ = try await get(server, pool: IdleConnections()) }
        }
        // Refused at the head (chunked: at the chunk's size line), not after reading 64 MB.
        #expect(sent.load(ordering: .relaxed) < PlainHTTP.maximumBodyBytes)
        #expect(SyncFailure.answerTooLarge(limit: 64 * 1024 * 1024).description == "the server's answer is larger than 64 MB: it was not read")
    }

    @Test func aServerThatSaysNothingMeetsTheDeadline() async throws {
        let server = try RawServer.silent()
        defer { server.stop() }
        await expectFailure(.timedOut(seconds: 1)) { _ = try await get(server, deadline: 1, pool: IdleConnections()) }
    }

    @Test func anAnswerThatIsNotHTTPIsAnError() async throws {
        let server = try RawServer { client, _ in
            _ = RawServer.readRequest(client)
            RawServer.send(client, "SSH-2.0-OpenSSH_9.2\r\n\r\n")
        }
        defer { server.stop() }
        await expectFailure(.unreachable(PlainHTTP.notHTTP)) { _ = try await get(server, pool: IdleConnections()) }
    }

    /// A kept connection the server closes after its answer, or drops on the next request
    /// unanswered: the next request goes on a new connection and gets its answer.
    @Test func aKeptConnectionTheServerDroppedIsReplaced() async throws {
        for dropsUnanswered in [false, true] {
            let server = try RawServer { client, connection in
                guard RawServer.readRequest(client) != nil else { return }
                RawServer.send(client, RawServer.answer(#"{"connection":\#(connection)}"#))
                if dropsUnanswered { _ = RawServer.readRequest(client) }
            }
            defer { server.stop() }
            let pool = IdleConnections()
            #expect(String(decoding: try await get(server, pool: pool).body, as: UTF8.self) == #"{"connection":0}"#)
            // The server's close of an idle connection reaches this end first.
            if !dropsUnanswered { try await Task.sleep(for: .milliseconds(100)) }
            #expect(String(decoding: try await get(server, pool: pool).body, as: UTF8.self) == #"{"connection":1}"#)
            #expect(server.connections == 2)
        }
    }

    /// A connection whose answer was followed by bytes nobody asked for, or that said
    /// `Connection: close`, is not used again.
    @Test func aConnectionIsOnlyKeptWhenItsAnswerEndedCleanly() async throws {
        for extra in ["garbage", "close"] {
            let server = try RawServer { client, connection in
                while RawServer.readRequest(client) != nil {
                    RawServer.send(
                        client,
                        extra == "close"
                            ? RawServer.answer("\(connection)", extra: "Connection: close\r\n") : RawServer.answer("\(connection)") + "HTTP/1.1 200")
                }
            }
            defer { server.stop() }
            let pool = IdleConnections()
            #expect(String(decoding: try await get(server, pool: pool).body, as: UTF8.self) == "0")
            #expect(String(decoding: try await get(server, pool: pool).body, as: UTF8.self) == "1")
        }
    }

    @Test func cancellingTheTaskEndsTheExchange() async throws {
        let server = try RawServer.silent()
        defer { server.stop() }
        let task = Task { try await get(server, deadline: 600, pool: IdleConnections()) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func aRefusedConnectionIsUnreachableAndAnHTTPSAddressIsNotTaken() async throws {
        let (listener, port) = try LoopbackListener.open()
        LoopbackListener.close(listener)
        do {
            _ = try await PlainHTTP.exchange(
                "GET", URL(string: "http://127.0.0.1:\(port)/v1/health")!, headers: [], body: nil, deadline: 5, connections: IdleConnections())
            Issue.record("a closed port answered")
        } catch let failure as SyncFailure {
            guard case .unreachable = failure else {
                Issue.record("expected unreachable, got \(failure)")
                return
            }
            #expect(failure.isTransient)
        }
        #expect(throws: SyncFailure.self) { try PlainHTTP.Target(URL(string: "https://example.org/v1")!) }
        let target = try PlainHTTP.Target(URL(string: "http://[::1]:8080/base/v1/sites/a%20b/changes?after=1")!)
        #expect(target.host == "::1")
        #expect(target.hostHeader == "[::1]:8080")
        #expect(target.requestTarget == "/base/v1/sites/a%20b/changes?after=1")
    }
}
