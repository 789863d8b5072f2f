import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import StoryServer

/// `storyreader bench sync`: many kiosks (data folders in a temporary folder) syncing finished reads
/// with one `serve` on loopback, started in this process against the PostgreSQL given.
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: helpMessages.tr("Time sync rounds of many simulated kiosks against one server (needs a PostgreSQL)."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "Each kiosk finishes its reads in bursts and syncs after each burst, all kiosks at once. Prints the p50 and p99 of a sync round and checks that the server counted every read."
            ),
            helpMessages.tr("Without --database it starts a temporary PostgreSQL 15 of its own (as the tests do) and removes it at the end."),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader bench sync",
                "  storyreader bench sync --database postgres://postgres@127.0.0.1:5432/postgres")))

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("The PostgreSQL database: postgres://USER@HOST:PORT/DATABASE (no password here); without it a temporary PostgreSQL is started.")))
    var database: String?
    @Option(help: ArgumentHelp(helpMessages.tr("A file (mode 0600) holding the database password.")), completion: .file()) var passwordFile: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Simulated kiosks."))) var kiosks = 20
    @Option(help: ArgumentHelp(helpMessages.tr("Finished reads per kiosk."))) var reads = 500
    @Option(help: ArgumentHelp(helpMessages.tr("Reads per burst (a sync round follows each)."))) var burst = 50
    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Processes the kiosks run in (each kiosk keeps its own database and sync client; default: one a kiosk, at most 20).")))
    var processes: Int?

    func validate() throws {
        guard (1...2000).contains(kiosks) else { throw ValidationError("--kiosks: 1 to 2000") }
        guard reads >= 1, burst >= 1 else { throw ValidationError("--reads and --burst: at least 1") }
        if let processes, !(1...kiosks).contains(processes) { throw ValidationError("--processes: 1 to the number of kiosks") }
    }

    func run() async throws {
        try requireServerBuild()
        #if Server
            let (url, address, temporary) = try TemporaryPostgres.orGiven(database, passwordFile: passwordFile)
            defer { temporary?.stop() }
            let site = "bench-\(UUID().uuidString.prefix(8).lowercased())"
            let token = try await SyncServer.withDatabase(address) { try await $0.addSite(site) }
            // The server in its own process, as a site runs it: its threads do not share this
            // process's with the simulated kiosks.
            let server = try ServerProcess(database: url, passwordFile: passwordFile)
            defer { server.stop() }
            let settings = SyncSettings(url: "http://\(server.address)", site: site, token: token)

            let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-sync-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: root) }
            // Kiosks in processes of their own, as on a site: their own SQLite writes, threads and
            // connections. Simulated as tasks of one process, 20 kiosks shared two threads of Swift's
            // pool, and one kiosk's fsyncs held up every other's round (a p99 of 17 s, most of it
            // waiting for a thread). Past 20 kiosks, a process runs several (each its own data
            // folder, store and client, as tasks): 200 processes starting at once would measure
            // the machine's process start-up, not sync.
            let processCount = processes ?? min(kiosks, 20)
            // Where the machine's time went: the kiosks' processes and the server's share its
            // cores, so a slow round may be the kiosks' own work, not the server's.
            let cpuBefore = childCPUSeconds()
            let started = ContinuousClock.now
            let children = try (0..<processCount).map { process in
                let first = process * kiosks / processCount
                return try SyncKioskProcess(
                    settings: settings, root: root, kiosks: first..<((process + 1) * kiosks / processCount), reads: reads, burst: burst)
            }
            var samples: [Double] = []
            var failed = 0
            var firsts: [Double] = []
            for child in children {
                let rounds = try child.roundTimes()
                samples += rounds.times
                firsts += rounds.firsts
                failed += rounds.failed
            }
            samples.sort()
            firsts.sort()
            let total = ContinuousClock.now - started
            let kioskCPU = childCPUSeconds() - cpuBefore
            let snapshot = try await SyncClient(settings: settings).siteSnapshot()
            server.stop()
            let serverCPU = childCPUSeconds() - cpuBefore - kioskCPU
            print("bench sync: \(kiosks) kiosks x \(reads) reads in \(processCount) processes, \(samples.count) sync rounds in \(total)")
            print(
                String(
                    format: "  sync round p50 %.1f ms, p99 %.1f ms, max %.1f ms", Percentile.ofSorted(samples, 0.5), Percentile.ofSorted(samples, 0.99),
                    samples.last ?? 0))
            print(
                String(
                    format: "  each kiosk's first round (its process starting, before any read; not above): p50 %.1f ms, max %.1f ms",
                    Percentile.ofSorted(firsts, 0.5), firsts.last ?? 0))
            print(String(format: "  CPU: kiosk processes %.1f s, server %.1f s (PostgreSQL not counted)", kioskCPU, serverCPU))
            print("  failed rounds (tried again): \(failed)")
            print("  reads counted by the server: \(snapshot.reads.count) of \(kiosks * reads)")
            if snapshot.reads.count != kiosks * reads {
                throw StoreCommandSupport.fail("the server counted \(snapshot.reads.count) reads, not \(kiosks * reads)")
            }
        #endif
    }
}

