import Foundation

/// The package document (OPF) an EPUB's container.xml names: metadata, manifest and spine.
struct EPUBPackage {
    struct Item {
        var path: String
        var mediaType: String
        var properties: [String]
    }

    var title: String?
    var author: String?
    /// The two-letter code of `dc:language`.
    var language: String?
    /// Spine documents in reading order, `linear="no"` ones (notes, pop-ups) left out, each once.
    var spine: [String] = []
    /// Documents the spine lists more than once (an error by the EPUB standard, and a way to make
    /// a small file unpack one large chapter many times): how often, in spine order.
    var repeatedInSpine: [(path: String, count: Int)] = []
    var navPath: String?
    var ncxPath: String?
    /// `rendition:layout pre-paginated`: a picture book whose every document is one page.
    var fixedLayout = false
    /// EPUB 3 Media Overlays (recorded narration synchronised with the text).
    var mediaOverlays = false
    /// Each content document's Media Overlay (the SMIL document's path), by the document's path.
    var overlays: [String: String] = [:]

    /// The package of `archive`, found through `META-INF/container.xml`.
    init(archive: EPUBArchive) throws(BookProblem) {
        guard archive.contains("META-INF/container.xml") else {
            throw BookProblem(N_("{book} is not an EPUB: it has no META-INF/container.xml"), ["book": archive.name])
        }
        let container = XMLTree(try archive.data("META-INF/container.xml"), elementLimit: archive.limits.documentElements)
        guard let opfPath = container.first("rootfile")?.attributes["full-path"], !opfPath.isEmpty else {
            throw BookProblem(N_("{book}: META-INF/container.xml names no package file"), ["book": archive.name])
        }
        guard archive.contains(opfPath) else { throw BookProblem(N_("{book}: the package file {path} is missing"), ["book": archive.name, "path": opfPath]) }
        let opf = XMLTree(try archive.data(opfPath), elementLimit: archive.limits.documentElements)
        if opf.tooManyElements {
            throw BookProblem(
                N_("{book}: {path} has more than {count} elements, more than a package file ever holds"),
                ["book": archive.name, "path": opfPath, "count": String(archive.limits.documentElements)])
        }
        guard opf.parsed || !opf.all("itemref").isEmpty else {
            throw BookProblem(N_("{book}: {path} is not well-formed XML"), ["book": archive.name, "path": opfPath])
        }
        self.init(opf: opf, base: (opfPath as NSString).deletingLastPathComponent)
    }

    init(opf: XMLTree, base: String) {
        func value(_ element: XMLTree.Element?) -> String? {
            let text = element?.text.split(whereSeparator: \.isWhitespace).joined(separator: " ") ?? ""
            return text.isEmpty ? nil : text
        }
        title = value(opf.first("dc:title"))
        language = value(opf.first("dc:language")).flatMap(XHTMLDecoding.languageCode)
        // The author: a creator whose role is aut (the EPUB 2 attribute or an EPUB 3 refinement),
        // never the illustrator; else the first creator without a role.
        let metas = opf.all("meta")
        let roles = Dictionary(
            metas.filter { $0.attributes["property"] == "role" }.compactMap { meta in
                meta.attributes["refines"].map { (String($0.drop { $0 == "#" }), meta.text.trimmingCharacters(in: .whitespaces)) }
            }
        ) { first, _ in first }
        let creators = opf.all("dc:creator").map { creator in
            (creator, creator.attributes["opf:role"] ?? creator.attributes["role"] ?? creator.attributes["id"].flatMap { roles[$0] })
        }
        author = value((creators.first { $0.1 == "aut" } ?? creators.first { $0.1 == nil })?.0)
        fixedLayout = metas.contains { meta in
            (meta.attributes["property"] == "rendition:layout" && meta.text.trimmingCharacters(in: .whitespaces) == "pre-paginated")
                || (meta.attributes["name"] == "fixed-layout" && meta.attributes["content"] == "true")
        }
        var items: [String: Item] = [:]
        for element in opf.all("item") {
            guard let id = element.attributes["id"], let href = element.attributes["href"] else { continue }
            let item = Item(
                path: XHTMLDecoding.resolve(href, against: base), mediaType: element.attributes["media-type"] ?? "",
                properties: (element.attributes["properties"] ?? "").split(separator: " ").map(String.init))
            items[id] = item
            if item.properties.contains("nav") { navPath = item.path }
            if item.mediaType == "application/x-dtbncx+xml", ncxPath == nil { ncxPath = item.path }
            if element.attributes["media-overlay"] != nil || item.mediaType == "application/smil+xml" { mediaOverlays = true }
        }
        for element in opf.all("item") {
            guard let id = element.attributes["id"], let overlay = element.attributes["media-overlay"], let document = items[id]?.path,
                let smil = items[overlay]?.path
            else { continue }
            overlays[document] = smil
        }
        if let toc = opf.first("spine")?.attributes["toc"], let item = items[toc] { ncxPath = item.path }
        let listed = opf.all("itemref").filter { $0.attributes["linear"] != "no" }.compactMap { $0.attributes["idref"].flatMap { items[$0]?.path } }
        let counts = Dictionary(listed.map { ($0, 1) }, uniquingKeysWith: +)
        var seen: Set<String> = []
        spine = listed.filter { seen.insert($0).inserted }
        repeatedInSpine = spine.compactMap { path in counts[path].flatMap { $0 > 1 ? (path, $0) : nil } }
    }
}
