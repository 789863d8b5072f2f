import Foundation

/// Runs any program (make, bash, man, systemd-analyze, the built storyreader) and collects what
/// it printed; standard input gets `input` and is then closed.
public enum ExternalProcess {
    /// - Parameters:
    ///   - environment: the whole environment of the child (nothing is inherited).
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String],
                           currentDirectory: URL = TestPaths.repository, input: String? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try? standardInput.fileHandleForWriting.close()
        // Read both pipes while the process runs, so a full pipe never blocks it.
        let collected = Collected()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { collected.setOutput(output.fileHandleForReading.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: group) { collected.setError(error.fileHandleForReading.readDataToEndOfFile()) }
        process.waitUntilExit()
        group.wait()
        return ProcessResult(status: process.terminationStatus,
                             standardOutput: String(decoding: collected.output, as: UTF8.self),
                             standardError: String(decoding: collected.error, as: UTF8.self))
    }

    /// A program found on `PATH` (`/usr/bin/env NAME` would hide "not found" in an exit status).
    public static func find(_ name: String, path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") -> URL? {
        path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var output = Data()
        private(set) var error = Data()
        func setOutput(_ data: Data) { lock.lock(); output = data; lock.unlock() }
        func setError(_ data: Data) { lock.lock(); error = data; lock.unlock() }
    }
}
