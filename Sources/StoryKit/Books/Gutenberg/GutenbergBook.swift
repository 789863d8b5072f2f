public import Foundation

/// A Project Gutenberg plain-text book turned into stories: the header and the licence stripped by
/// their START/END markers, "Produced by" notes and the table of contents dropped, and a collection
/// split into its tales (see `GutenbergTales`). Title, author and language come from the header.
public struct GutenbergBook: Sendable, Hashable {
    public struct Tale: Sendable, Hashable {
        public var title: String
        public var blocks: [BookBlock]

        /// The tale's paragraphs, without its pictures and page breaks.
        public var paragraphs: [String] {
            blocks.compactMap { if case .paragraph(let text) = $0 { text } else { nil } }
        }
    }

    public var title: String
    public var author: String?
    /// An ISO 639-1 code ("en") from the header's `Language:`.
    public var language: String
    public var tales: [Tale]

    /// Whether `text` is a Project Gutenberg file: a START marker near its beginning.
    public static func isGutenberg(_ text: String) -> Bool {
        GutenbergFile.startLine(in: GutenbergFile.lines(of: text)) != nil
    }

    /// Decodes a file: UTF-8 (with or without a byte order mark), else Latin-1 as older files are.
    public static func decode(_ data: Data) -> String { GutenbergFile.decode(data) }

    public init(text: String, fallbackTitle: String) {
        let lines = GutenbergFile.lines(of: text)
        let start = GutenbergFile.startLine(in: lines) ?? -1
        let end = GutenbergFile.endLine(in: lines, after: max(start, 0))
        let header = lines.prefix(max(start, 0))
        title = GutenbergFile.header("Title", in: header) ?? fallbackTitle
        // "Author: Anonymous" with an editor: the editor is the name a reader looks for.
        author = GutenbergFile.header("Author", in: header).flatMap {
            $0.lowercased() == "anonymous" || $0.lowercased() == "various" ? GutenbergFile.header("Editor", in: header) ?? $0 : $0
        }
        language = GutenbergFile.header("Language", in: header).flatMap(GutenbergFile.languageCode) ?? "en"
        tales = GutenbergTales.split(Array(lines[(start + 1)..<max(end, start + 1)]), title: title)
    }

    /// What a Project Gutenberg eBook's own header says it may be used under, kept with each story
    /// (exported files carry it as their licence tag).
    public static let licence = "Project Gutenberg License, www.gutenberg.org/license"

    /// Each tale as a story of ours; a collection's tales say which book they are from.
    public func stories(bookID: String) -> [BookStory] {
        let ids = BookStory.uniqueIDs(tales.map { tales.count == 1 ? bookID : bookID + "-" + BookStory.slug($0.title) })
        return BookStory.numbered(
            zip(ids, tales).map { id, tale in
                BookStory(
                    id: id, title: tale.title, author: author, language: language,
                    book: tales.count > 1 ? "\(title) (Project Gutenberg)" : nil, blocks: tale.blocks, licence: Self.licence)
            })
    }
}
