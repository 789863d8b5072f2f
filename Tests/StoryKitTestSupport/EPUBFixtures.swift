public import Foundation
import ZIPFoundation

/// Small EPUBs made by the tests themselves (no binaries in the repository).
public enum EPUBFixtures {
    /// Writes an EPUB of (path, text) files and (path, data) files (audio made at test time) to
    /// `url`, with its mimetype and (unless told not to) a container.xml naming
    /// `OEBPS/content.opf`, which is `opf`.
    @discardableResult
    public static func make(
        _ url: URL, opf: String, files: [(String, String)], data binaries: [(String, Data)] = [],
        container: Bool = true
    ) throws -> URL {
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ text: String) throws { try add(path, Data(text.utf8)) }
        func add(_ path: String, _ data: Data) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("mimetype", "application/epub+zip")
        if container {
            try add(
                "META-INF/container.xml",
                """
                <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
                <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
                """)
        }
        try add("OEBPS/content.opf", opf)
        for (path, text) in files { try add(path, text) }
        for (path, data) in binaries { try add(path, data) }
        return url
    }

    /// An XHTML document with `body`.
    public static func xhtml(_ body: String, language: String? = nil) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"\(language.map { " xml:lang=\"\($0)\"" } ?? "")><head><title>x</title></head>
        <body>\(body)</body></html>
        """
    }

    /// An EPUB 3 package: `documents` are (id, href) in spine order, with a nav.
    public static func opf3(title: String, author: String, language: String, documents: [(String, String)], metadata: String = "") -> String {
        let items = documents.map { #"<item id="\#($0.0)" href="\#($0.1)" media-type="application/xhtml+xml"/>"# }.joined()
        let spine = documents.map { #"<itemref idref="\#($0.0)"/>"# }.joined()
        return """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>\(title)</dc:title><dc:creator id="a">\(author)</dc:creator><meta refines="#a" property="role">aut</meta>
            <dc:language>\(language)</dc:language>\(metadata)</metadata>
            <manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>\(items)</manifest>
            <spine>\(spine)</spine></package>
            """
    }
}

extension EPUBFixtures {
    /// The text of one file inside an EPUB (to compare what is read with what the book says).
    public static func entryText(_ path: String, in url: URL) throws -> String {
        let archive = try Archive(url: url, accessMode: .read)
        guard let entry = archive[path] else { throw CocoaError(.fileNoSuchFile) }
        var data = Data()
        _ = try archive.extract(entry) { data.append($0) }
        return String(decoding: data, as: UTF8.self)
    }
}

/// How much of a text is read: the share of its words found in order in what was read.
public enum WordCoverage {
    /// Words as letters and digits, lower case; punctuation and quotes are spaces.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The share of `reference` found in `read`, in order: a word missing from what was read is
    /// skipped in the reference; a word read that the reference lacks is passed over (a short
    /// look ahead keeps one extra word from losing the place).
    public static func share(of reference: [String], in read: [String]) -> Double {
        guard !reference.isEmpty else { return 1 }
        var position = 0
        var found = 0
        for word in reference {
            let window = read[position..<min(read.count, position + 40)]
            if let index = window.firstIndex(of: word) {
                found += 1
                position = index + 1
            }
        }
        return Double(found) / Double(reference.count)
    }
}
