public import Foundation
import Synchronization

/// The one way a file is replaced (issue 31): written whole to a temporary file in the target's
/// folder, the file flushed to the disk (fsync), renamed over the target, then the folder flushed
/// so that the rename itself survives a power cut. A reader sees the old file or the new one,
/// never half of one; a failed write leaves the old file as it was and no temporary file behind.
public enum AtomicFile {
    private static let counter = Atomic<Int>(0)

    /// A hidden name beside `path` (`.NAME.PID-N.part`), unique in this process and across
    /// processes, so that two writers of the same target never share a temporary file.
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let number = counter.add(1, ordering: .relaxed).newValue
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid())-\(number).part").path
    }

    /// Replaces `url` with `data`. `permissions` (e.g. 0o600 for a file holding a secret) are the
    /// file's from its first byte; otherwise 0o666 less the umask, as a new file has.
    public static func write(_ data: Data, to url: URL, permissions: mode_t? = nil) throws(FileWriteError) {
        let temporary = temporaryPath(for: url.path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions ?? 0o666)
        guard descriptor >= 0 else { throw FileWriteError(path: url.path, reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        // The umask may have taken bits the caller asked for (or left some a secret must not have).
        if failure == nil, let permissions, fchmod(descriptor, permissions) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, moveIntoPlace(temporary, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw FileWriteError(path: url.path, reason: failure)
        }
    }

    /// Replaces `url` with a copy of `source`.
    public static func copy(_ source: URL, to url: URL) throws(FileWriteError) {
        let data: Data
        do { data = try Data(contentsOf: source) } catch {
            throw FileWriteError(path: source.path, reason: (error as NSError).localizedFailureReason ?? "\(error)")
        }
        try write(data, to: url)
    }

    /// Puts `temporary`, written in full by the caller (an archive, an audio encoder), in place of
    /// `path`: flushed, renamed, the folder flushed. On failure the temporary file is removed.
    public static func commit(_ temporary: String, to path: String) throws(FileWriteError) {
        guard Self.rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileWriteError(path: path, reason: reason)
        }
    }

    /// `rename(2)` made durable, for C-style writers that check a status: 0 when `temporary`
    /// was flushed, renamed to `path` and the folder flushed; -1 with `errno` set otherwise (the
    /// temporary file is then left for the caller to remove, as after a failed `rename`).
    public static func rename(_ temporary: String, _ path: String) -> Int32 {
        let file = open(temporary, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return -1 }
        let flushed = fsync(file)
        let saved = errno
        close(file)
        guard flushed == 0 else {
            errno = saved
            return -1
        }
        return moveIntoPlace(temporary, path)
    }

    /// Removes the temporary files in `folder` that writers killed before they could
    /// clean up left (`.NAME.PID-N.part` of any NAME, PID a process that no longer exists): a
    /// SIGKILLed export leaves its half-written audio, and the next export into that folder takes
    /// it away, whatever file it writes (issue 43: one to another file left it). A living
    /// writer's file (its PID still running, this process's included) is kept.
    /// Returns the paths removed.
    @discardableResult
    public static func removeAbandoned(in folder: URL) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(".") && name.hasSuffix(".part") {
            // `.NAME.PID-N.part`: the last dot before `.part` starts PID-N.
            let stem = name.dropLast(".part".count)
            guard let dot = stem.lastIndex(of: "."), dot > stem.startIndex else { continue }
            let middle = stem[stem.index(after: dot)...]
            let fields = middle.split(separator: "-", omittingEmptySubsequences: false)
            guard fields.count == 2, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                let pid = pid_t(fields[0]), pid > 0
            else { continue }
            // ESRCH: no such process. EPERM means it exists (another user's), so it is kept.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let file = folder.appendingPathComponent(name).path
            if unlink(file) == 0 { removed.append(file) }
        }
        return removed
    }

    /// The rename of a flushed file, then the folder flushed.
    private static func moveIntoPlace(_ temporary: String, _ path: String) -> Int32 {
        guard Foundation.rename(temporary, path) == 0 else { return -1 }
        // The folder's entry is what a power cut loses; a folder that cannot be flushed (some
        // network file systems refuse) still holds the new file, so that is not a failure.
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        return 0
    }
}

/// A file that could not be written or replaced: its path and the system's reason (also its
/// `localizedDescription`, for messages that name the path themselves).
public struct FileWriteError: TranslatableError, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { localized(.english) }
    public var errorDescription: String? { reason }

    public func localized(_ messages: MessageCatalog) -> String {
        messages.tr("cannot write {path}: {reason}", ["path": path, "reason": reason])
    }
}

/// Writing a big file behind its writer: every few megabytes written, the disk is asked to take
/// them (`POSIX_FADV_DONTNEED`, which on Linux starts writing dirty pages back without waiting,
/// and lets go of those already on the disk), so the `fsync` that makes the file whole before its
/// rename waits for the last few megabytes only. An export of a long story to WAV waited
/// 40–50 ms for 34 MB at its end; these writes now reach the disk while the story is still being
/// synthesised, and the file's pages are not kept in memory once written.
struct WriteBehind {
    /// Bytes up to here were handed to the disk.
    private var started = 0
    static let step = 4 << 20

    /// `written` bytes of `descriptor` are in it once `flush` has emptied the caller's own buffer
    /// (called only when a step is due): the disk is given those not yet handed to it.
    mutating func wrote(upTo written: Int, of descriptor: Int32, flush: () -> Bool) {
        guard written - started >= Self.step, flush() else { return }
        // Advice, not a promise: a failure to write shows in the fsync at the end.
        _ = posix_fadvise(descriptor, off_t(started), off_t(written - started), POSIX_FADV_DONTNEED)
        started = written
    }
}
