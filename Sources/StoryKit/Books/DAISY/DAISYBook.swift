public import Foundation

/// A DAISY talking book read as one story. DAISY 2.02: the NCC (`ncc.html`) gives its title,
/// author, language and headings, its SMIL files (in the NCC's order) the recording, clip by clip.
/// DAISY 3: the package (OPF) gives the metadata and the SMIL files (its spine), the NCX the
/// headings (its `navMap`). Either way the content documents the SMIL points into (XHTML, DTBook)
/// give the text (a full-text book: each sentence plays its own clip, as a read-along EPUB's Media
/// Overlays do). A book whose SMIL points only into the NCC or at no text, or whose content
/// document is missing, is audio-only: the headings are the text ("Chapter 3"), each on a page of
/// its own, and each heading plays its section's recording.
public struct DAISYBook {
    public var title: String
    public var author: String?
    public var language: String
    public var blocks: [BookBlock]
    /// The recording, clip by clip in reading order, placed in `blocks`.
    public var clips: [BookClip]
    /// The print page numbers the content documents mark (`page-normal`, `pagenum`), in order;
    /// where they mark none (and in an audio-only book), the book's own page list: the NCC's
    /// `page-normal`, `page-front` and `page-special` spans (DAISY 2.02), the NCX's `pageList`
    /// (DAISY 3), each placed where the SMIL `par` it links to is (an audio-only book: at the
    /// heading whose section holds it).
    public var printPages: [BookPage] = []
    /// "DAISY 2.02" or "DAISY 3".
    public var kind: String
    /// Whether the book has no text of its own (its headings are read).
    public var audioOnly: Bool
    /// What was not used, named (to be shown with `localized`).
    public var problems: [BookProblem] = []
    private let files: DAISYFiles

    /// What a DAISY book may hold: an audiobook's files are larger than an EPUB's (an hour of
    /// speech is some 30 MB), so each file may be 256 MB and all 4 GB; the rest is an EPUB's.
    public static let limits = EPUBBook.Limits(entryBytes: 256 << 20, totalBytes: 4 << 30)

    /// The classes of DAISY 2.02's print page numbers (in the NCC and the content documents).
    static let pageClasses: Set<String> = ["page-normal", "page-front", "page-special"]

    /// A heading of the NCC or NCX: its text, and the SMIL file and fragment it links to.
    struct Heading {
        var text: String
        var smil: String
        var fragment: String
    }

