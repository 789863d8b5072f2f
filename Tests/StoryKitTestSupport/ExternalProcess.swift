public import Foundation

/// Runs any program (make, bash, man, systemd-analyze, the built storyreader) and collects what
/// it printed; standard input gets `input` and is then closed.
public enum ExternalProcess {
    /// - Parameters:
    ///   - environment: the whole environment of the child (nothing is inherited).
    ///   - timeout: a child still running after this many seconds is stopped (SIGTERM, then SIGKILL
    ///     5 s later) and the result says so: a hung child fails its test instead of holding the
    ///     whole run until CI's limit.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String],
        currentDirectory: URL = TestPaths.repository, input: String? = nil,
        timeout: Double = 900
    ) throws -> ProcessResult {
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
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            guard collected.stopIfRunning() else { return }
            kill(pid, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { if collected.isRunning { kill(pid, SIGKILL) } }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        collected.exited()
        watchdog.cancel()
        // A grandchild that kept a pipe open must not hold the test either.
        _ = group.wait(timeout: .now() + 30)
        var standardError = String(decoding: collected.error, as: UTF8.self)
        if collected.wasStopped {
            standardError += "\n[test support: \(executable.lastPathComponent) was still running after \(Int(timeout)) s and was stopped]\n"
        }
        return ProcessResult(
            status: collected.wasStopped ? -1 : process.terminationStatus,
            standardOutput: String(decoding: collected.output, as: UTF8.self),
            standardError: standardError)
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
        func setOutput(_ data: Data) {
            lock.lock()
            output = data
            lock.unlock()
        }
        func setError(_ data: Data) {
            lock.lock()
            error = data
            lock.unlock()
        }

        private var running = true
        private var stopped = false
        var wasStopped: Bool { lock.withLock { stopped } }
        var isRunning: Bool { lock.withLock { running } }
        func exited() { lock.withLock { running = false } }
        /// Marks the child as stopped by the watchdog, if it still runs (its pid is still its own).
        func stopIfRunning() -> Bool {
            lock.withLock {
                guard running else { return false }
                stopped = true
                return true
            }
        }
    }
}
