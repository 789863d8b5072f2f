import Foundation
import ZIPFoundation

/// An EPUB's zip archive, read with limits: a zip bomb (too many entries, or entries that unpack
/// to more than a book ever holds) is refused before anything is unpacked, and an entry that
/// unpacks larger than it said is stopped at the limit.
struct EPUBArchive {
    let name: String
    private let archive: Archive
    /// Entries by path. A name without the zip's UTF-8 flag is CP437 by the standard, but many
    /// EPUB tools write UTF-8 without saying so: both readings find the entry.
    private let entries: [String: Entry]
    private let limits: EPUBBook.Limits

    init(url: URL, limits: EPUBBook.Limits) throws(BookProblem) {
        name = url.lastPathComponent
        self.limits = limits
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw BookProblem("\(url.lastPathComponent) is not an EPUB (not a zip archive)")
        }
        var entries: [String: Entry] = [:]
        var count = 0
        var total: UInt64 = 0
        for entry in archive {
            count += 1
            guard count <= limits.entries else {
                throw BookProblem("\(name) has more than \(limits.entries) files, more than an EPUB ever holds: refused as a zip bomb")
            }
            total += entry.uncompressedSize
            guard total <= UInt64(limits.totalBytes) else {
                throw BookProblem("\(name) would unpack to more than \(limits.totalBytes >> 20) MB: refused as a zip bomb")
            }
            entries[entry.path] = entry
            let utf8 = entry.path(using: .utf8)
            if entries[utf8] == nil { entries[utf8] = entry }
        }
        self.entries = entries
    }

    func contains(_ path: String) -> Bool { entries[path] != nil }

    /// The bytes of the entry at `path` (as the package names it, percent-decoded).
    func data(_ path: String) throws(BookProblem) -> Data {
        guard let entry = entries[path] ?? entries[path.removingPercentEncoding ?? path] else {
            throw BookProblem("missing file \(path)")
        }
        guard entry.uncompressedSize <= UInt64(limits.entryBytes) else {
            throw BookProblem("\(path) would unpack to \(entry.uncompressedSize >> 20) MB: too large to be a book's page")
        }
        var data = Data()
        let limit = limits.entryBytes
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                if data.count > limit { throw BookProblem("\(path) unpacks larger than it says: refused as a zip bomb") }
            }
        } catch let problem as BookProblem {
            throw problem
        } catch {
            throw BookProblem("\(path) cannot be unpacked (\(error))")
        }
        return data
    }
}

/// Why a book (or a chapter of it) cannot be read, naming it.
public struct BookProblem: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
