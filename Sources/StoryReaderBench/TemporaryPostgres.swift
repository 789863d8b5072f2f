#if Server
import Foundation
import StoryReader
import StoryServer

#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL 15 for `bench sync` when no `--database` is given, started the way the
/// tests start theirs: `initdb` in a temporary folder (as the `postgres` user through `runuser`
/// when run as root, since PostgreSQL refuses to run as root), a free loopback port, trust
/// authentication, stopped with SIGINT and removed at the end.
final class TemporaryPostgres {
    static let binaries = "/usr/lib/postgresql/15/bin"
    let folder: URL
    let port: Int
    private let process: Process

    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// The database a benchmark was given, or a temporary one started for it (to stop at the end).
    static func orGiven(_ given: String?, passwordFile: String?) throws -> (url: String, address: DatabaseAddress, temporary: TemporaryPostgres?) {
        var temporary: TemporaryPostgres?
        let url: String
        if let given {
            url = given
        } else {
            let started = try TemporaryPostgres()
            temporary = started
            url = started.url
            print("bench: a temporary PostgreSQL on port \(started.port)")
        }
        do {
            return (url, try DatabaseAddress(url: url, passwordFile: passwordFile), temporary)
        } catch {
            temporary?.stop()
            throw StoreCommandSupport.fail(error.description)
        }
    }

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binaries + "/postgres") else {
            throw StoreCommandSupport.fail("PostgreSQL 15 is not installed (scripts/setup.sh --test installs it), or give --database")
        }
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("socket"), withIntermediateDirectories: true)
        port = try Self.freePort()
        let data = folder.appendingPathComponent("data").path
        if getuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres", folder.path]) }
        try Self.run(Self.binaries + "/initdb", ["-D", data, "-A", "trust", "--no-sync", "-U", "postgres"], asPostgres: true)
        process = Process()
        let arguments = [
            "-D", data, "-p", String(port), "-k", folder.appendingPathComponent("socket").path, "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "max_connections=200",
        ]
        (process.executableURL, process.arguments) = Self.command(Self.binaries + "/postgres", arguments, asPostgres: true)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<300 {
            if (try? Self.run(Self.binaries + "/pg_isready", ["-h", "127.0.0.1", "-p", String(port)], asPostgres: true)) != nil { return }
            usleep(50_000)
        }
        stop()
        throw StoreCommandSupport.fail("the temporary PostgreSQL did not start within 15 s")
    }

    /// SIGINT to the postmaster (a fast shutdown), then the folder goes. The postmaster's pid comes
    /// from its pid file: as root the child process is `runuser`, not postgres itself.
    func stop() {
        let pidFile = folder.appendingPathComponent("data/postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8), let line = text.split(separator: "\n").first,
            let pid = pid_t(line)
        {
            kill(pid, SIGINT)
            for _ in 0..<400 where kill(pid, 0) == 0 { usleep(25_000) }
        }
        if process.isRunning { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: folder)
    }

    static func command(_ program: String, _ arguments: [String], asPostgres: Bool) -> (URL, [String]) {
        if asPostgres && getuid() == 0 { return (URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", program] + arguments) }
        return (URL(fileURLWithPath: program), arguments)
    }

    /// Runs a program to its end; throws unless it exits 0.
    static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false) throws {
        let process = Process()
        (process.executableURL, process.arguments) = command(program, arguments, asPostgres: asPostgres)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StoreCommandSupport.fail("\((program as NSString).lastPathComponent) failed (exit \(process.terminationStatus))")
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw StoreCommandSupport.fail("no free port for PostgreSQL") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#endif
