import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One XHTML document of the spine as blocks, and as works when it holds several stories
/// (Standard Ebooks' `<article epub:type="se:short-story">`, `z3998:fiction`, …).
///
/// Never read: front and back matter by `epub:type`, notes and note references (also a link or
/// superscript that is only a number, as EPUB 2 books mark them), asides, page-break markers,
/// ruby annotations. Kept: the spaces between inline elements, a verse's lines (`<br/>`), a
/// picture's alt text as its description (`alt=""` is decorative), a figure's caption.
struct XHTMLReader {
    var blocks: [BookBlock] = []
    var works: [EPUBBook.Work] = []
    /// The document's `xml:lang` (on `html` or `body`), as a two-letter code.
    var language: String?
    /// Whether the document is well-formed XML read to its end. One that is not (a tag left open,
    /// which FoundationXML may recover from) is not read at all: the EPUB reading-system rule is
    /// that it is an error, and half a chapter read as if whole would mislead.
    var wellFormed = false
    /// Where the parser found the document not well-formed (its line), when it did.
    var errorLine: Int?
    /// The document has more elements than `elementLimit`: it was not read past that.
    var tooManyElements = false
    /// Where the elements whose ids were asked for (a Media Overlay's fragments) stand: the block
    /// (an index in `blocks`) and the scalar offsets in its text. An element across blocks, or
    /// in text that is not read, is not here.
    var anchors: [String: (block: Int, range: Range<Int>)] = [:]
    /// The print page numbers (never read), in order, each where its page starts: the block (an
    /// index in `blocks`; `blocks.count` when no text follows it) and the scalar offset in its
    /// text of the first character after the mark.
    var pageMarks: [PageMark] = []

    /// A print page number of the document: DAISY 2.02's `span class="page-normal"` (and
    /// `page-front`, `page-special`), DTBook's `pagenum`, EPUB 3's `epub:type="pagebreak"` or
    /// `role="doc-pagebreak"`; labelled by its `title` or `aria-label`, else its text.
    struct PageMark: Sendable, Hashable {
        var id: String?
        var label: String
        var block: Int
        var offset: Int
    }

