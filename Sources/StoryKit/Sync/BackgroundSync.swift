public import Foundation

/// Syncs a joined kiosk in the background while the REPL or the kiosk runs: at start, soon after
/// each finished read (it notices the outbox filling, checked every few seconds with one SQLite
/// read), and every 60 s. It runs off the main thread, never waits on the reader, and says nothing:
/// failures are only recorded for `sync --status`. Without `sync.json` nothing starts.
public final class BackgroundSync: Sendable {
    private let task: Task<Void, Never>

    private init(task: Task<Void, Never>) { self.task = task }

    /// Starts syncing when the data folder was joined to a site; nil (nothing started) otherwise.
    /// `clock` times the rounds (monotonic: a wall clock set back would stop them).
    public static func start(
        dataDirectory: URL, store: StoryStore, period: Double = 60, poll: Double = 5,
        clock: any MonotonicClock = SystemMonotonicClock()
    ) -> BackgroundSync? {
        // Settings that cannot be read: `sync --status` and every site-wide change say why.
        guard let settings = try? SyncClient.load(from: dataDirectory) else { return nil }
        let client = SyncClient(settings: settings)
        let task = Task.detached(priority: .background) {
            var lastRound = -TimeInterval.infinity
            var backoff = poll
            while !Task.isCancelled {
                let waiting = (try? store.syncStatus().outbox) ?? 0
                if waiting > 0 || clock.now() - lastRound >= period {
                    do {
                        try await client.round(store)
                        backoff = poll
                    } catch {
                        // Recorded by the round for grown-ups; try again later, less often.
                        backoff = min(backoff * 2, period)
                    }
                    lastRound = clock.now()
                }
                try? await Task.sleep(nanoseconds: UInt64(backoff * 1_000_000_000))
            }
        }
        return BackgroundSync(task: task)
    }

    public func stop() { task.cancel() }
}