    /// The book at `url`, a folder or a zip (see `DAISYFiles`).
    public init(url: URL, limits: EPUBBook.Limits = DAISYBook.limits) throws(BookProblem) {
        files = try DAISYFiles(url: url, limits: limits)
        let name = files.name
        let base = (files.package as NSString).deletingLastPathComponent
        let package = XMLTree(try files.data(files.package), elementLimit: limits.documentElements)
        guard package.parsed, !package.tooManyElements else {
            throw BookProblem(N_("{book}: {path} is not well-formed XML"), ["book": name, "path": files.package])
        }
        let headings: [Heading]
        /// The page list of the NCC or the NCX.
        let pageLinks: [Heading]
        /// The SMIL files in reading order.
        let timeline: [String]
        let metadata = Metadata(package)
        if (files.package as NSString).pathExtension.lowercased() == "opf" {
            kind = "DAISY 3"
            let opf = try Self.daisy3Package(package, book: name, base: base)
            guard let ncx = opf.ncx else { throw BookProblem(N_("{book}: {path} names no NCX (the book's headings)"), ["book": name, "path": files.package]) }
            let tree = XMLTree(try files.data(ncx), elementLimit: limits.documentElements)
            guard tree.parsed, !tree.tooManyElements else { throw BookProblem(N_("{book}: {path} is not well-formed XML"), ["book": name, "path": ncx]) }
            headings = try Self.navPoints(tree, book: name, path: ncx, base: (ncx as NSString).deletingLastPathComponent)
            pageLinks = try Self.navPoints(tree, book: name, path: ncx, base: (ncx as NSString).deletingLastPathComponent, target: "pageTarget")
            timeline = opf.spine
        } else {
            kind = "DAISY 2.02"
            headings = try Self.headings(package, book: name, base: base)
            pageLinks = try Self.nccPages(package, book: name, base: base)
            var seen = Set<String>()
            timeline = headings.map(\.smil).filter { seen.insert($0).inserted }
        }
        title = metadata.title ?? url.deletingPathExtension().lastPathComponent
        author = metadata.author
        // The SMIL files as one timeline.
        var pars: [(smil: String, par: MediaOverlay.Par)] = []
        for smil in timeline {
            let tree = XMLTree(try files.data(smil), elementLimit: limits.documentElements)
            guard tree.parsed, !tree.tooManyElements else { throw BookProblem(N_("{book}: {path} is not well-formed XML"), ["book": name, "path": smil]) }
            let overlay = MediaOverlay(tree: tree, base: (smil as NSString).deletingLastPathComponent, resolve: DAISYFiles.resolve, textless: true)
            if let outside = overlay.outside.first {
                throw BookProblem(N_("{book}: {path} names {file}, outside the book: refused"), ["book": name, "path": smil, "file": outside])
            }
            pars += overlay.pars.map { (smil, $0) }
        }
        var documents: [String] = []
        for (_, par) in pars where par.document != files.package && !par.document.isEmpty && !documents.contains(par.document) {
            documents.append(par.document)
        }
        var problems: [BookProblem] = []
        var text: (blocks: [BookBlock], clips: [BookClip], pages: [BookPage], places: [String: (block: Int, offset: Int)], language: String?)?
        do throws(BookProblem) {
            if !documents.isEmpty { text = try Self.fullText(documents, pars: pars.map(\.par), files: files) }
        } catch {
            // A missing content document leaves the headings and the whole recording.
            problems.append(
                BookProblem(N_("{book}: {problem}: its headings are read, each with its recording"), ["book": name], parts: ["problem": error.text]))
        }
        if let text {
            blocks = text.blocks
            clips = text.clips
            printPages = text.pages
            if printPages.isEmpty {
                printPages = Self.placed(pageLinks, pars: pars) { par in text.places[par.document + "#" + par.fragment] }
            }
            audioOnly = false
            language = text.language ?? metadata.language ?? "en"
        } else {
            guard !headings.isEmpty else { throw BookProblem(N_("{book}: {path} has no heading to read"), ["book": name, "path": files.package]) }
            let blockOfPar: [Int]
            (blocks, clips, blockOfPar) = Self.headingsOnly(headings, pars: pars)
            let parIndex = Dictionary(pars.enumerated().map { ($0.element.par, $0.offset) }, uniquingKeysWith: { first, _ in first })
            printPages = Self.placed(pageLinks, pars: pars) { par in parIndex[par].map { (blockOfPar[$0], 0) } }
            audioOnly = true
            language = metadata.language ?? "en"
        }
        self.problems = problems
    }

    /// The title, author and language a DAISY 2.02 NCC (`<meta name="dc:title" content>`) or a
    /// DAISY 3 package (`<dc:Title>`) says, in any case.
    struct Metadata {
        var title: String?
        var author: String?
        var language: String?

        init(_ tree: XMLTree) {
            func value(_ key: String) -> String? {
                let element = tree.elements.first { $0.name.lowercased() == key || ($0.name == "meta" && $0.attributes["name"]?.lowercased() == key) }
                let words = (element?.attributes["content"] ?? element?.text)?.split(whereSeparator: \.isWhitespace).joined(separator: " ") ?? ""
                return words.isEmpty ? nil : words
            }
            title = value("dc:title") ?? tree.first("title").map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            author = value("dc:creator")
            language = value("dc:language").flatMap(XHTMLDecoding.languageCode)
        }
    }

    /// A DAISY 3 package's SMIL files in spine order and its NCX, as paths in the book.
    static func daisy3Package(_ opf: XMLTree, book: String, base: String) throws(BookProblem) -> (spine: [String], ncx: String?) {
        var items: [String: (path: String, type: String)] = [:]
        for item in opf.all("item") {
            guard let id = item.attributes["id"], let href = item.attributes["href"] else { continue }
            guard let path = DAISYFiles.resolve(href, against: base) else {
                throw BookProblem(N_("{book}: {path} names {file}, outside the book: refused"), ["book": book, "path": "package", "file": href])
            }
            items[id] = (path, item.attributes["media-type"] ?? "")
        }
        var seen = Set<String>()
        let spine = opf.all("itemref").compactMap { $0.attributes["idref"].flatMap { items[$0]?.path } }.filter { seen.insert($0).inserted }
        return (spine, items.values.sorted { $0.path < $1.path }.first { $0.type == "application/x-dtbncx+xml" }?.path)
    }

