public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL 15 started by the tests in a temporary folder, on a free loopback port.
///
/// PostgreSQL refuses to run as root, so as root the folder is given to the `postgres` user and
/// `initdb` and `postgres` run through `runuser -u postgres --`. Stopped with SIGINT ("fast" shutdown).
public final class PostgresServer: @unchecked Sendable {
    public static let binaries = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin")
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent("postgres").path)
    }
    public static let notInstalled = "PostgreSQL 15 is not installed (scripts/setup.sh --test installs the 'postgresql' package)"

    public let folder: URL
    public let port: Int
    public var dataDirectory: URL { folder.appendingPathComponent("data") }
    public var socketDirectory: URL { folder.appendingPathComponent("socket") }
    /// The address `storyreader serve --database` takes (trust authentication: no password).
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(folder: URL, port: Int) {
        self.folder = folder
        self.port = port
    }

    static var asRoot: Bool { getuid() == 0 }

    /// Runs a PostgreSQL program as the postgres user (when root) and returns what it printed.
    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        let executable = Self.binaries.appendingPathComponent(program).path
        let result =
            Self.asRoot
            ? try ExternalProcess.run(
                URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", executable] + arguments, environment: ["PATH": "/usr/bin:/bin"],
                currentDirectory: folder)
            : try ExternalProcess.run(URL(fileURLWithPath: executable), arguments, environment: ["PATH": "/usr/bin:/bin"], currentDirectory: folder)
        return result
    }

    /// initdb, start, and wait until it accepts connections.
    public static func start() throws -> PostgresServer {
        guard isInstalled else { throw Failure(description: notInstalled) }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("socket"), withIntermediateDirectories: true)
        let server = PostgresServer(folder: folder, port: try freePort())
        if asRoot {
            _ = try ExternalProcess.run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres", folder.path], environment: [:])
        }
        let initdb = try server.run("initdb", ["-D", server.dataDirectory.path, "-A", "trust", "--no-sync", "-U", "postgres"])
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.standardError)") }
        try server.launch()
        return server
    }

    /// Starts the postmaster as a child process (`postgres -D … -p PORT -k SOCKDIR`), logging to a file.
    public func launch() throws {
        let process = Process()
        let postgres = Self.binaries.appendingPathComponent("postgres").path
        let arguments = [
            "-D", dataDirectory.path, "-p", String(port), "-k", socketDirectory.path, "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "max_connections=200",
        ]
        if Self.asRoot {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", postgres] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: postgres)
            process.arguments = arguments
        }
        let logURL = folder.appendingPathComponent("log")
        if !FileManager.default.fileExists(atPath: logURL.path) { _ = FileManager.default.createFile(atPath: logURL.path, contents: nil) }
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitUntilReady()
    }

    /// The postmaster's pid, from its pid file.
    var postmasterPID: pid_t? {
        (try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8))
            .flatMap { $0.split(separator: "\n").first.flatMap { pid_t($0) } }
    }

    /// Sends `signal` to the postmaster and waits until it is gone.
    func shut(_ signal: Int32) {
        guard let pid = postmasterPID else { return }
        kill(pid, signal)
        for _ in 0..<400 where kill(pid, 0) == 0 { usleep(25_000) }
    }

    public func waitUntilReady() throws {
        for _ in 0..<300 {
            if try run("pg_isready", ["-h", "127.0.0.1", "-p", String(port)]).status == 0 { return }
            usleep(50_000)
        }
        throw Failure(description: "postgres did not accept connections within 15 s\(log)")
    }

    /// What `pg_ctl restart -m immediate` does: SIGQUIT (every connection cut at once, as in a
    /// crash, recovery at the next start), then start again on the same port.
    public func restartImmediately() throws {
        shut(SIGQUIT)
        try launch()
    }

    /// Runs SQL with psql and returns its unaligned output.
    public func psql(_ sql: String) throws -> String {
        let result = try run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
        guard result.status == 0 else { throw Failure(description: "psql: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGINT to the postmaster (fast shutdown), then the folder goes.
    public func stop() {
        shut(SIGINT)
        try? FileManager.default.removeItem(at: folder)
    }

    var log: String {
        let text = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        return text.isEmpty ? "" : "\n" + String(text.suffix(1500))
    }

    /// A loopback port nobody listens on now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// `storyreader serve` running in the background against a ``PostgresServer``.
public final class ServeProcess: @unchecked Sendable {
    public let process: Process
    public let url: String
    private let output: Pipe
    private let seen: SeenText

    private init(process: Process, url: String, output: Pipe, seen: SeenText) {
        self.process = process
        self.url = url
        self.output = output
        self.seen = seen
    }

    /// What the server printed so far (standard output and error).
    public var printed: String { seen.text }

    /// Sends `signal` and waits up to `seconds` for the server to exit; its exit status, or nil
    /// (killed) when it did not.
    public func stop(with signal: Int32, within seconds: Double) -> Int32? {
        Glibc.kill(process.processIdentifier, signal)
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < end { usleep(20_000) }
        if process.isRunning {
            kill()
            return nil
        }
        return process.terminationStatus
    }

    /// Starts the server on a free port and waits for "listening on". `arguments` are added to
    /// its command line; `openFiles` runs it under that open-file limit (soft and hard, by prlimit).
    public static func start(database: String, deadline: Double = 2, port: Int? = nil, arguments: [String] = [], openFiles: Int? = nil) throws -> ServeProcess {
        let process = Process()
        let chosen = try port ?? PostgresServer.freePort()
        let serve = ["serve", "--database", database, "--listen", "127.0.0.1:\(chosen)", "--deadline", String(deadline)] + arguments
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFiles):\(openFiles)", "--", TestPaths.binary.path] + serve
        } else {
            process.executableURL = TestPaths.binary
            process.arguments = serve
        }
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let seen = SeenText()
        let server = ServeProcess(process: process, url: "http://127.0.0.1:\(chosen)", output: output, seen: seen)
        // Read everything it prints on another thread, so neither a full pipe nor a silent failure blocks.
        let handle = output.fileHandleForReading
        DispatchQueue.global().async {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                seen.append(chunk)
            }
        }
        for _ in 0..<600 {
            if seen.text.contains("listening on") { return server }
            if !process.isRunning { break }
            usleep(50_000)
        }
        server.stop()
        throw PostgresServer.Failure(description: "serve did not start: \(seen.text)")
    }

    /// SIGKILL: the server dies mid-request, as in a crash.
    public func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

final class SeenText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