    static let skippedTypes: Set<String> = [
        "titlepage", "halftitlepage", "imprint", "colophon", "copyright-page", "loi", "lot", "loa", "toc", "landmarks",
        "page-list", "index", "endnotes", "endnote", "footnote", "footnotes", "rearnote", "rearnotes", "noteref",
        "pagebreak", "uncopyright", "annotation",
    ]
    /// DAISY 3's DTBook is read by the same rules: its page numbers, notes and note references
    /// are elements of their own.
    static let skippedElements: Set<String> = [
        "aside", "script", "style", "rt", "rp", "nav", "head", "title", "template", "pagenum", "noteref", "note", "annotation",
    ]
    static let blockElements: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "figcaption", "dt", "dd", "blockquote",
        "pre", "td", "th", "hgroup", "div", "section", "article", "figure", "body", "header", "footer",
        "table", "tr", "ul", "ol", "dl", "caption",
    ]
    static let headingElements: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]
    static let workTypes = ["short-story", "fiction", "fable", "z3998:fiction", "z3998:poem", "z3998:story", "article"]
    /// What a verse line break becomes until the paragraph is cleaned (never in a book's text).
    static let lineBreak: Character = "\u{2028}"

    /// `elementLimit`: more elements than this and the document is given up (see ``EPUBBook/Limits``).
    init(_ data: Data, elementLimit: Int = EPUBBook.Limits().documentElements, anchorIDs: Set<String> = []) {
        let walker = Walker(budget: ElementBudget(limit: elementLimit))
        walker.anchorIDs = anchorIDs
        let parser = XHTMLDecoding.parser(data)
        parser.delegate = walker
        wellFormed = parser.parse() && parser.parserError == nil && !walker.budget.exceeded
        tooManyElements = walker.budget.exceeded
        if !wellFormed, !tooManyElements { errorLine = parser.lineNumber }
        walker.flush()
        walker.closeWork()
        blocks = walker.blocks
        works = walker.works
        language = walker.language
        anchors = walker.anchors
        pageMarks = walker.pageMarks + walker.waitingPages.map { PageMark(id: $0.id, label: $0.label, block: walker.blocks.count, offset: 0) }
    }

    /// Whether an element is a print page number (see `PageMark`).
    static func isPageMark(_ element: String, _ attributes: [String: String]) -> Bool {
        if element == "pagenum" || types(attributes).contains("pagebreak") || attributes["role"] == "doc-pagebreak" { return true }
        return (attributes["class"] ?? "").lowercased().split(separator: " ").contains { DAISYBook.pageClasses.contains(String($0)) }
    }

    /// Where the UTF-8 offsets `offsets` of a paragraph's raw text land in its cleaned text (the
    /// lines of `lines(_:)` joined by one separator): a start goes to the next character kept, an
    /// end to just after the last one kept before it.
    static func cleanedOffsets(_ text: String, starts: [Int], ends: [Int]) -> (starts: [Int], ends: [Int]) {
        // (raw UTF-8 offset, cleaned scalar offset) of every character kept, in order.
        var kept: [(raw: Int, clean: Int)] = []
        var base = 0
        var lineLength = 0
        var space = false
        var raw = 0
        for scalar in text.unicodeScalars {
            defer { raw += UTF8.width(scalar) }
            if scalar == "\u{2028}" {  // lineBreak
                if lineLength > 0 { base += lineLength + 1 }
                lineLength = 0
                space = false
            } else if scalar.properties.isWhitespace {
                space = lineLength > 0
            } else {
                if space { lineLength += 1 }
                space = false
                kept.append((raw, base + lineLength))
                lineLength += 1
            }
        }
        func firstKept(atOrAfter offset: Int) -> Int {
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if kept[middle].raw < offset { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let total = kept.last.map { $0.clean + 1 } ?? 0
        return (
            starts.map {
                let index = firstKept(atOrAfter: $0)
                return index < kept.count ? kept[index].clean : total
            },
            ends.map {
                let index = firstKept(atOrAfter: $0)
                return index > 0 ? kept[index - 1].clean + 1 : 0
            }
        )
    }

    /// A paragraph's verse lines, each with its white space runs made one space and trimmed; empty
    /// lines left out. One pass over the text: splitting a 20 MB paragraph into its words first
    /// took some 600 MB.
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        var space = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{2028}" {  // lineBreak
                if !line.isEmpty { lines.append(String(line)) }
                line = String.UnicodeScalarView()
                space = false
            } else if scalar.properties.isWhitespace {
                space = !line.isEmpty
            } else {
                if space { line.append(" ") }
                space = false
                line.append(scalar)
            }
        }
        if !line.isEmpty { lines.append(String(line)) }
        return lines
    }

    /// `1`, `[2]`, `(3)`, `*`, `†`: one to three digits or note signs, perhaps in brackets. By
    /// hand: a regular expression compiled for each of a book's 300,000 marks cost seconds.
    static func isNoteMark(_ mark: String) -> Bool {
        var characters = Array(mark)
        if let first = characters.first, first == "[" || first == "(" { characters.removeFirst() }
        if let last = characters.last, last == "]" || last == ")" { characters.removeLast() }
        guard (1...3).contains(characters.count) else { return false }
        return characters.allSatisfy { $0.isASCII && $0.isNumber } || characters.allSatisfy { "*†‡§¶".contains($0) }
    }

    static func types(_ attributes: [String: String]) -> [String] {
        (attributes["epub:type"] ?? "").split(separator: " ").map(String.init)
    }

    /// Whether an element and all inside it is never read.
    static func isSkipped(_ element: String, _ attributes: [String: String]) -> Bool {
        if skippedElements.contains(element) { return true }
        if types(attributes).contains(where: { skippedTypes.contains($0) || $0.hasSuffix(":noteref") || $0.hasSuffix(":footnote") }) { return true }
        if attributes["role"].map({ ["doc-noteref", "doc-footnote", "doc-endnotes", "doc-pagebreak", "doc-toc"].contains($0) }) == true { return true }
        let classes = (attributes["class"] ?? "").lowercased().split(separator: " ")
        // DAISY 2.02 marks its print page numbers `page-normal`, `page-front` and `page-special`.
        return classes.contains { $0.contains("footnote") || $0 == "pagenum" || $0 == "pagebreak" || DAISYBook.pageClasses.contains(String($0)) }
    }

    private final class Walker: NSObject, XMLParserDelegate {
        var budget: ElementBudget
        var blocks: [BookBlock] = []
        var works: [EPUBBook.Work] = []
        var language: String?
        var current: EPUBBook.Work?
        var workDepth: Int?
        var skipDepth: Int?
        var depth = 0
        var text = ""
        /// Whether `text` has more than white space (kept as text grows, so asking costs nothing).
        var hasWords = false
        var isHeading = false
        var hgroupDepth: Int?
        /// How many times `text` was emptied: a note candidate opened in an earlier paragraph has
        /// its text from the start of this one.
        var paragraph = 0
        /// Open links and superscripts that may be only a note number: (depth, the paragraph and
        /// where in it their text began, whether the text had words then).
        var noteCandidates: [(depth: Int, paragraph: Int, start: Int, hadWords: Bool)] = []
        /// The ids to place (see `XHTMLReader.anchors`), those open now (depth, paragraph, UTF-8
        /// start), those closed in this paragraph (UTF-8 range), and those placed.
        var anchorIDs: Set<String> = []
        var openAnchors: [(id: String, depth: Int, paragraph: Int, start: Int)] = []
        var closedAnchors: [(id: String, start: Int, end: Int)] = []
        var anchors: [String: (block: Int, range: Range<Int>)] = [:]
        /// The page mark open now (its depth, id, label attribute and text), those of this
        /// paragraph (UTF-8 start), those waiting for the next block, and those placed.
        var openPage: (depth: Int, id: String?, label: String?, text: String)?
        var pendingPages: [(id: String?, label: String, start: Int)] = []
        var waitingPages: [(id: String?, label: String)] = []
        var pageMarks: [PageMark] = []

        init(budget: ElementBudget) {
            self.budget = budget
        }

        func emit(_ block: BookBlock, pages inside: [(id: String?, label: String, offset: Int)] = []) {
            // A page that began before this block begins with it.
            pageMarks += waitingPages.map { PageMark(id: $0.id, label: $0.label, block: blocks.count, offset: 0) }
            waitingPages.removeAll()
            pageMarks += inside.map { PageMark(id: $0.id, label: $0.label, block: blocks.count, offset: $0.offset) }
            blocks.append(block)
            guard current != nil else { return }
            if case .heading(let heading) = block, current!.title.isEmpty {
                current!.title = heading
                return
            }
            current!.blocks.append(block)
        }

        func flush() {
            defer {
                text = ""
                hasWords = false
                isHeading = false
                paragraph += 1
                closedAnchors.removeAll()
                pendingPages.removeAll()
            }
            let lines = XHTMLReader.lines(text)
            guard !lines.isEmpty else {
                waitingPages += pendingPages.map { ($0.id, $0.label) }
                return
            }
            // A page mark in the paragraph starts at the next character kept; one after its last
            // word starts with the next block.
            var inside: [(id: String?, label: String, offset: Int)] = []
            var after: [(id: String?, label: String)] = []
            if !pendingPages.isEmpty {
                let total = lines.reduce(lines.count - 1) { $0 + $1.unicodeScalars.count }
                let starts = XHTMLReader.cleanedOffsets(text, starts: pendingPages.map(\.start), ends: []).starts
                for (page, start) in zip(pendingPages, starts) {
                    if start < total { inside.append((page.id, page.label, start)) } else { after.append((page.id, page.label)) }
                }
            }
            defer { waitingPages += after }
            if !closedAnchors.isEmpty {
                let cleaned = XHTMLReader.cleanedOffsets(text, starts: closedAnchors.map(\.start), ends: closedAnchors.map(\.end))
                // An id a book repeats (DAISY's test book repeats a verse's) is its first element, as
                // in a browser: a later one would send every clip after it.
                for (index, anchor) in closedAnchors.enumerated() where cleaned.ends[index] > cleaned.starts[index] && anchors[anchor.id] == nil {
                    anchors[anchor.id] = (blocks.count, cleaned.starts[index]..<cleaned.ends[index])
                }
            }
            emit(isHeading ? .heading(lines.joined(separator: " ")) : .paragraph(lines.joined(separator: "\n")), pages: inside)
        }

        func closeWork() {
            if let work = current, !work.blocks.isEmpty { works.append(work) }
            current = nil
            workDepth = nil
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            guard budget.admit(parser) else { return }
            guard skipDepth == nil else { return }
            let element = name.lowercased()
            if element == "html" || element == "body" || element == "dtbook", let lang = attributes["xml:lang"] ?? attributes["lang"] {
                language = XHTMLDecoding.languageCode(lang) ?? language
            }
            if XHTMLReader.isSkipped(element, attributes) {
                skipDepth = depth
                if XHTMLReader.isPageMark(element, attributes) {
                    openPage = (depth, attributes["id"], attributes["title"] ?? attributes["aria-label"], "")
                }
                return
            }
            let types = XHTMLReader.types(attributes)
            if element == "article" || element == "section", types.contains(where: { type in XHTMLReader.workTypes.contains { type.hasSuffix($0) } }) {
                flush()
                closeWork()
                current = EPUBBook.Work(
                    title: "", blocks: [], anchor: attributes["id"],
                    language: (attributes["xml:lang"] ?? attributes["lang"]).flatMap(XHTMLDecoding.languageCode))
                workDepth = depth
            }
            if (element == "a" && (attributes["href"] ?? "").contains("#")) || element == "sup" {
                noteCandidates.append((depth, paragraph, text.utf8.count, hasWords))
            }
            switch element {
            case "hgroup":
                flush()
                hgroupDepth = depth
                isHeading = true
            case "img":
                flush()
                if let alt = attributes["alt"]?.trimmingCharacters(in: .whitespacesAndNewlines), !alt.isEmpty { emit(.picture(alt)) }
            case "br":
                text.append(XHTMLReader.lineBreak)
            case _ where hgroupDepth != nil:
                // "I" and "The River Bank" of a heading group make "I: The River Bank".
                if XHTMLReader.blockElements.contains(element), hasWords {
                    while text.last?.isWhitespace == true { text.removeLast() }
                    text += ": "
                }
            case _ where XHTMLReader.blockElements.contains(element):
                flush()
                if XHTMLReader.headingElements.contains(element) { isHeading = true }
            default:
                break
            }
            if !anchorIDs.isEmpty, let id = attributes["id"], anchorIDs.contains(id) { openAnchors.append((id, depth, paragraph, text.utf8.count)) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipDepth == nil else {
                if openPage != nil, openPage!.text.utf8.count < 256 { openPage!.text += string }
                return
            }
            text += string
            if !hasWords { hasWords = string.contains { !$0.isWhitespace } }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if let skip = skipDepth {
                if depth == skip {
                    skipDepth = nil
                    if let page = openPage {
                        openPage = nil
                        let label = Sanitizer.sanitizeLine(page.label ?? page.text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                        if !label.isEmpty { pendingPages.append((page.id, String(label.prefix(40)), text.utf8.count)) }
                    }
                }
                return
            }
            let element = name.lowercased()
            if let candidate = noteCandidates.last, candidate.depth == depth {
                noteCandidates.removeLast()
                let sameParagraph = candidate.paragraph == paragraph
                if dropNoteNumber(from: sameParagraph ? candidate.start : 0) { hasWords = sameParagraph && candidate.hadWords }
            }
            if let anchor = openAnchors.last, anchor.depth == depth {
                openAnchors.removeLast()
                if anchor.paragraph == paragraph { closedAnchors.append((anchor.id, min(anchor.start, text.utf8.count), text.utf8.count)) }
            }
            if element == "hgroup" {
                isHeading = true
                flush()
                hgroupDepth = nil
                return
            }
            if hgroupDepth != nil { return }
            if XHTMLReader.blockElements.contains(element) { flush() }
            if let workDepth, depth == workDepth {
                flush()
                closeWork()
            }
        }

        /// A link or superscript whose whole text is a note mark (`1`, `[2]`, `*`, `†`) is a note
        /// reference: its text is taken back, in place (copying the paragraph for each of a
        /// paragraph's many notes made their stripping quadratic).
        @discardableResult
        func dropNoteNumber(from start: Int) -> Bool {
            let from = text.utf8.index(text.startIndex, offsetBy: start)
            // A mark is a few characters: a longer text is not one, and is not searched.
            guard text.utf8.distance(from: from, to: text.endIndex) <= 256 else { return false }
            let mark = text[from...].trimmingCharacters(in: .whitespacesAndNewlines)
            guard XHTMLReader.isNoteMark(mark) else { return false }
            text.removeSubrange(from...)
            return true
        }
    }
}
