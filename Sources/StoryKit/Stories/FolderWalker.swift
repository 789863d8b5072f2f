import Foundation

/// A story file found on disk, with what the cache compares.
struct FoundFile: Sendable, Hashable {
    var path: String
    var size: Int
    var modified: Int  // nanoseconds since 1970
}

struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
}

/// Walks folders recursively, following links and refusing loops.
enum FolderWalker {
    static func collect(_ root: String, reportMissing: Bool, files: inout [FoundFile], visited: inout Set<FileIdentity>, problems: inout [StoryProblem]) {
        var info = stat()
        guard stat(root, &info) == 0 else {
            let code = errno
            if code == ENOENT {
                if reportMissing {
                    problems.append(
                        StoryProblem(.error, .notFound, path: root, N_("this folder does not exist: check the path given to --stories, or create the folder")))
                }
            } else if code == ELOOP {
                problems.append(StoryProblem(.error, .symlinkLoop, path: root, N_("is a link that leads back to itself: fix or remove the link")))
            } else {
                problems.append(
                    StoryProblem(
                        .error, .unreadable, path: root, N_("cannot be read ({reason}): check its permissions"), ["reason": String(cString: strerror(code))]))
            }
            return
        }
        if (info.st_mode & S_IFMT) == S_IFREG {
            // A single story file named directly.
            files.append(FoundFile(path: root, size: Int(info.st_size), modified: modifiedNanoseconds(info)))
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            problems.append(StoryProblem(.error, .notAFolder, path: root, N_("is neither a folder nor a story file")))
            return
        }
        walk(root, info: info, files: &files, visited: &visited, problems: &problems)
    }