/// Simulated kiosks of `bench sync`: `storyreader-bench sync-kiosk` in a process of its own, which
/// prints the milliseconds of each of its kiosks' rounds, a line each.
final class SyncKioskProcess {
    private let process = Process()
    private let output = Pipe()

    /// Kiosks `kiosks` (their data folders `kioskN` in `root`).
    init(settings: SyncSettings, root: URL, kiosks: Range<Int>, reads: Int, burst: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "sync-kiosk", "--url", settings.url, "--site", settings.site, "--root", root.path,
            "--first", String(kiosks.lowerBound), "--count", String(kiosks.count), "--reads", String(reads), "--burst", String(burst),
        ]
        // The token stays out of the process list.
        process.environment = ProcessInfo.processInfo.environment.merging(["STORYREADER_BENCH_TOKEN": settings.token]) { $1 }
        process.standardOutput = output
        try process.run()
    }

    /// Waits for the kiosks to finish; their round times, their first rounds', and how many of
    /// their rounds failed (and were tried again).
    func roundTimes() throws -> (times: [Double], firsts: [Double], failed: Int) {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw StoreCommandSupport.fail("a simulated kiosk failed (status \(process.terminationStatus))") }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let firsts = lines.filter { $0.hasPrefix("first ") }.compactMap { Double($0.dropFirst(6)) }
        return (lines.compactMap { Double($0) }, firsts, lines.filter { $0 == "failed" }.count)
    }
}

/// `storyreader-bench sync-kiosk` (hidden): kiosks of `bench sync`, each its own store and client.
struct SyncKioskBenchmark: AsyncParsableCommand {
    /// The milliseconds of one round that went through. A failed round (the server busy past its
    /// deadline) is tried again, as a kiosk's background sync does: each failure is printed
    /// ("failed") and counted, and what it left in the outbox goes with the next try.
    static func round(_ client: SyncClient, _ store: StoryStore) async throws -> Double {
        var backoff = 0.1
        while true {
            let start = ContinuousClock.now
            do {
                try await client.round(store)
            } catch {
                print("failed")
                try await Task.sleep(for: .seconds(backoff))
                backoff = min(backoff * 2, 5)
                continue
            }
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "sync-kiosk", abstract: helpMessages.tr("Simulated kiosks of 'bench sync', run by it in a process of their own."), shouldDisplay: false)

    @Option var url: String
    @Option var site: String
    @Option var root: String
    @Option var first: Int
    @Option var count: Int
    @Option var reads: Int
    @Option var burst: Int

    func run() async throws {
        guard let token = ProcessInfo.processInfo.environment["STORYREADER_BENCH_TOKEN"] else { throw StoreCommandSupport.fail("no STORYREADER_BENCH_TOKEN") }
        let settings = SyncSettings(url: url, site: site, token: token)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in first..<(first + count) {
                group.addTask {
                    try await Self.kiosk(
                        data: URL(fileURLWithPath: root).appendingPathComponent("kiosk\(index)"), settings: settings, reads: reads, burst: burst)
                }
            }
            try await group.waitForAll()
        }
    }

    /// One kiosk: its own data folder, store and client.
    static func kiosk(data: URL, settings: SyncSettings, reads: Int, burst: Int) async throws {
        let store = try StoryStore(dataDirectory: data)
        try store.markJoined()
        let client = SyncClient(settings: settings, callDeadline: 30, batchSize: 1000)
        let reader = try store.profiles()[0].id!
        // A kiosk runs for days; a process's first round also pays for its start (loading
        // libraries, the HTTP client, the first JSON and SQLite statements): 10 kiosks starting at
        // once took some 1.7 s each for it. That round is timed apart, before any read.
        print("first", try await round(client, store))
        var done = 0
        while done < reads {
            for _ in 0..<min(burst, reads - done) {
                try store.recordFinishedRead(profileID: reader, storyID: "story-\(done % 40)")
                done += 1
            }
            print(try await round(client, store))
        }
    }
}
