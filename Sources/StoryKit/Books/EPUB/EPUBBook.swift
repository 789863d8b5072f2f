import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ZIPFoundation

/// An EPUB (2 or 3) read as stories: the spine's documents in order, front and back matter left
/// out by their `epub:type`, footnotes and page markers never read inline, pictures' alt text as
/// their spoken description (`alt=""` is decorative), and a collection (several `article`s of
/// stories) split into one story per work.
public struct EPUBBook: Sendable {
    public typealias Block = BookBlock

    public struct Work: Sendable, Hashable {
        public var title: String
        public var blocks: [Block]
    }

    public var title: String
    public var author: String?
    public var language: String
    public var works: [Work]
    /// Chapters that could not be read, named (the rest of the book is still imported).
    public var warnings: [String] = []

    /// Limits that refuse a zip bomb before it is unpacked.
    public static let maximumEntries = 10_000
    public static let maximumEntryBytes = 64 << 20
    public static let maximumTotalBytes = 512 << 20

    /// `split`: nil guesses (a book of several story `article`s is split), true or false forces it.
    public init(url: URL, split: Bool? = nil) throws(BookProblem) {
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw BookProblem("\(url.lastPathComponent) is not an EPUB (not a zip archive)")
        }
        let entries = Array(archive)
        guard entries.count <= Self.maximumEntries else { throw BookProblem("\(url.lastPathComponent) has \(entries.count) files: more than an EPUB ever holds (\(Self.maximumEntries)); refused") }
        let total = entries.reduce(UInt64(0)) { $0 + $1.uncompressedSize }
        guard total <= UInt64(Self.maximumTotalBytes) else { throw BookProblem("\(url.lastPathComponent) would unpack to \(total >> 20) MB: refused as a zip bomb") }
        func read(_ path: String) throws(BookProblem) -> Data {
            let wanted = path.removingPercentEncoding ?? path
            guard let entry = entries.first(where: { $0.path == wanted || $0.path == path }) else { throw BookProblem("missing file \(wanted)") }
            guard entry.uncompressedSize <= UInt64(Self.maximumEntryBytes) else { throw BookProblem("\(wanted) is too large to unpack") }
            var data = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    data.append(chunk)
                    if data.count > Self.maximumEntryBytes { throw BookProblem("\(wanted) unpacks larger than it says") }
                }
            } catch let problem as BookProblem { throw problem } catch { throw BookProblem("\(wanted) cannot be unpacked: \(error)") }
            return data
        }
        let container = XMLTree(try read("META-INF/container.xml"))
        guard let opfPath = container.first("rootfile")?.attributes["full-path"] else { throw BookProblem("\(url.lastPathComponent): META-INF/container.xml names no package file") }
        let opf = XMLTree(try read(opfPath))
        let base = (opfPath as NSString).deletingLastPathComponent
        title = opf.first("dc:title")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? url.deletingPathExtension().lastPathComponent
        // The author: a creator whose role is aut (EPUB 2 attribute or EPUB 3 refinement), else the first.
        let creators = opf.all("dc:creator")
        let roles = Dictionary(opf.all("meta").filter { $0.attributes["property"] == "role" }
            .compactMap { meta in meta.attributes["refines"].map { (String($0.dropFirst()), meta.text.trimmingCharacters(in: .whitespaces)) } }) { first, _ in first }
        let author = creators.first { creator in
            let role = creator.attributes["opf:role"] ?? creator.attributes["id"].flatMap { roles[$0] }
            return role == nil || role == "aut"
        } ?? creators.first
        self.author = author?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        language = String((opf.first("dc:language")?.text.trimmingCharacters(in: .whitespaces) ?? "en").prefix(2)).lowercased()
        var hrefs: [String: String] = [:]
        for item in opf.all("item") { if let id = item.attributes["id"], let href = item.attributes["href"] { hrefs[id] = href } }
        var works: [Work] = []
        var whole: [Block] = []
        var warnings: [String] = []
        for itemref in opf.all("itemref") where itemref.attributes["linear"] != "no" {
            guard let id = itemref.attributes["idref"], let href = hrefs[id] else { continue }
            let path = Self.resolve(href, against: base)
            do {
                let document = XHTMLReader(Self.numericEntities(try read(path)))
                guard document.parsed else { throw BookProblem("not well-formed XHTML") }
                if !whole.isEmpty, !document.blocks.isEmpty { whole.append(.page) }
                whole += document.blocks
                works += document.works
            } catch {
                warnings.append("\(url.lastPathComponent), \(path): \(error) (chapter skipped)")
            }
        }
        let splits = split ?? (works.count > 1)
        self.works = splits && !works.isEmpty ? works : [Work(title: title, blocks: whole)]
        self.warnings = warnings
    }

    /// `../images/a.png` from `epub/text/` is `epub/images/a.png`.
    static func resolve(_ href: String, against base: String) -> String {
        let clean = (href.split(separator: "#").first.map(String.init) ?? href).removingPercentEncoding ?? href
        var parts = base.isEmpty ? [] : base.split(separator: "/").map(String.init)
        for part in clean.split(separator: "/") {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }

    /// FoundationXML drops named entities it does not know (`&nbsp;` vanishes and the words
    /// around it run together): every HTML5 name becomes a numeric reference first.
    static func numericEntities(_ data: Data) -> Data {
        // A document that is not UTF-8 is read again as windows-1252 (and said to be UTF-8 after).
        guard var text = String(data: data, encoding: .utf8)
            ?? String(data: data, encoding: .windowsCP1252).map({ $0.replacingOccurrences(
                of: #"^(<\?xml[^>]*encoding=)["'][^"']*["']"#, with: "$1\"utf-8\"", options: .regularExpression) })
        else { return data }
        guard text.contains("&") else { return Data(text.utf8) }
        let pattern = try! NSRegularExpression(pattern: "&([A-Za-z][A-Za-z0-9]*);")
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed()
        for match in matches {
            guard let nameRange = Range(match.range(at: 1), in: text), let whole = Range(match.range, in: text) else { continue }
            let name = String(text[nameRange])
            if ["amp", "lt", "gt", "quot", "apos"].contains(name) { continue }
            guard let value = HTMLEntities.table[name] else { continue }
            text.replaceSubrange(whole, with: value.unicodeScalars.map { "&#x\(String($0.value, radix: 16));" }.joined())
        }
        return Data(text.utf8)
    }

    /// Each work as a story of ours; a collection's works say which book they are from.
    public func stories(bookID: String) -> [BookStory] {
        let ids = BookStory.uniqueIDs(works.map { works.count == 1 ? bookID : bookID + "-" + BookStory.slug($0.title) })
        return zip(ids, works).map { id, work in
            BookStory(id: id, title: work.title, author: author, language: language, book: works.count > 1 ? title : nil, blocks: work.blocks)
        }
    }
}

/// Why a book cannot be imported, naming it.
public struct BookProblem: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A whole small XML document as elements (container.xml, the OPF).
struct XMLTree {
    struct Element { var name: String; var attributes: [String: String]; var text: String }
    private(set) var elements: [Element] = []

    init(_ data: Data) {
        let delegate = Collector()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        _ = parser.parse()
        elements = delegate.elements
    }

    func first(_ name: String) -> Element? { elements.first { $0.name == name } }
    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            open.append(elements.count)
            elements.append(Element(name: name, attributes: attributes, text: ""))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let index = open.last { elements[index].text += string }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }
    }
}

/// One XHTML document of the spine as blocks, and as works when it holds several stories.
struct XHTMLReader {
    var blocks: [EPUBBook.Block] = []
    var works: [EPUBBook.Work] = []
    var parsed = false

    /// Never read: front and back matter, notes and their references, page markers, the table of contents.
    static let skippedTypes = ["titlepage", "halftitlepage", "imprint", "colophon", "copyright-page", "loi", "toc", "endnotes", "endnote",
                               "footnote", "footnotes", "noteref", "rearnote", "rearnotes", "pagebreak", "landmarks", "uncopyright"]
    static let skippedElements: Set<String> = ["aside", "script", "style", "rt", "rp", "nav", "head", "title"]
    static let blockElements: Set<String> = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "figcaption", "dt", "dd", "blockquote", "pre", "td", "th", "hgroup"]
    static let storyTypes = ["short-story", "fiction", "fable", "z3998:fiction", "z3998:poem", "z3998:story", "article"]

    init(_ data: Data) {
        let delegate = Walker()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parsed = parser.parse()
        delegate.flush()
        delegate.closeWork()
        blocks = delegate.blocks
        works = delegate.works
    }

    final class Walker: NSObject, XMLParserDelegate {
        var blocks: [EPUBBook.Block] = []
        var works: [EPUBBook.Work] = []
        var current: EPUBBook.Work?
        var workDepth: Int?
        var skipDepth: Int?
        var depth = 0
        var text = ""
        var headingLevel = false
        var hgroupDepth: Int?

        func emit(_ block: EPUBBook.Block) {
            blocks.append(block)
            if current != nil {
                if case .heading(let heading) = block, current!.title.isEmpty { current!.title = heading; return }
                current!.blocks.append(block)
            }
        }

        func flush() {
            let clean = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            text = ""
            guard !clean.isEmpty else { headingLevel = false; return }
            emit(headingLevel ? .heading(clean) : .paragraph(clean))
            headingLevel = false
        }

        func closeWork() {
            if let work = current, !work.blocks.isEmpty { works.append(work) }
            current = nil
            workDepth = nil
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            guard skipDepth == nil else { return }
            let element = name.lowercased()
            let types = (attributes["epub:type"] ?? "").split(separator: " ").map(String.init)
            if XHTMLReader.skippedElements.contains(element) || types.contains(where: { XHTMLReader.skippedTypes.contains($0) || $0.hasSuffix(":noteref") }) {
                skipDepth = depth
                return
            }
            if (element == "article" || element == "section"), types.contains(where: { type in XHTMLReader.storyTypes.contains { type.hasSuffix($0) } }) {
                flush()
                closeWork()
                current = EPUBBook.Work(title: "", blocks: [])
                workDepth = depth
            }
            if element == "hgroup" { flush(); hgroupDepth = depth; headingLevel = true; return }
            if element == "img" {
                flush()
                if let alt = attributes["alt"]?.trimmingCharacters(in: .whitespacesAndNewlines), !alt.isEmpty { emit(.picture(alt)) }
                return
            }
            if element == "br" { text += " " ; return }
            if hgroupDepth != nil {
                // "I" and "The River Bank" of a heading group make "I: The River Bank".
                if XHTMLReader.blockElements.contains(element), !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    while text.last?.isWhitespace == true { text.removeLast() }
                    text += ": "
                }
                return
            }
            if XHTMLReader.blockElements.contains(element) || ["div", "section", "article", "figure", "body"].contains(element) {
                flush()
                if element.count == 2, element.hasPrefix("h"), element.last!.isNumber { headingLevel = true }
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipDepth == nil else { return }
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if let skip = skipDepth {
                if depth == skip { skipDepth = nil }
                return
            }
            let element = name.lowercased()
            if element == "hgroup" { headingLevel = true; flush(); hgroupDepth = nil; return }
            if hgroupDepth != nil { return }
            if XHTMLReader.blockElements.contains(element) || ["div", "section", "article", "figure"].contains(element) { flush() }
            if let workDepth, depth == workDepth { flush(); closeWork() }
        }
    }
}
