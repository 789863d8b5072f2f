import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 13, "timeouts that hold", on the kiosk's side: a sync call ends by its deadline whatever
/// the server does, and `storyreader sync` tries again, later each time, only when that can help.
@Suite struct SyncDeadlineTests {
    /// A server that answers a request with headers promising 100,000 bytes and then sends one byte
    /// every 200 ms for a minute, and hangs up: the connection is never idle, so URLRequest's own
    /// (idle) timeout never fires, and without a deadline of our own the call ends only when the
    /// server hangs up — as "could not be reached", not as a deadline passed.
    final class TricklingServer: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private let stopped = NSLock()
        private var isStopped = false

        init() throws {
            (listener, port) = try LoopbackListener.open(backlog: 4)
            LoopbackListener.acceptEach(on: listener) { [self] in serve($0) }
        }

        private func serve(_ client: Int32) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(client, &buffer, buffer.count)
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            _ = head.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            let hangUp = Date().addingTimeInterval(60)
            while !stopped.withLock({ isStopped }), Date() < hangUp {
                // MSG_NOSIGNAL: the client hanging up must not raise SIGPIPE in the test process.
                if send(client, " ", 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                usleep(200_000)
            }
            close(client)
        }

        func stop() {
            stopped.withLock { isStopped = true }
            LoopbackListener.close(listener)
        }
    }

    @Test func aServerThatTricklesBytesIsCutOffAtTheCallsDeadline() async throws {
        let server = try TricklingServer()
        defer { server.stop() }
        let database = try TemporaryDatabase("deadline")
        defer { database.remove() }
        let store = try database.open()
        try store.markJoined()
        let settings = SyncSettings(url: "http://127.0.0.1:\(server.port)", site: "branch", token: "branch.0123456789abcdef0123")
        let client = SyncClient(settings: settings, callDeadline: 1.5)
        await Self.expectDeadline("a round") { try await client.round(store) }
        // (No clock is read here: in a full parallel run the test's task may resume long after the
        // deadline fired, when the pool has a thread for it; the answer it gets is still the deadline's.)
        // Nothing was confirmed, so nothing left the outbox; the failure is kept for grown-ups.
        #expect(try store.syncStatus().outbox > 0)
        #expect(try store.syncStatus().lastError?.contains("did not answer within 1 second") == true)
    }

    /// The deadline itself, apart from URLSession's: with a request timeout of ten minutes, only the
    /// timer outside the request can end the call, and it ends it with its own failure.
    @Test func theDeadlineEndsACallURLSessionWouldKeepOpen() async throws {
        let server = try TricklingServer()
        defer { server.stop() }
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/sites/branch/changes")!, timeoutInterval: 600)
        await Self.expectDeadline("an answer") { _ = try await SyncClient.exchange(request, deadline: 1.5) }
    }

    /// `call` must end by its 1.5 s deadline: not with an answer, nor when the server hangs up.
    static func expectDeadline(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> Void) async {
        do {
            try await call()
            Issue.record("a server that never finishes its answer cannot give \(what)", sourceLocation: sourceLocation)
        } catch let failure as SyncFailure {
            guard case .timedOut(let seconds) = failure else {
                Issue.record("expected the deadline, got \(failure)", sourceLocation: sourceLocation)
                return
            }
            #expect(seconds == 1.5, sourceLocation: sourceLocation)
            #expect(failure.isTransient, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected the deadline, got \(error) (the server hung up first)", sourceLocation: sourceLocation)
        }
    }

    @Test func transientFailuresAreTriedAgainAfterWaitsThatDouble() async throws {
        var calls = 0
        var waits: [Double] = []
        let result = try await SyncClient.retrying(
            attempts: 4, firstWait: 1, sleep: { waits.append($0) },
            body: { () async throws -> String in
                calls += 1
                if calls == 1 { throw SyncFailure.unreachable("connection refused") }
                if calls == 2 { throw SyncFailure.refused(status: 503, message: "the database did not answer in time") }
                if calls == 3 { throw SyncFailure.timedOut(seconds: 10) }
                return "synced"
            })
        #expect(result == "synced")
        #expect(calls == 4)
        #expect(waits == [1, 2, 4])
    }

    @Test func aRefusalIsNotTriedAgainAndTheLastTransientFailureIsThrown() async throws {
        var calls = 0
        await #expect(throws: SyncFailure.self) {
            try await SyncClient.retrying(
                attempts: 3, firstWait: 1, sleep: { _ in },
                body: { () async throws -> Int in
                    calls += 1
                    throw SyncFailure.refused(status: 403, message: "this token belongs to another site")
                })
        }
        #expect(calls == 1)
        calls = 0
        var waits: [Double] = []
        do {
            _ = try await SyncClient.retrying(
                attempts: 3, firstWait: 0.5, sleep: { waits.append($0) },
                body: { () async throws -> Int in
                    calls += 1
                    throw SyncFailure.unreachable("try \(calls)")
                })
            Issue.record("three failures must end in the last one")
        } catch let failure as SyncFailure {
            #expect(failure.description.hasSuffix("try 3"))
        }
        #expect(calls == 3)
        #expect(waits == [0.5, 1])
    }
}
