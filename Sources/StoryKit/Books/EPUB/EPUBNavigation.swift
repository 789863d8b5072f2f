import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The book's own names for its chapters and works: the EPUB 3 nav (`epub:type="toc"`), else the
/// EPUB 2 NCX. Keyed by document path, and by `path#fragment` for a work inside a document.
/// Also the labels of the print pages its page list (`epub:type="page-list"`) gives, by
/// `path#fragment` of the page break each links to.
struct EPUBNavigation {
    private(set) var titles: [String: String] = [:]
    private(set) var pageLabels: [String: String] = [:]

    init() {}

    init(archive: EPUBArchive, package: EPUBPackage) {
        let limit = archive.limits.documentElements
        if let nav = package.navPath, let data = try? archive.data(nav) {
            let base = (nav as NSString).deletingLastPathComponent
            add(Self.entries(data, ncx: false, elementLimit: limit), base: base)
            for (href, label) in Self.entries(data, ncx: false, list: "page-list", elementLimit: limit) where !label.isEmpty {
                guard let fragment = XHTMLDecoding.fragment(href) else { continue }
                let key = XHTMLDecoding.resolve(href, against: base) + "#" + fragment
                if pageLabels[key] == nil { pageLabels[key] = label }
            }
        }
        if titles.isEmpty, let ncx = package.ncxPath, let data = try? archive.data(ncx) {
            add(Self.entries(data, ncx: true, elementLimit: limit), base: (ncx as NSString).deletingLastPathComponent)
        }
    }

    /// The page list's label for the page break `fragment` of the document at `path`.
    func pageLabel(path: String, fragment: String) -> String? { pageLabels[path + "#" + fragment] }

    func title(path: String, fragment: String? = nil) -> String? {
        if let fragment { return titles[path + "#" + fragment] }
        return titles[path]
    }

    private mutating func add(_ entries: [(href: String, title: String)], base: String) {
        for (href, title) in entries where !title.isEmpty {
            let path = XHTMLDecoding.resolve(href, against: base)
            let key = XHTMLDecoding.fragment(href).map { path + "#" + $0 } ?? path
            if titles[key] == nil { titles[key] = title }
            // A document's first entry names it too.
            if titles[path] == nil { titles[path] = title }
        }
    }

    /// (href, title) of each link of the nav's table of contents (or of its `list`, such as its
    /// `page-list`), or each NCX navPoint (of its first `elementLimit` elements).
    static func entries(_ data: Data, ncx: Bool, list: String = "toc", elementLimit: Int) -> [(href: String, title: String)] {
        let collector = Collector(ncx: ncx, list: list, budget: ElementBudget(limit: elementLimit))
        let parser = XHTMLDecoding.parser(data)
        parser.delegate = collector
        _ = parser.parse()
        return collector.entries
    }

    private final class Collector: NSObject, XMLParserDelegate {
        let ncx: Bool
        let list: String
        var entries: [(href: String, title: String)] = []
        /// Depth inside the nav's `epub:type="toc"` (nav), 0 outside it.
        var tocDepth = 0
        var href: String?
        var text = ""
        var collecting = false
        /// NCX: the open navPoints' labels (a navPoint's content, after its label, completes it:
        /// entries come in reading order, a chapter before its sections).
        var points: [String] = []

        var budget: ElementBudget

        init(ncx: Bool, list: String, budget: ElementBudget) {
            self.ncx = ncx
            self.list = list
            self.budget = budget
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            guard budget.admit(parser) else { return }
            if ncx {
                switch name {
                case "navPoint": points.append("")
                case "text" where points.last?.isEmpty == true:
                    text = ""
                    collecting = true
                case "content": if let label = points.last, let src = attributes["src"] { entries.append((src, label)) }
                default: break
                }
                return
            }
            if tocDepth > 0 {
                tocDepth += 1
                if name == "a" {
                    href = attributes["href"]
                    text = ""
                    collecting = true
                }
            } else if name == "nav", (attributes["epub:type"] ?? "").split(separator: " ").contains(Substring(list)) {
                tocDepth = 1
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if collecting { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let clean = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            if ncx {
                if name == "text", collecting, !points.isEmpty {
                    points[points.count - 1] = clean(text)
                    collecting = false
                }
                if name == "navPoint" { _ = points.popLast() }
                return
            }
            guard tocDepth > 0 else { return }
            if name == "a", let href {
                entries.append((href, clean(text)))
                self.href = nil
                collecting = false
            }
            tocDepth -= 1
        }
    }
}
