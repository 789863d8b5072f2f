import Foundation

/// The files of a DAISY talking book, a folder or a zip of one, read with the limits of a book:
/// a zip bomb is refused as an EPUB's is (`EPUBArchive`), a file larger than a book's file is
/// refused, and no path may lead outside the book (`..` past its top, an absolute path, an
/// address, a symbolic link out of its folder).
struct DAISYFiles {
    private enum Storage {
        case folder(URL)
        case zip(EPUBArchive, root: String)
    }

    /// The book's name as the user gave it (the folder's or the zip's).
    let name: String
    let limits: EPUBBook.Limits
    private let storage: Storage
    /// The book's package file, as a path in the book: `ncc.html` (DAISY 2.02) or the OPF (DAISY 3).
    let package: String

    /// The book at `url`: a folder holding `ncc.html` or an OPF package, or a zip of one (at its
    /// top or in one folder).
    init(url: URL, limits: EPUBBook.Limits) throws(BookProblem) {
        name = url.lastPathComponent
        self.limits = limits
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw BookProblem(N_("{book}: there is no such file or folder"), ["book": name])
        }
        if isFolder.boolValue {
            let folder = url.standardizedFileURL.resolvingSymlinksInPath()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            guard let package = Self.package(among: names) else { throw Self.noPackage(name) }
            storage = .folder(folder)
            self.package = package
        } else {
            let archive = try EPUBArchive(url: url, limits: limits, notZip: N_("{book} is not a DAISY book (not a zip archive)"))
            // The package at the top, or in the one folder the zip holds (a zipped book folder).
            let candidates = archive.paths.filter { !$0.hasPrefix("__MACOSX/") && $0.split(separator: "/").count <= 2 }
            let top = Self.package(among: candidates.filter { !$0.contains("/") })
            let inFolder = Self.package(among: candidates.filter { $0.contains("/") })
            guard let found = top ?? inFolder else { throw Self.noPackage(name) }
            let root = found.contains("/") ? String(found[...found.lastIndex(of: "/")!]) : ""
            storage = .zip(archive, root: root)
            package = String(found.dropFirst(root.count))
        }
    }

    /// Whether `folder` holds a DAISY book (what `import` takes a folder for).
    static func isBook(folder: String) -> Bool {
        package(among: (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) != nil
    }

    /// `ncc.html` (any case) first, else an `.opf` package.
    private static func package(among paths: [String]) -> String? {
        let sorted = paths.sorted()
        return sorted.first { ($0 as NSString).lastPathComponent.lowercased() == "ncc.html" }
            ?? sorted.first { ($0 as NSString).pathExtension.lowercased() == "opf" }
    }

    private static func noPackage(_ name: String) -> BookProblem {
        BookProblem(
            N_("{book} is not a DAISY book: it has no ncc.html (DAISY 2.02) and no .opf package (DAISY 3); import the book's folder, or a zip of it"),
            ["book": name])
    }

    /// The path `href` names from the document at `base` (a folder in the book), nil when it leads
    /// outside the book.
    static func resolve(_ href: String, against base: String) -> String? {
        let withoutFragment = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? href
        let clean = withoutFragment.removingPercentEncoding ?? withoutFragment
        guard !clean.hasPrefix("/"), !clean.hasPrefix("\\"), !clean.contains(":") else { return nil }
        var parts = base.split(separator: "/").map(String.init)
        for part in clean.split(separator: "/") {
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else if part != "." {
                parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// The bytes of the file at `path` in the book.
    func data(_ path: String) throws(BookProblem) -> Data {
        switch storage {
        case .zip(let archive, let root):
            return try archive.data(root + path)
        case .folder(let folder):
            let url = folder.appendingPathComponent(path).standardizedFileURL.resolvingSymlinksInPath()
            guard url.path.hasPrefix(folder.path + "/") else {
                throw BookProblem(N_("{path} leads outside the book (not read)"), ["path": path])
            }
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path), let size = attributes[.size] as? Int,
                attributes[.type] as? FileAttributeType == .typeRegular
            else { throw BookProblem(N_("missing file {path}"), ["path": path]) }
            guard size <= limits.entryBytes else {
                throw BookProblem(N_("{path} would unpack to {size} MB: too large to be a book's page"), ["path": path, "size": String(size >> 20)])
            }
            guard let data = FileManager.default.contents(atPath: url.path) else { throw BookProblem(N_("missing file {path}"), ["path": path]) }
            return data
        }
    }
}
