#if canImport(Glibc)
    import Glibc
#endif

/// A self-pipe that a poll loop watches: another thread (the speech thread, the braille display's)
/// puts what it has in a locked queue and calls `signal()`.
public final class WakePipe: Sendable {
    public let read: Int32
    public let write: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        read = fds[0]
        write = fds[1]
    }

    deinit {
        for fd in [read, write] where fd >= 0 { close(fd) }
    }

    /// Wakes the poll loop (any thread; a full pipe already wakes it).
    public func signal() {
        var byte: UInt8 = 1
        _ = Glibc.write(write, &byte, 1)
    }

    /// Empties the pipe (the loop's thread).
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while Glibc.read(read, &buffer, buffer.count) > 0 {}
    }
}
