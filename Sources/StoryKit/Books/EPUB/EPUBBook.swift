public import Foundation

/// An EPUB (2 or 3) read as stories: the spine's documents in order (see `XHTMLReader` for what
/// is read), chapter and work names from the book's navigation when the text has no heading, and
/// a collection (several works with their own titles) split into one story per work.
public struct EPUBBook: Sendable {
    public typealias Block = BookBlock

    public struct Work: Sendable, Hashable {
        public var title: String
        public var blocks: [BookBlock]
        /// The work's `id` in its document (what the navigation links to).
        public var anchor: String?
        /// The work's own language, when it says one.
        public var language: String?

        public init(title: String, blocks: [BookBlock], anchor: String? = nil, language: String? = nil) {
            self.title = title
            self.blocks = blocks
            self.anchor = anchor
            self.language = language
        }
    }

    /// What a book may unpack to: more is refused as a zip bomb, before anything is unpacked
    /// where the archive says its sizes, and while unpacking where it lies.
    public struct Limits: Sendable {
        public var entries: Int
        public var entryBytes: Int
        public var totalBytes: Int
        /// The documents read as text, all together (the longest novels are under 10 MB): more
        /// and the book is refused, whatever its pictures weigh.
        public var textBytes: Int
        /// Elements in one document (a long novel's chapter has some thousands): more and the
        /// chapter is skipped, named.
        public var documentElements: Int

        public init(
            entries: Int = 10_000, entryBytes: Int = 64 << 20, totalBytes: Int = 512 << 20, textBytes: Int = 128 << 20,
            documentElements: Int = 1_000_000
        ) {
            self.entries = entries
            self.entryBytes = entryBytes
            self.totalBytes = totalBytes
            self.textBytes = textBytes
            self.documentElements = documentElements
        }
    }

    public var title: String
    public var author: String?
    public var language: String
    public var works: [Work]
    /// A fixed-layout picture book: one page per spine document.
    public var fixedLayout: Bool
    /// Chapters that could not be read, named (the rest of the book is still imported), and what
    /// the book has that is not used (Media Overlays): to be shown with `localized`.
    public var problems: [BookProblem] = []
    /// The same in English.
    public var warnings: [String] { problems.map(\.description) }
    /// The book's recorded narration (its Media Overlays), clip by clip in reading order, placed
    /// in the whole book's blocks; empty when it has none or is split into works.
    public var clips: [BookClip] = []
    /// The print pages of a book read as one story (its page breaks, labelled by its page list).
    public var printPages: [BookPage] = []
    private let url: URL
    private let limits: Limits

