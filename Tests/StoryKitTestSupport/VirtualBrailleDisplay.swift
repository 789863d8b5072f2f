import Foundation
public import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A braille display without hardware: a real BRLTTY whose Virtual driver (`-b vr`) connects to
/// this peer, which answers `cells N`, keeps the `Braille "…"` lines the driver sends and presses
/// keys (`Route N`, `FWinRt`, …; brltty's Drivers/Braille/Virtual/README). Programs reach that
/// BRLTTY through BrlAPI at ``brlapiHost`` with no authorization.
///
/// Measured: the driver is ready about 1.1 s after BRLTTY starts; writes arrive within a
/// millisecond; `-M 10` (message hold 10 ms) keeps BRLTTY's own start message from delaying the
/// first write by 3 s.
public final class VirtualBrailleDisplay: Sendable {
    /// Cells of the virtual display.
    public let cells: Int
    /// `BRLAPI_HOST` for clients: `127.0.0.1:N` is TCP port 4101 + N.
    public let brlapiHost: String
    private let brltty: URL
    private let withoutDisplay: Bool
    private let auth: String
    private let listener: Int32
    private let driverPort: UInt16
    private let folder: TemporaryFolder
    private struct State {
        var process: Process?
        var connection: Int32 = -1
        var braille: [[UInt8]] = []
        var log = ""
    }
    /// Shared with the peer's reading thread and BRLTTY's log reader (a `Mutex` cannot be captured;
    /// `Process` is not `Sendable`, so `LockedValue` cannot hold it).
    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var state = State()
        func withLock<Result>(_ body: (inout State) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }
    }
    private let state = Shared()

    /// Starts BRLTTY and waits (up to 10 s) for its driver to connect. Nil (with a test failure
    /// naming the package to install) when brltty is missing. `sizeAfter`: seconds the display
    /// waits before telling the driver its size (a display still starting; BrlAPI clients can
    /// connect meanwhile).
    /// `withoutDisplay`: BRLTTY runs with no braille driver at all (`-b no`), as on a machine
    /// whose display is not plugged in; BrlAPI still answers.
    /// `auth`: BrlAPI's authorization as BRLTTY asks it (`none`, or `keyfile:PATH` to refuse
    /// every client without that key).
    public init?(
        cells: Int = 40, sizeAfter: Double = 0, withoutDisplay: Bool = false, auth: String = "none",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard
            let brltty = RequiredTool.locate("brltty")
                ?? ["/usr/sbin/brltty", "/sbin/brltty"].map(URL.init(fileURLWithPath:))
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else {
            Issue.record(Comment(rawValue: RequiredTool.missing([("brltty", "brltty")], for: "the braille tests")), sourceLocation: sourceLocation)
            return nil
        }
        self.brltty = brltty
        self.cells = cells
        self.withoutDisplay = withoutDisplay
        self.auth = auth
        folder = try TemporaryFolder("braille")
        (listener, driverPort) = try LoopbackListener.open()
        // A free port for BrlAPI, found by binding it and letting it go.
        let (probe, port) = try LoopbackListener.open()
        LoopbackListener.close(probe)
        brlapiHost = "127.0.0.1:\(Int(port) - 4101)"
        let state = self.state
        let cells = self.cells
        LoopbackListener.acceptEach(on: listener) { fd in
            let previous = state.withLock { s -> Int32 in
                defer { s.connection = fd }
                return s.connection
            }
            if previous >= 0 { close(previous) }
            if sizeAfter > 0 { usleep(UInt32(sizeAfter * 1_000_000)) }
            Self.send("cells \(cells)", to: fd)
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if let dots = Self.dots(fromBrailleLine: line) { state.withLock { $0.braille.append(dots) } }
                }
            }
        }
        try startBRLTTY()
    }

    deinit {
        stopBRLTTY()
        LoopbackListener.close(listener)
        folder.remove()
    }

    /// The environment a BrlAPI client needs to reach this display.
    public var environment: [String: String] { ["BRLAPI_HOST": brlapiHost, "BRLAPI_AUTH": "none"] }

    /// Starts (or starts again) BRLTTY; returns once its driver has connected (10 s at most).
    public func startBRLTTY() throws {
        let process = Process()
        process.executableURL = brltty
        process.arguments = [
            "-n", "-e", "-b", withoutDisplay ? "no" : "vr", "-d", "client:127.0.0.1:\(driverPort)", "-x", "no", "-s", "no",
            "-A", "host=\(brlapiHost),auth=\(auth)", "-M", "10", "-f", "/dev/null", "-F", "/dev/null",
            "-Z", "-W", folder.path, "--start-message=", "--stop-message=",
        ]
        let log = Pipe()
        process.standardError = log
        process.standardOutput = log
        let state = self.state
        log.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            state.withLock { $0.log += String(decoding: data, as: UTF8.self) }
        }
        state.withLock { $0.connection = -1 }
        try process.run()
        state.withLock { $0.process = process }
        let deadline = Date().addingTimeInterval(10)
        if withoutDisplay {
            // No driver to connect: ready once BrlAPI's port takes a connection (its log line comes
            // before its server listens).
            while Date() < deadline, !Self.accepts(port: brlapiPort) { usleep(10_000) }
            return
        }
        while Date() < deadline, state.withLock({ $0.connection }) < 0 { usleep(10_000) }
        guard state.withLock({ $0.connection }) >= 0 else {
            throw VirtualBrailleError(description: "brltty's Virtual driver did not connect within 10 s: \(self.log)")
        }
    }

    /// Kills BRLTTY (SIGKILL: as a crash, nothing said to its clients) and waits for it to end.
    public func stopBRLTTY() {
        guard
            let process = state.withLock({ s -> Process? in
                defer { s.process = nil }
                return s.process
            })
        else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether BRLTTY is running (it may have exited by itself: see `BrailleDisplayTests`).
    public var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// What BRLTTY wrote on its standard error.
    public var log: String { state.withLock { $0.log } }

    /// Every `Braille` line received so far, as cells (bit 0 = dot 1 … bit 7 = dot 8).
    public var written: [[UInt8]] { state.withLock { $0.braille } }

    /// The last cells written (nil before any).
    public var shown: [UInt8]? { written.last }

    /// Presses a key on the display: a driver command such as `Route 5` (cells count from 1),
    /// `FWinRt`, `LnDn`, or a key such as `Return`.
    public func press(_ command: String) {
        let fd = state.withLock { $0.connection }
        if fd >= 0 { Self.send(command, to: fd) }
    }

    /// Waits (up to `timeout` seconds) for cells that satisfy `matches`; returns them, or nil.
    @discardableResult
    public func waitFor(timeout: Double = 10, _ matches: ([UInt8]) -> Bool) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let last = shown, matches(last) { return last }
            usleep(2_000)
        } while Date() < deadline
        return nil
    }

    /// BrlAPI's TCP port (`brlapiHost`'s N is port 4101 + N).
    private var brlapiPort: UInt16 { UInt16(4101 + (Int(brlapiHost.split(separator: ":").last ?? "") ?? 0)) }

    /// Whether a loopback connection to `port` is taken (then closed at once).
    private static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func send(_ line: String, to fd: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// `Braille "1|12|14"` → the cells; nil for any other line.
    static func dots(fromBrailleLine line: String) -> [UInt8]? {
        let words = line.trimmingCharacters(in: .whitespaces)
        guard words.lowercased().hasPrefix("braille "), let open = words.firstIndex(of: "\""),
            let close = words.lastIndex(of: "\""), open < close
        else { return nil }
        let inner = words[words.index(after: open)..<close]
        return inner.split(separator: "|", omittingEmptySubsequences: false).map { cell in
            cell.reduce(UInt8(0)) { dots, digit in
                guard let value = digit.wholeNumberValue, (1...8).contains(value) else { return dots }
                return dots | UInt8(1 << (value - 1))
            }
        }
    }
}

/// BRLTTY could not be started as the tests need it.
public struct VirtualBrailleError: Error, CustomStringConvertible {
    public var description: String
}
