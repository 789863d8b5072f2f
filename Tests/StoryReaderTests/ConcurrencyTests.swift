import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Reliability: several `storyreader` processes on one database, and a process killed mid-write.
@Suite(.serialized) struct ConcurrencyTests {
    @Test func twoProcessesRecordingFiveHundredReadsEachEndWithExactlyOneThousand() async throws {
        let folder = try TemporaryFolder("concurrency")
        defer { folder.remove() }
        let arguments = ["bench", "log", "record-read", "--profile", "Reader", "--story", "the-lighthouse-cat", "--count", "500"]
        // Both start on a fresh folder: opening and migrating race too.
        async let first = Task.detached { try StoryReaderProcess.run(arguments, dataDirectory: folder.path) }.value
        async let second = Task.detached { try StoryReaderProcess.run(arguments, dataDirectory: folder.path) }.value
        let results = try await [first, second]
        for result in results { #expect(result.status == 0, "\(result.standardError)") }
        let store = try StoryStore(dataDirectory: folder.url, pinCost: .testing)
        let reader = try store.requireProfile(named: "Reader")
        #expect(try store.readCount(profileID: reader.id!, storyID: "the-lighthouse-cat") == 1_000)
        #expect(try store.history(profileID: reader.id!).count == 1_000)
        #expect(try store.profiles().count == 1)
    }

    /// Without the lock around open-and-migrate this fails about one round in three (measured by
    /// removing the `flock`): a process loses the race to switch the new file to WAL or to migrate.
    @Test(arguments: 1...3)
    func manyProcessesOpeningAFreshDatabaseAtOnceAllSucceed(_ round: Int) async throws {
        let folder = try TemporaryFolder("concurrency-\(round)")
        defer { folder.remove() }
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for _ in 0..<6 {
                group.addTask { try StoryReaderProcess.run(["profile", "list"], dataDirectory: folder.path) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.map(\.status) == Array(repeating: 0, count: 6), "\(results.map(\.standardError))")
        #expect(results.allSatisfy { $0.standardOutput == "Reader, age 6\n" })
    }

    @Test func aProcessKilledWhileWritingLeavesEveryEarlierReadIntact() throws {
        let folder = try TemporaryFolder("concurrency")
        defer { folder.remove() }
        let process = Process()
        // The test-only `log` commands are the bench program's.
        process.executableURL = TestPaths.benchBinary
        process.arguments = [
            "log", "record-read", "--profile", "Reader", "--story", "fox", "--count", "1000000", "--progress",
            "--data-dir", folder.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Read "committed N" lines until a few hundred reads are in, then SIGKILL mid-stream.
        func lastCount(_ data: Data) -> Int {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            let complete = data.last == UInt8(ascii: "\n") ? lines : lines.dropLast()
            return complete.last.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        var buffer = Data()
        let deadline = Date().addingTimeInterval(60)
        while lastCount(buffer) < 300, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        let lastReported = lastCount(buffer)
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
        #expect(lastReported >= 300)

        // The database opens, passes SQLite's integrity check, and holds every reported read.
        let store = try StoryStore(dataDirectory: folder.url, pinCost: .testing)
        let reader = try store.requireProfile(named: "Reader")
        let count = try store.readCount(profileID: reader.id!, storyID: "fox")
        #expect(count >= lastReported)
        #expect(count <= lastReported + 1)  // at most the one committed but not yet reported
        #expect(try store.integrityCheck() == ["ok"])
        try store.recordFinishedRead(profileID: reader.id!, storyID: "fox")
        #expect(try store.readCount(profileID: reader.id!, storyID: "fox") == count + 1)
    }
}
