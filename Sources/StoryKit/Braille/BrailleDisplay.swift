import CBrlapi
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A key pressed on the braille display.
public enum BrailleKey: Sendable, Hashable {
    /// Routing key over cell `Int` (0: the leftmost cell).
    case route(Int)
    /// The display's pan keys (its window moves a display-width back or on).
    case panBack, panOn
    /// The display's previous-line and next-line keys.
    case lineUp, lineDown
    /// A key typed on the display's keyboard (or a key BRLTTY passes on as one).
    case key(Key)
}

/// The braille display, through a running BRLTTY's BrlAPI: it owns the display in tty mode for
/// this program, writes the cells it is given, reads the display's keys, and opens the connection
/// again when BRLTTY comes back.
///
/// Everything BrlAPI does runs on the display's own thread, so a slow or vanished BRLTTY never
/// holds up the loop or speech: `show` only hands the cells over. Without BRLTTY nothing breaks;
/// the thread tries again every second. The thread is a `SerialThread` (the project's idiom for a
/// C library: the connection is made, used and freed there, each BrlAPI call checked to run
/// there) running one job, the connection's loop: it waits on BrlAPI's socket and on new cells at
/// once (`poll`), which a queue of jobs cannot, so cells come through a wake pipe and keys go out
/// through `onEvent` (the shell posts them to the loop's inbox).
public final class BrailleDisplay: Sendable {
    /// What the display's thread tells the loop (on that thread: queue it and wake the loop).
    public enum Event: Sendable, Hashable {
        /// The display is ours, with `cells` cells (also after BRLTTY came back).
        case connected(cells: Int)
        /// The first try could not use the display (why: ``BrailleFailure``); the thread keeps trying.
        case unavailable(BrailleFailure)
        /// The display went away (BRLTTY stopped); the thread keeps trying.
        case lost(reason: String)
        case key(BrailleKey)
    }

    /// Where BrlAPI is: nil fields take BrlAPI's own defaults (`BRLAPI_HOST`, `BRLAPI_AUTH`, then
    /// the local BRLTTY).
    public struct Address: Sendable, Hashable {
        public var host: String?
        public var auth: String?
        public init(host: String? = nil, auth: String? = nil) {
            self.host = host
            self.auth = auth
        }
    }

    private struct Shared: Sendable {
        var cells: [UInt8] = []
        var written: [UInt8]?
        var stopped = false
        var cellCount: Int?
    }

    private let shared = Mutex(Shared())
    private let wake = WakePipe()
    private let address: Address
    private let takesEveryKey: Bool
    private let onEvent: @Sendable (Event) -> Void
    private let thread = SerialThread(name: "storyreader.braille")
    private let finished = DispatchSemaphore(value: 0)
    private let firstAttempt = DispatchSemaphore(value: 0)

    /// Starts the display's thread, which connects at once.
    /// - Parameters:
    ///   - takesEveryKey: the kiosk: every key of the display comes here and none goes to BRLTTY
    ///     (which could otherwise switch consoles). Outside the kiosk, the keys this program has no
    ///     use for stay BRLTTY's.
    public init(address: Address = Address(), takesEveryKey: Bool = false, onEvent: @escaping @Sendable (Event) -> Void) {
        self.address = address
        self.takesEveryKey = takesEveryKey
        self.onEvent = onEvent
        thread.enqueue { [self] in run() }
        // The loop is the thread's only job: the thread ends with it.
        thread.close(waiting: false)
    }

    /// Waits (at most `timeout` seconds) until the first connection has been tried, so that the
    /// program's first screen is on the display, or its absence known, before anything is said.
    public func waitForFirstAttempt(timeout: Double = 2) {
        if firstAttempt.wait(timeout: .now() + timeout) == .success { firstAttempt.signal() }
    }

    /// The display's cells, once connected.
    public var cellCount: Int? { shared.withLock(\.cellCount) }

    /// Shows `cells` (any thread): written on the display's thread at once, or when it connects.
    public func show(_ cells: [UInt8]) {
        let changed = shared.withLock { state -> Bool in
            guard state.cells != cells else { return false }
            state.cells = cells
            return true
        }
        if changed { wake.signal() }
    }

