import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads, places and favourites the database could not take because it cannot be written (a full
/// disk, a database opened read-only), kept until a later start can write them: a child's read is
/// never lost to a full disk.
///
/// They wait in a small file of JSON lines on a memory-backed folder (`$XDG_RUNTIME_DIR`, else
/// `/dev/shm`), which a full data disk does not fill; the file is named after the database's path
/// and the user, and the next store opened for writing on that database applies them, in order,
/// and removes it. Memory-backed means a reboot forgets them: they are a bridge over a full disk,
/// not a second database.
struct PendingChanges: Sendable {
    /// Where the changes wait; nil when no memory-backed folder can be written (then nothing can
    /// be kept, and a refused write is reported as before).
    let url: URL?
    /// More than this is not a pending file this program wrote (thousands of sessions' reads).
    static let sizeLimit = 1 << 20

    /// - Parameter environment: `STORYREADER_PENDING_DIR` names the folder (tests); else
    ///   `XDG_RUNTIME_DIR`, else `/dev/shm`.
    init(databasePath: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let candidates = [environment["STORYREADER_PENDING_DIR"], environment["XDG_RUNTIME_DIR"], "/dev/shm"].compactMap { $0 }.filter { !$0.isEmpty }
        guard let folder = candidates.first(where: { access($0, W_OK | X_OK) == 0 }) else {
            url = nil
            return
        }
        let digest = SHA256.hash(data: Data(databasePath.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        url = URL(fileURLWithPath: folder).appendingPathComponent("storyreader-pending-\(getuid())-\(digest).jsonl")
    }

    /// One kept change, as a line of the file.
    private struct Line: Codable {
        var kind: String
        var profile: Int64
        var story: String
        var sentence: Int?
        var favourite: Bool?
        /// When the read finished (seconds since 1970): the history keeps the child's time.
        var at: Double?
        /// A coached read's tally: words read, helped with, passed over.
        var coached: [Int]?
    }

    /// Keeps `change` (finished and coached reads, places and favourites only: profiles need the parent and
    /// the site, and are refused instead). Returns whether it was kept.
    func keep(_ change: StoreChange, at date: Date) -> Bool {
        guard let url, let data = Self.line(change, at: date) else { return false }
        // Never through a link another user left in a shared folder, and only into our own file.
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard Self.isOwnFile(fd), Self.size(fd) + data.count <= Self.sizeLimit else { return false }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == data.count
    }

    /// `change` as a line of the file, its newline included (nil: a profile change, never kept).
    static func line(_ change: StoreChange, at date: Date) -> Data? {
        let line: Line
        switch change {
        case .recordFinished(let id, let story): line = Line(kind: "read", profile: id, story: story, at: date.timeIntervalSince1970)
        case .savePosition(let id, let story, let sentence): line = Line(kind: "place", profile: id, story: story, sentence: sentence)
        case .setFavourite(let id, let story, let value): line = Line(kind: "favourite", profile: id, story: story, favourite: value)
        case .recordCoachedRead(let id, let story, let tally):
            line = Line(kind: "coached", profile: id, story: story, at: date.timeIntervalSince1970, coached: [tally.read, tally.helped, tally.skipped])
        // Bookmarks wait for a start that can write them no more than profiles do: a full disk
        // loses the mark, never a read or a place (said with the store's message).
        case .saveProfile, .saveSettings, .saveBookmark, .removeBookmark: return nil
        }
        guard var data = try? JSONEncoder().encode(line) else { return nil }
        data.append(0x0A)
        return data
    }

    /// The kept changes, oldest first, with each read's time (empty when there are none, or the
    /// file is not this user's own).
    func load() -> [(change: StoreChange, at: Date?)] {
        guard let url else { return [] }
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        guard Self.isOwnFile(fd), Self.size(fd) <= Self.sizeLimit, let data = try? handle.readToEnd() else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: 0x0A).compactMap { bytes -> (StoreChange, Date?)? in
            guard let line = try? decoder.decode(Line.self, from: Data(bytes)) else { return nil }
            switch line.kind {
            case "read": return (.recordFinished(profileID: line.profile, story: line.story), line.at.map(Date.init(timeIntervalSince1970:)))
            case "place": return line.sentence.map { (.savePosition(profileID: line.profile, story: line.story, sentence: $0), nil) }
            case "favourite": return line.favourite.map { (.setFavourite(profileID: line.profile, story: line.story, $0), nil) }
            case "coached":
                guard let counts = line.coached, counts.count == 3, counts.allSatisfy({ $0 >= 0 }) else { return nil }
                let tally = CoachTally(read: counts[0], helped: counts[1], skipped: counts[2])
                return (.recordCoachedRead(profileID: line.profile, story: line.story, tally), line.at.map(Date.init(timeIntervalSince1970:)))
            default: return nil
            }
        }
    }

    func remove() {
        guard let url else { return }
        unlink(url.path)
    }

    private static func isOwnFile(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_uid == getuid()
    }

    private static func size(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : Int.max
    }
}

extension StoryStore {
    /// Where a place is kept when it cannot be written now, and the line that keeps it: what a
    /// crash handler appends (open, write and close are all it may call) so that the next start
    /// goes on from `change`'s place. The line is the one ``PendingChanges`` itself writes, and the
    /// next store opened for writing applies it. Nil when nothing can be kept (no memory-backed
    /// folder) or `change` is not a place.
    public func crashRecord(_ change: StoreChange) -> (path: String, line: [UInt8])? {
        guard case .savePosition = change, let url = pending.url, let line = PendingChanges.line(change, at: clock.now()) else { return nil }
        return (url.path, Array(line))
    }

    /// Whether `error` means the database cannot take writes now (full disk, opened read-only),
    /// as opposed to a change it refuses (a profile that is gone).
    static func cannotWrite(_ error: StoreError) -> Bool {
        switch error {
        case .diskFull, .dataFolderNotWritable, .fileNotWritable, .damaged, .unreadable: true
        default: false
        }
    }

    /// Writes the changes kept while the database could not be written (see ``PendingChanges``),
    /// in order, then forgets them. Stops at the first that still cannot be written, keeping the
    /// file whole for a later start; a change the database refuses (its profile was removed since)
    /// is dropped. Returns how many were written.
    @discardableResult
    func applyPendingChanges() -> Int {
        let kept = pending.load()
        guard !kept.isEmpty else { return 0 }
        var written = 0
        for (index, (change, at)) in kept.enumerated() {
            do {
                switch change {
                case .recordFinished(let id, let story): _ = try recordFinishedRead(profileID: id, storyID: story, at: at)
                case .savePosition(let id, let story, let sentence): try setPosition(profileID: id, storyID: story, sentenceIndex: sentence)
                case .setFavourite(let id, let story, let value):
                    if try isFavourite(profileID: id, storyID: story) != value { _ = try toggleFavourite(profileID: id, storyID: story) }
                case .recordCoachedRead(let id, let story, let tally): try recordCoachedRead(profileID: id, storyID: story, tally: tally, at: at)
                case .saveProfile, .saveSettings, .saveBookmark, .removeBookmark: continue
                }
                written += 1
            } catch  where Self.cannotWrite(error) {
                // Full again: what was written is forgotten (a later start would write it twice),
                // the rest kept for a later start.
                let rest = kept.dropFirst(index)
                pending.remove()
                for (change, at) in rest { _ = pending.keep(change, at: at ?? clock.now()) }
                return written
            } catch {
                // Refused for good (its profile was removed since): nothing to keep it for.
            }
        }
        pending.remove()
        return written
    }
}
