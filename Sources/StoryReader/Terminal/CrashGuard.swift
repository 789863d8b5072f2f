import Foundation
import StoryKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) does before it ends the
/// program, in every mode that changes the terminal or reads a story: the terminal guard puts the
/// terminal back, the place being heard is kept, a short message says what happened and how to
/// report it, and the crash then goes on as it would have (Swift's backtracer, a core, the exit
/// status of the signal).
///
/// A signal handler may call only async-signal-safe functions: no allocation, no lock, no Swift
/// runtime call that could take one. So everything the handler writes is prepared before, on the
/// loop, in memory allocated once: the place as the line the store's pending-changes file takes
/// (``StoryStore/crashRecord(_:)``: the next start applies it like a place kept over a full disk),
/// that file's path, and the message in the interface's language. The handler only calls
/// `tcsetattr`, `open`, `fstat`, `write`, `close`, `dup2`, `sigaction` and `raise`.
enum CrashGuard {
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    /// Two slots of prepared bytes: the loop fills the one not published, then publishes it, so
    /// the handler never reads a half-written slot (unless two places were prepared while it ran).
    private static let slotSize = 8192
    nonisolated(unsafe) private static let slots = UnsafeMutableRawPointer.allocate(byteCount: 2 * slotSize, alignment: 16)
    /// The published slot (0 or 1), -1 before anything is prepared.
    private static let published = Atomic<Int>(-1)
    /// The first crash does the work; one on another thread meanwhile goes straight on.
    private static let crashing = Atomic<Bool>(false)
    /// Each signal's name, nul-terminated, 16 bytes a signal.
    nonisolated(unsafe) private static let names = UnsafeMutablePointer<UInt8>.allocate(capacity: 65 * 16)
    /// The handlers that were there before (Swift's backtracer, or the default action).
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) private static var installed = false
    private static let devNull: [CChar] = Array("/dev/null".utf8CString)

    /// The slot's header: five lengths (path with its nul, place line, message before the
    /// signal's name, after it, the place sentence), then those bytes in that order.
    private static let header = 5 * MemoryLayout<Int>.size

    /// The language of the message (the session's, once it runs; English for a prompt before).
    nonisolated(unsafe) private static var messages = MessageCatalog.english

    /// Installs the handlers (once a process); `messages` (nil: as before) is the message's
    /// language from now on.
    static func install(messages: MessageCatalog? = nil) {
        if let messages { Self.messages = messages }
        if !installed {
            installed = true
            // Everything the handler touches exists before it can run (no lazy global in a handler).
            _ = TerminalMode.leaveSequence.count
            _ = published.load(ordering: .relaxed)
            _ = crashing.load(ordering: .relaxed)
            _ = devNull.count
            names.initialize(repeating: 0, count: 65 * 16)
            previous.initialize(repeating: sigaction(), count: 65)
            for (signal, name) in [
                (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"), (SIGABRT, "SIGABRT"), (SIGFPE, "SIGFPE"),
            ] {
                for (index, byte) in name.utf8.enumerated() { names[Int(signal) * 16 + index] = byte }
            }
            let handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signal, info, _ in
                CrashGuard.handle(signal, info)
            }
            for signal in signals {
                var action = sigaction()
                action.__sigaction_handler.sa_sigaction = handler
                sigemptyset(&action.sa_mask)
                // On the alternate stack where there is one (Swift's runtime sets one up): a stack
                // overflow is a SIGSEGV with no stack left.
                action.sa_flags = SA_SIGINFO | SA_ONSTACK
                sigaction(signal, &action, previous + Int(signal))
            }
        }
        prepare(place: nil, messages: Self.messages)
    }

    /// The place to keep if the program crashes now (nil: none, a story not being read), and the
    /// message in `messages`' language. Called by the loop whenever the place changes.
    static func prepare(place: (path: String, line: [UInt8])?, messages: MessageCatalog) {
        guard installed else { return }
        let message = Self.message(keepsPlace: place != nil, messages: messages)
        let parts = message.components(separatedBy: "{signal}")
        let before = Array(parts[0].utf8)
        let after = Array(parts.dropFirst().joined().utf8)
        let path: [UInt8] = place.map { Array($0.path.utf8) + [0] } ?? []
        let line: [UInt8] = place?.line ?? []
        guard header + path.count + line.count + before.count + after.count <= slotSize else { return }
        let slot = 1 - max(0, published.load(ordering: .acquiring))
        let base = slots + slot * slotSize
        for (index, count) in [path.count, line.count, before.count, after.count, 0].enumerated() {
            base.storeBytes(of: count, toByteOffset: index * MemoryLayout<Int>.size, as: Int.self)
        }
        var offset = header
        for bytes: [UInt8] in [path, line, before, after] {
            bytes.withUnsafeBytes { if let from = $0.baseAddress { (base + offset).copyMemory(from: from, byteCount: $0.count) } }
            offset += bytes.count
        }
        published.store(slot, ordering: .releasing)
    }

    /// What is said on a crash: what happened, whether the place is kept, and how to report it.
    static func message(keepsPlace: Bool, messages: MessageCatalog) -> String {
        var lines = [messages.tr("Storyreader stopped because of a fault in the program ({signal}).")]
        if keepsPlace { lines.append(messages.tr("Your place in the story is kept: start storyreader again to go on from there.")) }
        lines.append(
            messages.tr(
                "To report it, send this message, any lines below it and what you were doing to whoever gave you storyreader (version {version}).",
                ["version": StoryKitInfo.version]))
        return "\n" + lines.joined(separator: "\n") + "\n"
    }

    /// The handler: terminal back, place kept, message said, then the crash goes on.
    private static func handle(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
        if !crashing.exchange(true, ordering: .relaxed) {
            TerminalMode.restore()
            let slot = published.load(ordering: .acquiring)
            if slot >= 0 { writePrepared(slots + slot * slotSize, signal: signal) }
            // Swift's backtracer asks on a terminal "Press space to interact…" and waits 30 s
            // under a program that looks alive: it reads /dev/null instead, prints its backtrace
            // and lets the crash end the program.
            if unsafeBitCast(previous[Int(signal)].__sigaction_handler, to: Int.self) > 1, isatty(STDIN_FILENO) == 1 {
                let null = open(devNull, O_RDONLY | O_CLOEXEC)
                if null >= 0 {
                    _ = dup2(null, STDIN_FILENO)
                    _ = close(null)
                }
            }
        }
        _ = sigaction(signal, previous + Int(signal), nil)
        // A fault of this thread (the kernel's si_code is positive) happens again as the handler
        // returns, now to the handler before (with its true address); a signal sent by a process
        // or by abort() is sent again.
        if info == nil || info!.pointee.si_code <= 0 { raise(signal) }
    }

    /// Appends the place line to the pending file (never through a link, only to our own regular
    /// file) and writes the message to standard error.
    private static func writePrepared(_ base: UnsafeMutableRawPointer, signal: Int32) {
        let counts = (0..<4).map { base.load(fromByteOffset: $0 * MemoryLayout<Int>.size, as: Int.self) }
        let path = (base + header).assumingMemoryBound(to: CChar.self)
        let line = base + header + counts[0]
        let before = line + counts[1]
        let after = before + counts[2]
        if counts[0] > 0, counts[1] > 0 {
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                var info = stat()
                if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() {
                    writeAll(fd, line, counts[1])
                }
                _ = close(fd)
            }
        }
        writeAll(STDERR_FILENO, before, counts[2])
        let name = names + Int(signal) * 16
        var length = 0
        while length < 15, name[length] != 0 { length += 1 }
        writeAll(STDERR_FILENO, UnsafeRawPointer(name), length)
        writeAll(STDERR_FILENO, after, counts[3])
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) {
        var done = 0
        while fd >= 0, done < count {
            let written = Glibc.write(fd, bytes + done, count - done)
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            done += written
        }
    }
}