    /// Gives the display back to BRLTTY and ends the thread (waits at most a second).
    public func stop() {
        shared.withLock { $0.stopped = true }
        wake.signal()
        _ = finished.wait(timeout: .now() + 1)
    }

    private var isStopped: Bool { shared.withLock(\.stopped) }

    // MARK: - The display's thread

    private func run() {
        defer { finished.signal() }
        var triedOnce = false
        var wasConnected = false
        while !isStopped {
            switch connect() {
            case .success(let connection):
                wasConnected = true
                onEvent(.connected(cells: connection.cells))
                if !triedOnce { firstAttempt.signal() }
                triedOnce = true
                let reason = serve(connection)
                shared.withLock {
                    $0.written = nil
                    $0.cellCount = nil
                }
                if let reason, !isStopped { onEvent(.lost(reason: reason)) }
            case .failure(let reason):
                if !triedOnce {
                    triedOnce = true
                    if !wasConnected { onEvent(.unavailable(reason.kind)) }
                    firstAttempt.signal()
                }
            }
            if isStopped { break }
            // Try again in a second (or at once when told to stop).
            var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 1000)
            wake.drain()
        }
    }

    private struct Connection {
        var handle: OpaquePointer
        var fd: Int32
        var cells: Int
    }

    private struct Failure: Error {
        var kind: BrailleFailure
        init(text: String) { kind = .other(text) }
        init(_ kind: BrailleFailure) { self.kind = kind }
    }

    private func connect() -> Result<Connection, Failure> {
        thread.preconditionOnThread("A BrlAPI connection")
        guard let memory = malloc(brlapi_getHandleSize()) else { return .failure(Failure(text: "out of memory")) }
        let handle = OpaquePointer(memory)
        let fd = address.host.withOptionalCString { host in
            address.auth.withOptionalCString { auth -> Int32 in
                var settings = brlapi_connectionSettings_t(
                    auth: UnsafeMutablePointer(mutating: auth),
                    host: UnsafeMutablePointer(mutating: host))
                return brlapi__openConnection(handle, &settings, nil)
            }
        }
        guard fd >= 0 else {
            let failure = BrailleFailure.ofConnection(auth: address.auth ?? ProcessInfo.processInfo.environment["BRLAPI_AUTH"])
            free(memory)
            return .failure(Failure(failure))
        }
        cbrlapi_quiet_exceptions(handle)
        func fail(_ reason: String) -> Result<Connection, Failure> {
            brlapi__closeConnection(handle)
            free(memory)
            return .failure(Failure(text: reason))
        }
        // The display's size before the tty and after, the same both times. BRLTTY 6.5 sizes a
        // client's window when it enters the tty and copies a whole display into it at every
        // write: a client that entered while BRLTTY's braille driver was still starting (size 0)
        // and then wrote 40 cells overran BRLTTY's heap, and BRLTTY died ("malloc_consolidate():
        // invalid chunk size"; valgrind showed the write). A display still starting is tried
        // again in a second, as any failure is: waiting here would hold up the start of every
        // program on a machine whose BRLTTY has no display.
        func size() -> (columns: UInt32, rows: UInt32)? {
            var columns: UInt32 = 0
            var rows: UInt32 = 0
            guard brlapi__getDisplaySize(handle, &columns, &rows) >= 0 else { return nil }
            return (columns, rows)
        }
        guard let before = size() else { return fail(String(cString: cbrlapi_last_error())) }
        // BRLTTY without a display (its "no" driver) says 1 × 1; while its driver starts, 0.
        guard before.columns * max(before.rows, 1) > 1 else {
            brlapi__closeConnection(handle)
            free(memory)
            return .failure(Failure(.noDisplay))
        }
        // The terminal this program runs in (BRLTTY follows the console's); where BrlAPI cannot
        // tell (a pseudo-terminal, no screen driver), the root of BRLTTY's tty tree.
        guard brlapi__enterTtyMode(handle, BRLAPI_TTY_DEFAULT, nil) >= 0 || brlapi__enterTtyModeWithPath(handle, nil, 0, nil) >= 0 else {
            return fail(String(cString: cbrlapi_last_error()))
        }
        guard let after = size(), after == before else {
            _ = brlapi__leaveTtyMode(handle)
            return fail("the braille display changed size as this program connected")
        }
        let (columns, rows) = before
        var keys: [brlapi_keyCode_t] = [
            cbrlapi_key_cmd_route, cbrlapi_key_cmd_fwinlt, cbrlapi_key_cmd_fwinrt,
            cbrlapi_key_cmd_lnup, cbrlapi_key_cmd_lndn,
        ]
        if !takesEveryKey {
            _ = brlapi__ignoreKeys(handle, brlapi_rangeType_all, nil, 0)
            _ = brlapi__acceptKeys(handle, brlapi_rangeType_command, &keys, UInt32(keys.count))
            var symbols: [brlapi_keyCode_t] = [cbrlapi_key_type_sym]
            _ = brlapi__acceptKeys(handle, brlapi_rangeType_type, &symbols, 1)
        } else {
            _ = brlapi__acceptKeys(handle, brlapi_rangeType_all, nil, 0)
        }
        let cells = Int(columns * max(rows, 1))
        shared.withLock { $0.cellCount = cells }
        return .success(Connection(handle: handle, fd: fd, cells: cells))
    }

    /// Writes and reads until BRLTTY goes away (returns why) or the display is stopped (nil).
    private func serve(_ connection: Connection) -> String? {
        thread.preconditionOnThread("A BrlAPI call")
        defer {
            _ = brlapi__leaveTtyMode(connection.handle)
            brlapi__closeConnection(connection.handle)
            free(UnsafeMutableRawPointer(connection.handle))
        }
        while !isStopped {
            let pending = shared.withLock { state -> [UInt8]? in
                state.written == state.cells ? nil : state.cells
            }
            if let pending {
                var dots = [UInt8](repeating: 0, count: connection.cells)
                for index in 0..<min(pending.count, dots.count) { dots[index] = pending[index] }
                guard brlapi__writeDots(connection.handle, dots) >= 0 else { return String(cString: cbrlapi_last_error()) }
                shared.withLock { $0.written = pending }
            }
            var descriptors = [
                pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, -1)
            wake.drain()
            if descriptors[0].revents != 0 {
                while true {
                    var code: brlapi_keyCode_t = 0
                    let got = brlapi__readKey(connection.handle, 0, &code)
                    if got < 0 { return String(cString: cbrlapi_last_error()) }
                    if got == 0 { break }
                    if let key = Self.key(code) { onEvent(.key(key)) }
                }
            }
        }
        return nil
    }

    /// A BrlAPI key code as a display key (nil: one this program has no use for).
    static func key(_ code: brlapi_keyCode_t) -> BrailleKey? {
        let type = code & cbrlapi_key_type_mask
        if type == cbrlapi_key_type_cmd {
            let command = code & (cbrlapi_key_type_mask | cbrlapi_key_cmd_blk_mask)
            if command == cbrlapi_key_cmd_route { return .route(Int(code & cbrlapi_key_cmd_arg_mask)) }
            switch code & (cbrlapi_key_type_mask | cbrlapi_key_code_mask) {
            case cbrlapi_key_cmd_fwinlt: return .panBack
            case cbrlapi_key_cmd_fwinrt: return .panOn
            case cbrlapi_key_cmd_lnup: return .lineUp
            case cbrlapi_key_cmd_lndn: return .lineDown
            default: return nil
            }
        }
        guard type == cbrlapi_key_type_sym else { return nil }
        let symbol = code & cbrlapi_key_code_mask
        if symbol & cbrlapi_key_sym_unicode != 0 || symbol < 0xFF00 {
            let value = symbol & (cbrlapi_key_sym_unicode - 1)
            guard let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: value)) else { return nil }
            return scalar == " " ? .key(.space) : .key(.character(Character(scalar)))
        }
        let named: [UInt64: Key] = [
            0xFF08: .backspace, 0xFF09: .tab, 0xFF0D: .enter, 0xFF1B: .escape, 0xFF50: .home,
            0xFF51: .left, 0xFF52: .up, 0xFF53: .right, 0xFF54: .down, 0xFF55: .pageUp,
            0xFF56: .pageDown, 0xFF57: .end, 0xFFFF: .delete,
        ]
        return named[symbol].map { .key($0) }
    }
}

extension Optional where Wrapped == String {
    fileprivate func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        switch self {
        case .some(let string): string.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
