import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import StoryServer

/// `storyreader bench sync-server`: what the site server alone sustains. The server runs as its
/// own process (`serve`, as a site runs it); this process is only the load: a thread per simulated
/// kiosk with one kept-alive HTTP connection and bodies encoded before the clock starts, so the
/// figures are the server's and PostgreSQL's, not a simulation's. Then the kiosk's side alone:
/// one page of pulled changes applied to a kiosk's SQLite store.
struct SyncServerBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-server",
        abstract: helpMessages.tr(
            "Measure the sync server alone: uploads and pulls a second with their p50 and p99, on one site and on ten (needs PostgreSQL)."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "Starts 'serve' as its own process (and a temporary PostgreSQL 15 without --database), then for each number of sites sends uploads of --changes reads each from --connections kiosks at once for --seconds, then pulls of 100 changes. Then a site of many kiosks, for each number of --site-kiosks: each kiosk uploads a finished read every --every seconds and pulls every change of the site, for --site-seconds; it prints the round's p50 and p99 and checks that every kiosk got every change. Last, the kiosk's side alone: applying pulled pages to a kiosk's database."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader bench sync-server",
                "  storyreader bench sync-server --connections 32 --seconds 10")))

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("The PostgreSQL database: postgres://USER@HOST:PORT/DATABASE (no password here); without it a temporary PostgreSQL is started.")))
    var database: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Simulated kiosks sending at once, each on its own connection."))) var connections = 16
    @Option(help: ArgumentHelp(helpMessages.tr("Seconds each measurement runs."))) var seconds = 5.0
    @Option(help: ArgumentHelp(helpMessages.tr("Finished reads in each upload."))) var changes = 50
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(helpMessages.tr("Kiosks of one site, each syncing on its own schedule: a measurement for each number given (0: none).")))
    var siteKiosks: [Int] = [100, 300, 600, 1000]
    @Option(help: ArgumentHelp(helpMessages.tr("Seconds between one kiosk's sync rounds in those measurements (each round uploads a finished read).")))
    var every = 5.0
    @Option(help: ArgumentHelp(helpMessages.tr("Seconds each of those measurements runs."))) var siteSeconds = 30.0

    func validate() throws {
        guard (1...512).contains(connections) else { throw ValidationError("--connections: 1 to 512") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds: more than 0, at most 600") }
        guard (1...1000).contains(changes) else { throw ValidationError("--changes: 1 to 1000") }
        guard siteKiosks.allSatisfy({ (0...4000).contains($0) }) else { throw ValidationError("--site-kiosks: 0 to 4000 each") }
        guard every > 0, every <= 600 else { throw ValidationError("--every: more than 0, at most 600") }
        guard siteSeconds >= every, siteSeconds <= 3600 else { throw ValidationError("--site-seconds: at least --every, at most 3600") }
    }

    func run() throws {
        try requireServerBuild()
        #if Server
            let (url, address, temporary) = try TemporaryPostgres.orGiven(database, passwordFile: nil)
            defer { temporary?.stop() }
            let run = UUID().uuidString.prefix(6).lowercased()
            let sites: [(name: String, token: String)] = try (0..<10).map { index in
                let name = "bench-\(run)-\(index)"
                let token = try Self.blocking { try await SyncServer.withDatabase(address) { try await $0.addSite(name) } }
                return (name, token)
            }
            let server = try ServerProcess(database: url)
            defer { server.stop() }
            print(
                "bench sync-server: serve (pid \(server.pid)) on \(server.address); \(connections) kiosks at once, uploads of \(changes) reads, \(seconds) s each"
            )
            for siteCount in [1, 10] {
                let chosen = Array(sites.prefix(siteCount))
                let uploads = try SyncLoad(address: server.address, sites: chosen, connections: connections, seconds: seconds)
                    .run { site, kiosk, index in Self.uploadRequest(site: site, kiosk: kiosk, index: index, reads: changes) }
                print(uploads.line(label: "\(siteCount) site\(siteCount == 1 ? "" : "s"): uploads", perSecondOf: changes, unit: "reads"))
                let pulls = try SyncLoad(address: server.address, sites: chosen, connections: connections, seconds: seconds)
                    .run { site, _, index in
                        SyncLoad.Request(method: "GET", path: SyncAPI.changesPath(site: site) + "?after=\((index * 977) % 2000)&limit=100", body: nil)
                    }
                print(pulls.line(label: "\(siteCount) site\(siteCount == 1 ? "" : "s"): pulls of 100", perSecondOf: 100, unit: "changes"))
            }
            if siteKiosks.contains(where: { $0 > 0 }) {
                print(
                    "a site of many kiosks, each syncing every \(every) s for \(siteSeconds) s (uploading a finished read, pulling every change of the site):")
            }
            for (index, count) in siteKiosks.enumerated() where count > 0 {
                // A site of its own for each measurement: its kiosks start with an empty log.
                let name = "bench-\(run)-many-\(index)"
                let token = try Self.blocking { try await SyncServer.withDatabase(address) { try await $0.addSite(name) } }
                let figures = try SiteLoad(address: server.address, site: (name, token), kiosks: count, every: every, seconds: siteSeconds).run()
                for line in figures.lines(kiosks: count, every: every) { print(line) }
                let settings = SyncSettings(url: "http://\(server.address)", site: name, token: token)
                let counted = try Self.blocking { try await SyncClient(settings: settings).siteSnapshot().reads.count }
                print("    reads counted by the server: \(counted) of \(figures.stored / 2) stored")
                guard figures.incomplete == 0, counted == figures.stored / 2 else {
                    throw StoreCommandSupport.fail("the site lost changes: \(figures.incomplete) kiosks incomplete, \(counted) reads counted")
                }
            }
            try Self.kioskSide(pageSize: 1000)
        #endif
    }

    /// One upload: `reads` finished reads of a kiosk's child, each a new change.
    static func uploadRequest(site: String, kiosk: Int, index: Int, reads: Int) -> SyncLoad.Request {
        let now = HybridLogicalClock.millis(Date())
        let profile = UUID()
        let changes = (0..<reads).map { number in
            SyncChange(
                hlc: HLCTimestamp(millis: now, counter: number, node: "bench\(kiosk)"),
                body: .read(profile: profile, story: "story-\((index + number) % 40)", finishedAt: Date(timeIntervalSince1970: Double(now / 1000))))
        }
        let body = (try? JSONEncoder.sync.encode(UploadRequest(changes: changes, kioskMillis: now))) ?? Data()
        return SyncLoad.Request(method: "POST", path: SyncAPI.changesPath(site: site), body: body)
    }

    /// The kiosk's side of a round: pages of `pageSize` changes from 20 other kiosks (their
    /// children first seen, then their reads) applied to one store, timed page by page.
    static func kioskSide(pageSize: Int) throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-apply-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoryStore(dataDirectory: root)
        let now = HybridLogicalClock.millis(Date())
        let profiles = (0..<20).map { _ in UUID() }
        var log: [SyncChange] = profiles.enumerated().map { index, profile in
            SyncChange(
                hlc: HLCTimestamp(millis: now, counter: index, node: "other\(index)"),
                body: .profileField(profile: profile, field: "name", value: "Child \(index)"))
        }
        for number in 0..<(pageSize * 10) {
            log.append(
                SyncChange(
                    hlc: HLCTimestamp(millis: now, counter: number % 1000, node: "other\(number % 20)"),
                    body: .read(profile: profiles[number % 20], story: "story-\(number % 40)", finishedAt: Date(timeIntervalSince1970: Double(now / 1000)))))
        }
        var times: [Double] = []
        var decoding: [Double] = []
        var reading: [Double] = []
        var cursor: Int64 = 0
        let encoder = JSONEncoder.sync
        let decoder = JSONDecoder.sync
        for page in stride(from: 0, to: log.count, by: pageSize) {
            let changes = Array(log[page..<min(page + pageSize, log.count)])
            // The page as the server sends it, read as the kiosk reads it.
            let bodies = try changes.enumerated().map { (seq: Int64($0.offset), body: String(decoding: try encoder.encode($0.element), as: UTF8.self)) }
            let json = Data(PullResponse.json(bodies: bodies, cursor: cursor + Int64(changes.count), more: true, serverMillis: now))
            var decoded: PullResponse?
            // JSONDecoder's reading, the anchor, and the kiosk's own (SyncPageReader), which must read the page alone.
            decoding.append(try Clock.measure { _ = try decoder.decode(PullResponse.self, from: json) })
            reading.append(Clock.measure { decoded = SyncPageReader.pull(json) })
            guard decoded != nil else { throw StoreCommandSupport.fail("the kiosk's page reader did not read the server's page") }
            cursor += Int64(changes.count)
            times.append(try Clock.measure { _ = try store.applyPulled(decoded?.changes ?? [], cursor: cursor) })
        }
        let microseconds = { (times: [Double]) in times.reduce(0, +) * 1000 / Double(log.count) }
        print(
            String(
                format:
                    "kiosk side: a pulled page of %d changes applied to SQLite: p50 %.1f ms, p99 %.1f ms (%d pages, %.0f changes/s, %.1f µs a change; reading the page's JSON %.1f µs a change, %.1f µs by JSONDecoder)",
                pageSize, Percentile.median(times), Percentile.of(times, 0.99), times.count,
                Double(log.count) / (times.reduce(0, +) / 1000), microseconds(times), microseconds(reading), microseconds(decoding)))
    }

    /// An async call made from this synchronous command.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = LockedValue<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.take(leaving: nil)!.get()
    }
}

