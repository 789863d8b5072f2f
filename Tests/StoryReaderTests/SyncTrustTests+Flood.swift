import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Issue 43, items 3, 4 and the wrong-token guesses: what connections and requests without a
/// kiosk token can do to a real `storyreader serve` on a real PostgreSQL.
extension SyncTrustTests {
    /// Health probes, each given `deadline` seconds: the seconds each took (nil: no "ok" in time).
    func probeHealth(_ server: String, count: Int, deadline: Double = 1) async -> [Double?] {
        var times: [Double?] = []
        for _ in 0..<count {
            let start = Date()
            let answer = await health(server, deadline: deadline)
            times.append(answer == "ok" ? Date().timeIntervalSince(start) : nil)
            try? await Task.sleep(for: .milliseconds(50))
        }
        return times
    }

    /// "p50 … ms, p99 … ms, n of m answered" for a benchmark-style line.
    func figures(_ times: [Double?]) -> String {
        let answered = times.compactMap(\.self).sorted()
        func percentile(_ p: Double) -> String {
            guard !answered.isEmpty else { return "-" }
            return String(format: "%.1f ms", answered[min(answered.count - 1, Int(Double(answered.count) * p))] * 1000)
        }
        return "p50 \(percentile(0.5)), p99 \(percentile(0.99)), \(answered.count) of \(times.count) answered within 1 s"
    }

    /// The issue's attack: 4,200 sockets that send nothing, held open against a server whose cap
    /// is what its open-file limit allows (4,096). `/v1/health` answers within 1 s and a kiosk
    /// syncs while they are held; they filled the cap and kept both out for 75 s.
    @Test func fourThousandIdleSocketsLeaveHealthAndKiosksServed() async throws {
        try TCP.raiseOpenFileLimit(to: 4_800)
        let token = try addSite("idle-flood")
        let serve = try ServeProcess.start(database: site.postgres.url)
        defer { serve.stop() }
        let port = UInt16(serve.url.split(separator: ":").last!)!
        let k = try shared.kiosk("idle-flood", token: token, url: serve.url)
        defer { k.folder.remove() }
        try await k.client.round(k.store)

        var idle: [Int32] = []
        defer { for socket in idle { close(socket) } }
        for _ in 0..<4_200 {
            if let socket = TCP.connect(port: port) { idle.append(socket) }
        }
        #expect(idle.count == 4_200)
        let times = await probeHealth(serve.url, count: 40)
        print("health with \(idle.count) idle sockets held: \(figures(times))")
        #expect(times.allSatisfy { $0 != nil }, "\(figures(times))")

        try k.store.recordFinishedRead(profileID: try k.store.profiles()[0].id!, storyID: "during-the-flood")
        let round = try await k.client.round(k.store)
        #expect(round.uploaded >= 1, "\(round)")
        #expect(try k.store.syncStatus().lastError == nil)
        #expect(serve.printed.contains("connections without a kiosk token closed"), "\(serve.printed.suffix(2000))")
    }

