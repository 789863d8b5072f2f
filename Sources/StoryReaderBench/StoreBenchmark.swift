import ArgumentParser
import Foundation
import StoryKit
import StoryReader

/// `storyreader bench store`: the reading log's speed, on a fresh database in a temporary folder.
struct StoreBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: helpMessages.tr("Time recording a finished read, and listing 1,000 stories' read counts for a busy profile."))

    @Option(help: ArgumentHelp(helpMessages.tr("Finished reads to time one by one."))) var reads = 1_000
    @Option(help: ArgumentHelp(helpMessages.tr("Reads in the busy profile's history."))) var history = 10_000
    @Option(help: ArgumentHelp(helpMessages.tr("Stories in the listing."))) var stories = 1_000
    @Option(help: ArgumentHelp(helpMessages.tr("Times to repeat the listing."))) var repeats = 50

    func run() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }

        var clock = ContinuousClock.now
        let store = try StoryStore(dataDirectory: folder)
        let openMilliseconds = Self.milliseconds(since: clock)
        let authorization = try store.authorize(pin: nil)
        let reader = try store.requireProfile(named: ChildProfile.defaultProfile.name)
        let busy = try store.addProfile(ChildProfile(name: "Busy", age: 7), authorization: authorization)

        var samples: [Double] = []
        samples.reserveCapacity(reads)
        for index in 0..<reads {
            clock = .now
            try store.recordFinishedRead(profileID: reader.id!, storyID: "story-\(index % 50)")
            samples.append(Self.milliseconds(since: clock))
        }
        samples.sort()

        // The busy profile: `history` reads spread over `stories` stories, in one transaction each
        // batch of 1,000 (setting up, not timed).
        let storyIDs = (0..<stories).map { "story-\($0)" }
        for batch in stride(from: 0, to: history, by: 1_000) {
            for index in batch..<min(history, batch + 1_000) {
                try store.recordFinishedRead(profileID: busy.id!, storyID: storyIDs[(index * 7919) % stories])
            }
        }
        for storyID in storyIDs.prefix(100) { try store.toggleFavourite(profileID: busy.id!, storyID: storyID) }

        var listing: [Double] = []
        var listed = 0
        for _ in 0..<repeats {
            clock = .now
            let progress = try store.progress(profileID: busy.id!)
            // What `list --profile` does with it: a value for every story of the library.
            listed = storyIDs.reduce(0) { $0 + (progress[$1]?.readCount ?? 0) }
            listing.append(Self.milliseconds(since: clock))
        }
        listing.sort()

        print("store benchmark (\(Self.buildKind))")
        print(String(format: "open and migrate a new database: %.2f ms", openMilliseconds))
        print(
            String(
                format: "record a finished read (%d reads): p50 %.3f ms, p99 %.3f ms, max %.3f ms",
                reads, Percentile.of(samples, 0.50), Percentile.of(samples, 0.99), samples.last ?? 0))
        print(
            String(
                format: "list %d stories with read counts and favourites, %d reads in history (%d counted): p50 %.3f ms, p99 %.3f ms",
                stories, history, listed, Percentile.of(listing, 0.50), Percentile.of(listing, 0.99)))
    }

    static var buildKind: String {
        #if DEBUG
            "debug build: use `swift build -c release` for real figures"
        #else
            "release build"
        #endif
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