#if Server
    /// `storyreader serve` as its own process on a free loopback port.
    final class ServerProcess {
        let process = Process()
        let address: String
        var pid: Int32 { process.processIdentifier }
        /// Kept open for the server's life: a closed pipe would end it at its next line (SIGPIPE).
        private let output = Pipe()

        init(database: String, passwordFile: String? = nil) throws {
            // `serve` is the program's, beside this one.
            process.executableURL = BundledStories.sibling("storyreader")
            process.arguments = ["serve", "run", "--database", database, "--listen", "127.0.0.1:0"] + (passwordFile.map { ["--password-file", $0] } ?? [])
            var environment = ProcessInfo.processInfo.environment
            environment["LANG"] = "C.UTF-8"
            environment["LANGUAGE"] = nil
            process.environment = environment
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "storyreader serve: listening on HOST:PORT"
            var line = Data()
            let reader = output.fileHandleForReading
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            guard let text = String(data: line, encoding: .utf8), let word = text.split(separator: " ").last, word.contains(":") else {
                process.terminate()
                throw StoreCommandSupport.fail("the server did not start: \(String(decoding: line, as: UTF8.self))")
            }
            address = word.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func stop() {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
        }
    }
#endif

/// Light HTTP load: a thread per connection, blocking sockets, HTTP/1.1 kept alive, nothing but
/// the status line and Content-Length read from each answer.
struct SyncLoad {
    struct Request: Sendable {
        var method: String
        var path: String
        var body: Data?
    }

    struct Figures {
        var latencies: [Double]
        var failures: Int
        var seconds: Double

        func line(label: String, perSecondOf items: Int, unit: String) -> String {
            let rate = Double(latencies.count) / seconds
            return "  \(label): " + String(format: "%.0f/s (%.0f ", rate, rate * Double(items)) + unit
                + String(
                    format: "/s), p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d failed",
                    Percentile.median(latencies), Percentile.of(latencies, 0.99), latencies.max() ?? 0, failures)
        }
    }

    var address: String
    var sites: [(name: String, token: String)]
    var connections: Int
    var seconds: Double

    /// Runs the load: each connection sends `make(site, kiosk, index)` back to back until the time
    /// is up. Requests are made before the clock starts (a second's worth and more per kiosk).
    func run(_ make: (String, Int, Int) -> Request) throws -> Figures {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw StoreCommandSupport.fail("bad server address \(address)") }
        let perConnection = 400
        let prepared: [[Data]] = (0..<connections).map { kiosk in
            let site = sites[kiosk % sites.count]
            return (0..<perConnection).map { index in
                let request = make(site.name, kiosk, index)
                var head = "\(request.method) \(request.path) HTTP/1.1\r\nHost: \(address)\r\nAuthorization: Bearer \(site.token)\r\n"
                if let body = request.body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
                return Data((head + "\r\n").utf8) + (request.body ?? Data())
            }
        }
        let results = LockedValue<(latencies: [Double], failures: Int)>(([], 0))
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let start = DispatchTime.now().uptimeNanoseconds
        let group = DispatchGroup()
        for kiosk in 0..<connections {
            group.enter()
            let requests = prepared[kiosk]
            Thread {
                defer { group.leave() }
                var latencies: [Double] = []
                var failures = 0
                guard let connection = try? HTTPConnection(port: port) else {
                    results.withLock { $0.failures += 1 }
                    return
                }
                var index = 0
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let began = DispatchTime.now().uptimeNanoseconds
                    let status = connection.exchange(requests[index % requests.count])
                    if status == 200 {
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
                    } else {
                        failures += 1
                        if status == nil { break }
                    }
                    index += 1
                }
                results.withLock {
                    $0.latencies += latencies
                    $0.failures += failures
                }
            }.start()
        }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let (latencies, failures) = results.take(leaving: ([], 0))
        return Figures(latencies: latencies, failures: failures, seconds: elapsed)
    }
}

/// One kept-alive HTTP/1.1 connection to the loopback server.
final class HTTPConnection {
    private let socket: Int32
    private var buffer = [UInt8]()

    init(port: UInt16) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard connected == 0 else {
            close(socket)
            throw StoreCommandSupport.fail("cannot connect to the server: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(socket) }

    /// Sends `request` and reads its whole answer; the status, or nil when the connection broke.
    func exchange(_ request: Data) -> Int? { receive(request, keepingBody: false)?.status }

    /// Sends `request`; its answer's status and body, or nil when the connection broke.
    func answer(_ request: Data) -> (status: Int?, body: [UInt8])? { receive(request, keepingBody: true) }

    private func receive(_ request: Data, keepingBody: Bool) -> (status: Int?, body: [UInt8])? {
        let sent = request.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let count = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        guard sent else { return nil }
        // Headers, then Content-Length bytes of body.
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headerEnd == nil, !fill() { return nil }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let total = headerEnd! + 4 + length
        while buffer.count < total { if !fill() { return nil } }
        let body = keepingBody ? Array(buffer[(headerEnd! + 4)..<total]) : []
        buffer.removeFirst(total)
        return (status, body)
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}