    /// A DAISY 3 NCX's navigation points (its `navMap`'s headings), in order, each with the SMIL
    /// place it links to; its lists of notes and pages are not headings. `target` "pageTarget":
    /// its `pageList`'s pages instead.
    static func navPoints(_ ncx: XMLTree, book: String, path: String, base: String, target: String = "navPoint") throws(BookProblem) -> [Heading] {
        var headings: [Heading] = []
        var open: (text: String, src: String?)?
        func close() {
            defer { open = nil }
            guard let point = open, let src = point.src, let fragment = XHTMLDecoding.fragment(src), let smil = DAISYFiles.resolve(src, against: base)
            else { return }
            let text = point.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if !text.isEmpty { headings.append(Heading(text: text, smil: smil, fragment: fragment)) }
        }
        for element in ncx.elements {
            switch element.name {
            case target:
                close()
                open = ("", nil)
            case "navPoint", "navTarget", "pageTarget", "navList", "pageList", "navInfo", "docTitle", "docAuthor":
                close()
            case "text" where open?.text.isEmpty == true:
                open?.text = element.text
            case "content" where open != nil && open?.src == nil:
                guard let src = element.attributes["src"], DAISYFiles.resolve(src, against: base) != nil else {
                    throw BookProblem(
                        N_("{book}: {path} names {file}, outside the book: refused"), ["book": book, "path": path, "file": element.attributes["src"] ?? ""])
                }
                open?.src = src
            default:
                break
            }
        }
        close()
        return headings
    }

    /// The NCC's headings (h1–h6), in order, each with the SMIL place it links to.
    static func headings(_ ncc: XMLTree, book: String, base: String) throws(BookProblem) -> [Heading] {
        try links(ncc, book: book, base: base) { name, _ in ["h1", "h2", "h3", "h4", "h5", "h6"].contains(name.lowercased()) }
    }

    /// The NCC's print page numbers (`span` of class `page-normal`, `page-front` or `page-special`),
    /// in order, each with the SMIL place it links to.
    static func nccPages(_ ncc: XMLTree, book: String, base: String) throws(BookProblem) -> [Heading] {
        try links(ncc, book: book, base: base) { name, attributes in
            name.lowercased() == "span" && (attributes["class"] ?? "").split(separator: " ").contains { pageClasses.contains($0.lowercased()) }
        }
    }

    /// The NCC's elements that `opens` picks, in order, each with its text and the SMIL place its
    /// link goes to.
    static func links(_ ncc: XMLTree, book: String, base: String, opens: (String, [String: String]) -> Bool) throws(BookProblem) -> [Heading] {
        var headings: [Heading] = []
        var open: (depth: Int, text: String, href: String?)?
        func close() {
            defer { open = nil }
            guard let heading = open, let href = heading.href, let fragment = XHTMLDecoding.fragment(href) else { return }
            let text = heading.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !text.isEmpty, let smil = DAISYFiles.resolve(href, against: base) else { return }
            headings.append(Heading(text: text, smil: smil, fragment: fragment))
        }
        for element in ncc.elements {
            if let heading = open, element.depth <= heading.depth { close() }
            if open != nil {
                open?.text += " " + element.text
                if open?.href == nil, let href = element.attributes["href"] {
                    guard DAISYFiles.resolve(href, against: base) != nil else {
                        throw BookProblem(N_("{book}: {path} names {file}, outside the book: refused"), ["book": book, "path": "ncc.html", "file": href])
                    }
                    open?.href = href
                }
            } else if opens(element.name, element.attributes) {
                open = (element.depth, element.text, element.attributes["href"])
            }
        }
        close()
        return headings
    }

