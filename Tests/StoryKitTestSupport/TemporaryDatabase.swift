public import Foundation
public import StoryKit

/// A clock that tests move by hand.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    public func advance(by seconds: TimeInterval) {
        lock.lock()
        current.addTimeInterval(seconds)
        lock.unlock()
    }

    public var wallClock: WallClock { WallClock { [self] in self.now } }
}

/// A real SQLite database in a fresh temporary folder, with a test clock and a cheap PIN hash.
public struct TemporaryDatabase: Sendable {
    public let folder: TemporaryFolder
    public let clock: TestClock

    public init(_ label: String = "store") throws {
        folder = try TemporaryFolder(label)
        clock = TestClock()
    }

    /// The data folder (the database file is `storyreader.sqlite` inside it).
    public var url: URL { folder.url }
    public var databaseURL: URL { folder.url.appendingPathComponent(StoryStore.fileName) }

    /// Opens (or reopens) the store.
    public func open() throws -> StoryStore {
        try StoryStore(dataDirectory: folder.url, clock: clock.wallClock, pinCost: .testing)
    }

    /// The bytes of the database file and of its WAL, if any.
    public func fileBytes() throws -> Data {
        var data = try Data(contentsOf: databaseURL)
        let wal = URL(fileURLWithPath: databaseURL.path + "-wal")
        if let walData = try? Data(contentsOf: wal) { data.append(walData) }
        return data
    }

    public func remove() { folder.remove() }
}