    /// Three uploads at once, each with a 40,000-word `interests` (its check was quadratic: 13.4 s
    /// each, and health took 11.4 s): each is refused, and `/v1/health` answers within 1 s meanwhile.
    @Test func healthAnswersWhileThreeHostileUploadsRun() async throws {
        let token = try addSite("hostile-interests")
        let profile = UUID()
        let words = (0..<40_000).map { "w\($0)" }.joined(separator: ",")
        let change = SyncChange(
            hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "evil"),
            body: .profileField(profile: profile, field: "interests", value: words))
        let body = try RawHTTP.batch([change])
        let url = changesURL("hostile-interests")
        async let first = RawHTTP.send("POST", url, token: token, body: body, deadline: 30)
        async let second = RawHTTP.send("POST", url, token: token, body: body, deadline: 30)
        async let third = RawHTTP.send("POST", url, token: token, body: body, deadline: 30)
        let times = await probeHealth(site.serve.url, count: 10)
        let statuses = try await [first.status, second.status, third.status]
        print("health during three 40,000-word uploads: \(figures(times))")
        #expect(statuses == [400, 400, 400])
        #expect(times.allSatisfy { $0 != nil }, "\(figures(times))")
    }

    /// Wrong tokens are logged (address and site, never the token) and, past 20 a minute from one
    /// address, answered 429 with Retry-After without being checked; another address's kiosk syncs.
    @Test func wrongTokenGuessesAreLoggedAndSlowedPerAddress() async throws {
        let token = try addSite("guessed")
        let serve = try ServeProcess.start(database: site.postgres.url)
        defer { serve.stop() }
        let port = UInt16(serve.url.split(separator: ":").last!)!
        let guess = "guessed." + String(repeating: "A", count: 43)
        func ask(_ bearer: String, from address: String) throws -> String {
            let socket = try #require(TCP.connect(port: port, from: address))
            defer { close(socket) }
            TCP.send(socket, "GET \(SyncAPI.changesPath(site: "guessed")) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(bearer)\r\nConnection: close\r\n\r\n")
            return TCP.receiveAll(socket)
        }
        for attempt in 1...20 {
            let answer = try ask(guess, from: "127.0.0.3")
            #expect(answer.hasPrefix("HTTP/1.1 401"), "attempt \(attempt): \(answer.prefix(200))")
        }
        let slowed = try ask(guess, from: "127.0.0.3")
        #expect(slowed.hasPrefix("HTTP/1.1 429"), "\(slowed.prefix(300))")
        #expect(slowed.lowercased().contains("retry-after: "), "\(slowed.prefix(300))")
        #expect(slowed.contains("too many wrong kiosk tokens"))
        // The same address is slowed even with the right token (it is not checked); another is not.
        #expect(try ask(token, from: "127.0.0.3").hasPrefix("HTTP/1.1 429"))
        #expect(try ask(token, from: "127.0.0.4").hasPrefix("HTTP/1.1 200"))
        let k = try shared.kiosk("guessed", token: token, url: serve.url)
        defer { k.folder.remove() }
        try await k.client.round(k.store)
        #expect(try k.store.syncStatus().lastError == nil)

        let log = serve.printed
        #expect(log.contains("wrong kiosk token from 127.0.0.3 for site guessed (1 in 60 s)"), "\(log.suffix(2000))")
        #expect(log.contains("(20 in 60 s; its tokens are refused until then)"))
        #expect(!log.contains(guess) && !log.contains(token))
        #expect(!log.contains("127.0.0.4"))
    }

    /// A kiosk whose clock is 400 days ahead (its store's clock, the seam every date and stamp of
    /// the kiosk comes from) finishes a story and syncs: its read reaches the site (it was refused
    /// as more than a year ahead, and set aside), dated in the server's time on another kiosk (not
    /// a year to come), and `sync --status` says once that this machine's clock is ahead.
    @Test func aKioskAYearAheadGetsItsReadsToTheSiteDatedInTheServersTime() async throws {
        let token = try addSite("a-year-ahead")
        let a = try kiosk("a-year-ahead-a", token: token)
        let b = try kiosk("a-year-ahead-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        a.folder.clock.advance(by: Date().timeIntervalSince(a.folder.clock.now) + 400 * 86400)
        try a.store.recordFinishedRead(profileID: try a.store.profiles()[0].id!, storyID: "the-lighthouse-cat")
        let round = try await a.client.round(a.store)
        #expect(round.setAside == 0, "\(round)")
        #expect(round.uploaded >= 1)
        #expect(try a.store.syncStatus().outbox == 0)
        #expect(try serverRows("a-year-ahead") >= 1)

        try await b.client.round(b.store)
        let onB = try #require(try b.store.history().first { $0.storyID == "the-lighthouse-cat" }, "the read reached kiosk B")
        // Told in the server's time: the moment it finished, not 400 days to come.
        #expect(abs(onB.finishedAt.timeIntervalSinceNow) < 600, "\(onB.finishedAt)")
        #expect(try b.store.setAsideCount() == 0)

        let status = try storyreader(["sync", "--status", "--data-dir", a.folder.url.path])
        #expect(status.standardOutput.components(separatedBy: "clock is").count == 2, "\(status.standardOutput)")
        #expect(
            status.standardOutput.contains(try Regex("Warning: this machine's clock is 57(5999|6000) minutes ahead of the server's")),
            "\(status.standardOutput)")
        // The kiosk's program says it once as it starts, in speech and on screen.
        let log = a.folder.url.appendingPathComponent("speech.log")
        let started = try StoryReaderProcess.run(
            ["--no-audio", "--data-dir", a.folder.url.path], input: "", environment: ["STORYREADER_SPEECH_LOG": log.path])
        let notice = "This computer's clock is wrong (ahead of the site's server): ask a grown-up to set it."
        #expect(started.standardOutput.components(separatedBy: notice).count == 2, "\(started.standardOutput)")
        let spoken = try String(contentsOf: log, encoding: .utf8)
        #expect(spoken.components(separatedBy: notice).count == 2, "\(spoken)")
    }

    /// A read dated 200 days to come, already in the site's log (a server before this stored it),
    /// is shown as of the server's now by the kiosk that pulls it, not as a date to come.
    @Test func aFutureDateAlreadyInTheLogIsShownAsNow() async throws {
        let token = try addSite("future-in-log")
        let k = try kiosk("future-in-log", token: token)
        defer { k.folder.remove() }
        try await k.client.round(k.store)
        let reader = try #require(try k.store.syncSnapshot().profiles.first?.key)
        let future = SyncChange(
            hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "old"),
            body: .read(profile: reader, story: "fox", finishedAt: Date().addingTimeInterval(200 * 86400)))
        try plant(future, site: "future-in-log")
        try await k.client.round(k.store)
        let read = try #require(try k.store.history().first { $0.storyID == "fox" })
        #expect(abs(read.finishedAt.timeIntervalSinceNow) < 600, "\(read.finishedAt)")
    }
}

extension TCP {
    /// Raises this process's open-file limit (soft, up to the hard limit) to hold `count` sockets.
    static func raiseOpenFileLimit(to count: Int) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw POSIXError(.EINVAL) }
        if limit.rlim_cur < rlim_t(count) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= rlim_t(count), "the open-file limit (hard \(limit.rlim_max)) is below \(count)")
    }

    /// A connection from a chosen loopback address (127.0.0.0/8 is all this machine's), so a test
    /// can be several clients.
    static func connect(port: UInt16, from source: String) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        remote.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected =
            bound == 0
            && withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Everything the peer sends until it closes (or 10 s of silence).
    static func receiveAll(_ fd: Int32) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