    private static func walk(_ folder: String, info: stat, files: inout [FoundFile], visited: inout Set<FileIdentity>, problems: inout [StoryProblem]) {
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard visited.insert(identity).inserted else {
            problems.append(StoryProblem(.warning, .symlinkLoop, path: folder, N_("leads back to a folder already read (a link loop): skipped")))
            return
        }
        guard let directory = opendir(folder) else {
            let code = errno
            problems.append(
                StoryProblem(
                    .error, .unreadable, path: folder, N_("this folder cannot be read ({reason}): check its permissions"),
                    ["reason": String(cString: strerror(code))]))
            return
        }
        var names: [String] = []
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        while let entry = readdir(directory) {
            // The name in place in the entry (valid until the next `readdir`), not a copy of its 256 bytes.
            let start = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: strlen(start.assumingMemoryBound(to: CChar.self)))
            if bytes.first == UInt8(ascii: ".") { continue }  // hidden files, `.` and `..`
            // A regular file that is not a story (a picture, a PDF) is passed over without a `stat`.
            if entry.pointee.d_type == UInt8(DT_REG), !isStoryName(bytes) { continue }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                // Linux names are bytes; every path in this program is text, so a name that is not
                // UTF-8 could only be opened under a repaired name that does not exist. Say so.
                if isStoryName(bytes) {
                    problems.append(
                        StoryProblem(
                            .error, .unreadable, path: base + visibleName(Array(bytes)),
                            N_(
                                "its file name is not valid UTF-8 (the bytes shown as \\xNN): rename the file, for example with `mv` and a shell glob, to a name in UTF-8"
                            )))
                }
                continue
            }
            names.append(name)
        }
        names.sort()
        // Each name looked up in the open folder, not by its whole path again from `/`; the folder
        // is closed before its subfolders are walked, so a deep tree holds one descriptor at a time.
        let descriptor = dirfd(directory)
        let found = lookUp(names, in: descriptor)
        closedir(directory)
        for entry in found {
            let (name, child, code, isLink) = (entry.name, entry.info, entry.error, entry.isLink)
            let path = base + name
            if code != 0 {
                if code == ELOOP {
                    problems.append(StoryProblem(.warning, .symlinkLoop, path: path, N_("is a link that leads back to itself: skipped")))
                } else if isLink, isStoryName(name.utf8) {
                    problems.append(StoryProblem(.warning, .notFound, path: path, N_("is a link to a file that does not exist: skipped")))
                } else if !isLink {
                    problems.append(StoryProblem(.error, .unreadable, path: path, N_("cannot be read ({reason})"), ["reason": String(cString: strerror(code))]))
                }
                continue
            }
            switch child.st_mode & S_IFMT {
            case S_IFDIR:
                walk(path, info: child, files: &files, visited: &visited, problems: &problems)
            case S_IFREG:
                guard isStoryName(name.utf8), !StoryParser.isFolderDocument(name) else { continue }
                files.append(FoundFile(path: path, size: Int(child.st_size), modified: modifiedNanoseconds(child)))
            default:
                if isStoryName(name.utf8) {
                    problems.append(StoryProblem(.warning, .unreadable, path: path, N_("is not a regular file (a pipe or a device): skipped")))
                }
            }
        }
    }

    /// A folder entry's `stat`, or why there is none (`error`, and whether it is a link).
    private struct LookedUp {
        var name: String
        var info: stat
        var error: Int32
        var isLink: Bool
    }

    /// What a folder's entries are, looked up on every core when there are many (the kernel's
    /// path lookups are most of a warm start's walk).
    private static func lookUp(_ names: [String], in descriptor: Int32) -> [LookedUp] {
        func lookUp(_ name: String) -> LookedUp {
            var info = stat()
            guard fstatat(descriptor, name, &info, 0) != 0 else { return LookedUp(name: name, info: info, error: 0, isLink: false) }
            let code = errno
            var linkInfo = stat()
            let isLink = fstatat(descriptor, name, &linkInfo, AT_SYMLINK_NOFOLLOW) == 0 && (linkInfo.st_mode & S_IFMT) == S_IFLNK
            return LookedUp(name: name, info: info, error: code, isLink: isLink)
        }
        return parallelMap(count: names.count, chunk: 128) { lookUp(names[$0]) }
    }

    /// Whether a file name ends in one of `StoryParser.storyExtensions` (any case), read from its
    /// bytes: what `pathExtension` and `lowercased()` told, without making two strings a file.
    static func isStoryName(_ name: some BidirectionalCollection<UInt8>) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return false }
        let extensionBytes = name[name.index(after: dot)...]
        guard extensionBytes.count <= 8 else { return false }
        var lowered = ""
        for byte in extensionBytes {
            guard byte < 0x80 else { return false }
            lowered.unicodeScalars.append(Unicode.Scalar(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte))
        }
        return StoryParser.storyExtensions.contains(lowered)
    }

    /// A file name's bytes as text, each byte that is not part of valid UTF-8 shown as `\xNN`.
    static func visibleName(_ bytes: [UInt8]) -> String {
        var shown = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                shown.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { shown += "\\x" + String(byte, radix: 16, uppercase: true) }
                offset += length
            case .emptyInput:
                return shown
            }
        }
    }

    static func modifiedNanoseconds(_ info: stat) -> Int {
        Int(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int(info.st_mtim.tv_nsec)
    }
}

/// Parses files on every core.
enum ParallelParser {
    /// A file's record, and whether it came from the cache rather than from parsing the file.
    struct Parsed: Sendable {
        var record: StoryCache.Record
        var fromCache: Bool
    }
    typealias Outcome = Result<Parsed, StoryProblem>

    /// The files' records in their order; `parallel: false` parses them one after the other on
    /// the calling thread (the same results: each file is parsed on its own).
    static func parse(_ files: [FoundFile], cached: [String: StoryCache.Record], parallel: Bool = true) -> [Outcome] {
        guard parallel else { return files.map { outcome(of: $0, cached: cached) } }
        return parallelMap(count: files.count, chunk: 16) { outcome(of: files[$0], cached: cached) }
    }

    static func outcome(of file: FoundFile, cached: [String: StoryCache.Record]) -> Outcome {
        if let record = cached[file.path], record.size == file.size, record.modified == file.modified {
            return .success(Parsed(record: record, fromCache: true))
        }
        do throws(StoryProblem) {
            let parsed = try StoryParser.parse(contentsOf: URL(fileURLWithPath: file.path), path: file.path)
            let record = StoryCache.Record(entry: StoryEntry(story: parsed.story), warnings: parsed.warnings, size: file.size, modified: file.modified)
            return .success(Parsed(record: record, fromCache: false))
        } catch {
            return .failure(error)
        }
    }

}
