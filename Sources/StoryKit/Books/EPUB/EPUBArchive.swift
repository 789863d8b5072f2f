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
    let limits: EPUBBook.Limits

    /// `notZip`: what to say when the file is no zip archive (it names `{book}`).
    init(url: URL, limits: EPUBBook.Limits, notZip: String = N_("{book} is not an EPUB (not a zip archive)")) throws(BookProblem) {
        name = url.lastPathComponent
        self.limits = limits
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw BookProblem(notZip, ["book": url.lastPathComponent])
        }
        var entries: [String: Entry] = [:]
        var count = 0
        var total: UInt64 = 0
        for entry in archive {
            count += 1
            guard count <= limits.entries else {
                throw BookProblem(
                    N_("{book} has more than {count} files, more than an EPUB ever holds: refused as a zip bomb"),
                    ["book": name, "count": String(limits.entries)])
            }
            total += entry.uncompressedSize
            guard total <= UInt64(limits.totalBytes) else {
                throw BookProblem(
                    N_("{book} would unpack to more than {size} MB: refused as a zip bomb"), ["book": name, "size": String(limits.totalBytes >> 20)])
            }
            entries[entry.path] = entry
            let utf8 = entry.path(using: .utf8)
            if entries[utf8] == nil { entries[utf8] = entry }
        }
        self.entries = entries
    }

    func contains(_ path: String) -> Bool { entries[path] != nil }

    /// Every entry's path.
    var paths: [String] { Array(entries.keys) }

    /// The bytes of the entry at `path` (as the package names it, percent-decoded).
    func data(_ path: String) throws(BookProblem) -> Data {
        guard let entry = entries[path] ?? entries[path.removingPercentEncoding ?? path] else {
            throw BookProblem(N_("missing file {path}"), ["path": path])
        }
        guard entry.uncompressedSize <= UInt64(limits.entryBytes) else {
            throw BookProblem(
                N_("{path} would unpack to {size} MB: too large to be a book's page"), ["path": path, "size": String(entry.uncompressedSize >> 20)])
        }
        var data = Data()
        let limit = limits.entryBytes
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                if data.count > limit { throw BookProblem(N_("{path} unpacks larger than it says: refused as a zip bomb"), ["path": path]) }
            }
        } catch let problem as BookProblem {
            throw problem
        } catch {
            throw BookProblem(N_("{path} cannot be unpacked ({reason})"), ["path": path, "reason": "\(error)"])
        }
        return data
    }
}

/// Why a book (or a chapter of it) cannot be read, naming it; also what a book has that is not
/// used. Made in English (its template marked with N_ and its values), translated where it is
/// shown; `description` is its English.
public struct BookProblem: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    public var text: CatalogText

    public init(_ template: String, _ values: [String: String] = [:], parts: [String: CatalogText] = [:]) {
        text = CatalogText(template, values, parts: parts)
    }

    public var description: String { text.english }
    public func localized(_ messages: MessageCatalog) -> String { text.localized(messages) }

    /// The book's documents hold more text than any book (see ``EPUBBook/Limits/textBytes``).
    static func tooMuchText(book: String, limit: Int) -> BookProblem {
        BookProblem(
            N_("{book}: its chapters unpack to more than {size} MB of text, more than a book ever holds: refused as a zip bomb"),
            ["book": book, "size": String(limit >> 20)])
    }
}