    /// The content documents' text, each on its own pages, and each par's clip placed in it.
    /// `places`: where each par's text starts, by "document#fragment".
    static func fullText(_ documents: [String], pars: [MediaOverlay.Par], files: DAISYFiles) throws(BookProblem) -> (
        blocks: [BookBlock], clips: [BookClip], pages: [BookPage], places: [String: (block: Int, offset: Int)], language: String?
    ) {
        var blocks: [BookBlock] = []
        var clips: [BookClip] = []
        var places: [String: (block: Int, offset: Int)] = [:]
        var pages: [BookPage] = []
        var languages: [String] = []
        var textBytes = 0
        for path in documents {
            let data = try files.data(path)
            textBytes += data.count
            guard textBytes <= files.limits.textBytes else { throw BookProblem.tooMuchText(book: files.name, limit: files.limits.textBytes) }
            let own = pars.filter { $0.document == path }
            let document = XHTMLReader(data, elementLimit: files.limits.documentElements, anchorIDs: Set(own.map(\.fragment)))
            guard document.wellFormed else {
                throw BookProblem(
                    document.tooManyElements
                        ? N_("{path} has more than {count} elements, more than a book's chapter ever holds")
                        : N_("{path} is not well-formed XHTML (line {line})"),
                    ["path": path, "line": String(document.errorLine ?? 0), "count": String(files.limits.documentElements)])
            }
            if !blocks.isEmpty, !document.blocks.isEmpty { blocks.append(.page) }
            for par in own {
                guard let anchor = document.anchors[par.fragment] else { continue }
                clips.append(BookClip(block: blocks.count + anchor.block, text: anchor.range, audio: par.audio, begin: par.begin, end: par.end))
                places[path + "#" + par.fragment] = (blocks.count + anchor.block, anchor.range.lowerBound)
            }
            pages += document.pageMarks.map { BookPage(label: $0.label, block: blocks.count + $0.block, offset: $0.offset) }
            blocks += document.blocks
            if let language = document.language { languages.append(language) }
        }
        return (blocks, clips, pages, places, EPUBBook.mostCommon(languages))
    }

    /// The headings as the text, each on its own page, each playing the pars from the one it links
    /// to up to the next heading's (the clips of one file in a row made one).
    /// `blockOfPar`: the heading block each par plays under.
    static func headingsOnly(_ headings: [Heading], pars: [(smil: String, par: MediaOverlay.Par)]) -> (
        blocks: [BookBlock], clips: [BookClip], blockOfPar: [Int]
    ) {
        var blocks: [BookBlock] = []
        var blockOf: [Int] = []
        for heading in headings {
            if !blocks.isEmpty { blocks.append(.page) }
            blockOf.append(blocks.count)
            blocks.append(.heading(heading.text))
        }
        var clips: [BookClip] = []
        var blockOfPar: [Int] = []
        var current = 0
        for (smil, par) in pars {
            if let index = headings.firstIndex(where: { $0.smil == smil && par.ids.contains($0.fragment) }) { current = index }
            blockOfPar.append(blockOf[current])
            let length = headings[current].text.unicodeScalars.count
            if let last = clips.last, last.block == blockOf[current], last.audio == par.audio, let end = last.end, par.begin >= end {
                clips[clips.count - 1].end = par.end
            } else {
                clips.append(BookClip(block: blockOf[current], text: 0..<length, audio: par.audio, begin: par.begin, end: par.end))
            }
        }
        return (blocks, clips, blockOfPar)
    }

    /// The page list's pages placed where the `par` each links to is (`place`; a page whose par
    /// or place is not found is left out).
    static func placed(
        _ links: [Heading], pars: [(smil: String, par: MediaOverlay.Par)], place: (MediaOverlay.Par) -> (block: Int, offset: Int)?
    ) -> [BookPage] {
        links.compactMap { link in
            guard let par = pars.first(where: { $0.smil == link.smil && $0.par.ids.contains(link.fragment) })?.par, let at = place(par) else {
                return nil
            }
            return BookPage(label: String(link.text.prefix(40)), block: at.block, offset: at.offset)
        }
    }

    /// The book as one story of ours, with its recording.
    public func stories(bookID: String) -> [BookStory] {
        var story = BookStory(id: bookID, title: title, author: author, language: language, book: nil, blocks: blocks)
        story.clips = clips
        story.printPages = printPages
        return [story]
    }

    /// The bytes of the audio file at `path` in the book (a `BookClip`'s `audio`).
    public func audio(_ path: String) throws(BookProblem) -> Data { try files.data(path) }

    /// Whether `folder` holds a DAISY book.
    public static func isBook(folder: String) -> Bool { DAISYFiles.isBook(folder: folder) }
}