    /// `split`: nil guesses (a book of several works is split, a novel or a fixed-layout picture
    /// book is not), true or false forces it. `progress` is told each document read (done, total).
    public init(url: URL, split: Bool? = nil, limits: Limits = Limits(), progress: ((Int, Int) -> Void)? = nil) throws(BookProblem) {
        let archive = try EPUBArchive(url: url, limits: limits)
        let package = try EPUBPackage(archive: archive)
        let navigation = EPUBNavigation(archive: archive, package: package)
        let name = url.lastPathComponent
        self.url = url
        self.limits = limits
        title = package.title ?? url.deletingPathExtension().lastPathComponent
        author = package.author
        fixedLayout = package.fixedLayout
        var languages: [String] = []
        var works: [Work] = []
        var whole: [BookBlock] = []
        var warnings: [BookProblem] = []
        var clips: [BookClip] = []
        var pages: [BookPage] = []
        guard !package.spine.isEmpty else { throw BookProblem(N_("{book}: the package lists no document to read (an empty spine)"), ["book": name]) }
        for (path, count) in package.repeatedInSpine {
            warnings.append(
                BookProblem(N_("{book}, {path}: listed {count} times in the spine, read once"), ["book": name, "path": path, "count": String(count)]))
        }
        func skip(_ path: String, _ problem: BookProblem) {
            warnings.append(BookProblem(N_("{book}, {path}: {problem} (chapter skipped)"), ["book": name, "path": path], parts: ["problem": problem.text]))
        }
        var textBytes = 0
        for (number, path) in package.spine.enumerated() {
            progress?(number + 1, package.spine.count)
            let data: Data
            do throws(BookProblem) { data = try archive.data(path) } catch {
                skip(path, error)
                continue
            }
            textBytes += data.count
            guard textBytes <= limits.textBytes else { throw BookProblem.tooMuchText(book: name, limit: limits.textBytes) }
            do throws(BookProblem) {
                let overlay = Self.overlay(of: path, package: package, archive: archive)
                let document = XHTMLReader(data, elementLimit: limits.documentElements, anchorIDs: Set(overlay.map(\.fragment)))
                if document.tooManyElements {
                    throw BookProblem(N_("more than {count} elements, more than a book's chapter ever holds"), ["count": String(limits.documentElements)])
                }
                guard document.wellFormed else {
                    throw BookProblem(N_("not well-formed XHTML (line {line})"), ["line": String(document.errorLine ?? 0)])
                }
                var blocks = document.blocks
                var shift = 0
                // A chapter without a heading of its own takes its name from the navigation.
                if !package.fixedLayout, !blocks.isEmpty, !blocks.contains(where: { if case .heading = $0 { true } else { false } }),
                    let name = navigation.title(path: path)
                {
                    blocks.insert(.heading(name), at: 0)
                    shift = 1
                }
                if !whole.isEmpty, !blocks.isEmpty { whole.append(.page) }
                for par in overlay {
                    guard let anchor = document.anchors[par.fragment] else { continue }
                    clips.append(BookClip(block: whole.count + shift + anchor.block, text: anchor.range, audio: par.audio, begin: par.begin, end: par.end))
                }
                // The page list names the page breaks; a break it does not name keeps its own label.
                pages += document.pageMarks.map { mark in
                    let label = mark.id.flatMap { navigation.pageLabel(path: path, fragment: $0) } ?? mark.label
                    return BookPage(label: label, block: whole.count + shift + mark.block, offset: mark.offset)
                }
                whole += blocks
                if let language = document.language, !blocks.isEmpty { languages.append(language) }
                works += document.works.map { work in
                    var work = work
                    if work.title.isEmpty { work.title = work.anchor.flatMap { navigation.title(path: path, fragment: $0) } ?? "" }
                    work.language = work.language ?? document.language
                    return work
                }
            } catch {
                skip(path, error)
            }
        }
        // What the documents themselves say (their xml:lang, the one most of them say) overrides
        // dc:language, which a publisher's template may leave at its default; else dc:language.
        language = Self.mostCommon(languages) ?? package.language ?? "en"
        let splits = split ?? (works.count > 1 && !package.fixedLayout)
        let bookTitle = title
        self.works =
            splits && !works.isEmpty
            ? works.enumerated().map { index, work in
                var work = work
                if work.title.isEmpty { work.title = "\(bookTitle) \(index + 1)" }
                return work
            } : [Work(title: bookTitle, blocks: whole)]
        if package.mediaOverlays && (clips.isEmpty || self.works.count > 1) {
            // Said first: it is about the whole book.
            warnings.insert(
                BookProblem(
                    N_("{book} has Media Overlays (a recorded narration) that cannot be played: its text is read by eSpeak NG"),
                    ["book": name]), at: 0)
        }
        self.clips = self.works.count == 1 ? clips : []
        // A collection's works are stories of their own: the printed book's pages are not theirs.
        printPages = self.works.count == 1 ? pages : []
        self.problems = warnings
    }

    /// The `par`s of `path`'s Media Overlay that point into it; none when it cannot be read (a
    /// book whose overlays all fail is told so once: its text is read by eSpeak NG).
    private static func overlay(of path: String, package: EPUBPackage, archive: EPUBArchive) -> [MediaOverlay.Par] {
        guard let smil = package.overlays[path], let data = try? archive.data(smil) else { return [] }
        let tree = XMLTree(data, elementLimit: archive.limits.documentElements)
        guard tree.parsed, !tree.tooManyElements else { return [] }
        return MediaOverlay(tree: tree, base: (smil as NSString).deletingLastPathComponent).pars.filter { $0.document == path }
    }

    /// The book's audio files (a `BookClip`'s `audio`), read within the book's limits from one
    /// opening of its archive: opening it for each file (reading its whole directory each time)
    /// made an import quadratic in them (883 files took 9.6 s).
    public func audioFiles() -> AudioFiles { AudioFiles(url: url, limits: limits) }

    /// See `audioFiles()`.
    public final class AudioFiles {
        private let url: URL
        private let limits: Limits
        private var archive: EPUBArchive?

        init(url: URL, limits: Limits) {
            self.url = url
            self.limits = limits
        }

        /// The bytes of the audio file at `path` in the book.
        public func data(_ path: String) throws(BookProblem) -> Data {
            if let archive { return try archive.data(path) }
            let opened = try EPUBArchive(url: url, limits: limits)
            archive = opened
            return try opened.data(path)
        }
    }

    static func mostCommon(_ values: [String]) -> String? {
        let counts: [String: Int] = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.first?.key
    }

    /// Each work as a story of ours; a collection's works say which book they are from.
    public func stories(bookID: String) -> [BookStory] {
        let ids = BookStory.uniqueIDs(works.map { works.count == 1 ? bookID : bookID + "-" + BookStory.slug($0.title) })
        return BookStory.numbered(
            zip(ids, works).map { id, work in
                var story = BookStory(
                    id: id, title: work.title, author: author, language: works.count > 1 ? work.language ?? language : language,
                    book: works.count > 1 ? title : nil, blocks: work.blocks)
                if works.count == 1 {
                    story.clips = clips
                    story.printPages = printPages
                }
                return story
            })
    }
}
