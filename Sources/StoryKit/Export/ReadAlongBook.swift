public import Foundation

/// A read-along book: EPUB 3 with Media Overlays. Each story is an XHTML document whose sentences
/// (and, asked for, words) have ids; a SMIL document beside it pairs each id with its clip of one
/// MP3 file, the times taken from eSpeak NG's own events (what the narration player heard). Reading
/// systems (Thorium, Apple Books, Kobo…) play the audio and highlight the text in step.
public struct ReadAlongBook: Sendable {
    /// What one highlight covers.
    public enum Granularity: String, Sendable, CaseIterable {
        case sentences, words
    }

    /// One story of the book, with its timeline in the book's audio.
    public struct Chapter: Sendable {
        public var story: Story
        public var narration: Narration
        public var timed: TimedNarration

        public init(story: Story, narration: Narration, timed: TimedNarration) {
            self.story = story
            self.narration = narration
            self.timed = timed
        }
    }

    public var title: String
    public var author: String?
    public var chapters: [Chapter]
    public var granularity: Granularity
    /// The length of the audio file in milliseconds: no clip ends after it.
    public var audioDuration: Int
    public var identifier: String
    public var modified: Date

    public init(
        title: String, author: String?, chapters: [Chapter], granularity: Granularity, audioDuration: Int,
        identifier: String = "urn:uuid:" + UUID().uuidString.lowercased(), modified: Date = Date()
    ) {
        self.title = title
        self.author = author
        self.chapters = chapters
        self.granularity = granularity
        self.audioDuration = audioDuration
        self.identifier = identifier
        self.modified = modified
    }

    /// Where the audio sits in the book.
    public static let audioPath = "OEBPS/audio/book.mp3"

    /// The book's files but the audio, in the order they go into the archive (mimetype first).
    public func files() -> [(path: String, text: String)] {
        var files: [(String, String)] = [
            ("mimetype", "application/epub+zip"),
            ("META-INF/container.xml", Self.container),
        ]
        var overlays: [(id: String, duration: Int)] = []
        var pages: [(href: String, label: String)] = []
        for (index, chapter) in chapters.enumerated() {
            let document = ChapterDocument(
                chapter: chapter, number: index + 1, granularity: granularity, audioDuration: audioDuration,
                pageLabelPrefix: chapters.count > 1 ? "\(index + 1)." : "")
            files.append(("OEBPS/" + document.xhtmlName, document.xhtml()))
            files.append(("OEBPS/" + document.smilName, document.smil()))
            overlays.append((document.overlayID, document.duration))
            pages += document.pageBreaks.map { (document.xhtmlName + "#" + $0.id, $0.label) }
        }
        files.append(("OEBPS/style.css", Self.css))
        files.append(("OEBPS/nav.xhtml", navigation(pages: pages)))
        files.insert(("OEBPS/package.opf", package(overlays: overlays, hasPages: !pages.isEmpty)), at: 2)
        return files
    }

    // MARK: The package

    func package(overlays: [(id: String, duration: Int)], hasPages: Bool) -> String {
        let languages = chapters.map(\.story.language).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let hasPictures = chapters.contains { !$0.timed.descriptions.isEmpty }
        let stamp = ISO8601DateFormatter().string(from: modified).replacingOccurrences(of: ".000", with: "")
        var metadata = """
                <dc:identifier id="uid">\(Self.escaped(identifier))</dc:identifier>
                <dc:title>\(Self.escaped(title))</dc:title>

            """
        for language in languages.isEmpty ? ["en"] : languages { metadata += "        <dc:language>\(Self.escaped(language))</dc:language>\n" }
        if let author, !author.isEmpty { metadata += "        <dc:creator>\(Self.escaped(author))</dc:creator>\n" }
        metadata += "        <dc:publisher>Magical Stories</dc:publisher>\n"
        let licences = Set(chapters.map { $0.story.licence ?? "" })
        if licences.count == 1, let licence = chapters.first?.story.licence, !licence.isEmpty {
            metadata += "        <dc:rights>\(Self.escaped(licence))</dc:rights>\n"
        }
        metadata += "        <meta property=\"dcterms:modified\">\(stamp)</meta>\n"
        for overlay in overlays {
            metadata += "        <meta property=\"media:duration\" refines=\"#\(overlay.id)\">\(Self.clock(overlay.duration))</meta>\n"
        }
        metadata += "        <meta property=\"media:duration\">\(Self.clock(overlays.map(\.duration).reduce(0, +)))</meta>\n"
        metadata += "        <meta property=\"media:narrator\">eSpeak NG</meta>\n"
        metadata += "        <meta property=\"media:active-class\">-epub-media-overlay-active</meta>\n"
        var features = ["synchronizedAudioText", "structuralNavigation", "tableOfContents", "readingOrder", "displayTransformability"]
        if hasPages { features += ["pageBreakMarkers", "pageNavigation"] }
        if hasPictures { features.append("longDescription") }
        for mode in ["textual", "auditory"] { metadata += "        <meta property=\"schema:accessMode\">\(mode)</meta>\n" }
        for sufficient in ["textual", "auditory", "textual,auditory"] {
            metadata += "        <meta property=\"schema:accessModeSufficient\">\(sufficient)</meta>\n"
        }
        for feature in features { metadata += "        <meta property=\"schema:accessibilityFeature\">\(feature)</meta>\n" }
        metadata += "        <meta property=\"schema:accessibilityHazard\">none</meta>\n"
        let summary =
            "A read-along book: each story's text is highlighted, " + (granularity == .words ? "word by word" : "sentence by sentence")
            + ", as a synthetic voice (eSpeak NG) reads it aloud. "
            + (hasPictures ? "Pictures are described in words, in the text and in the audio. " : "")
            + "Headings and a table of contents give the structure; the text can be resized and restyled."
        metadata += "        <meta property=\"schema:accessibilitySummary\">\(Self.escaped(summary))</meta>\n"

        var manifest = """
                <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
                <item id="css" href="style.css" media-type="text/css"/>
                <item id="audio" href="audio/book.mp3" media-type="audio/mpeg"/>

            """
        var spine = ""
        for index in chapters.indices {
            let name = ChapterDocument.baseName(index + 1)
            manifest += "        <item id=\"\(name)\" href=\"\(name).xhtml\" media-type=\"application/xhtml+xml\" media-overlay=\"\(name)-overlay\"/>\n"
            manifest += "        <item id=\"\(name)-overlay\" href=\"\(name).smil\" media-type=\"application/smil+xml\"/>\n"
            spine += "        <itemref idref=\"\(name)\"/>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="\(Self.escaped(languages.first ?? "en"))">
                <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            \(metadata)    </metadata>
                <manifest>
            \(manifest)    </manifest>
                <spine>
                    <itemref idref="nav" linear="no"/>
            \(spine)    </spine>
            </package>

            """
    }

    func navigation(pages: [(href: String, label: String)]) -> String {
        let language = chapters.first?.story.language ?? "en"
        var toc = ""
        for (index, chapter) in chapters.enumerated() {
            toc += "            <li><a href=\"\(ChapterDocument.baseName(index + 1)).xhtml\">\(Self.escaped(chapter.story.title))</a></li>\n"
        }
        var pageList = ""
        if !pages.isEmpty {
            pageList = "    <nav epub:type=\"page-list\" role=\"doc-pagelist\" aria-label=\"Pages\" hidden=\"hidden\">\n        <ol>\n"
            for page in pages { pageList += "            <li><a href=\"\(page.href)\">\(Self.escaped(page.label))</a></li>\n" }
            pageList += "        </ol>\n    </nav>\n"
        }
        return Self.xhtmlDocument(
            title: title, language: language,
            body: """
                    <nav epub:type="toc" role="doc-toc" id="toc" aria-labelledby="toc-title">
                        <h1 id="toc-title">\(Self.escaped(title))</h1>
                        <ol>
                \(toc)        </ol>
                    </nav>
                \(pageList)    <nav epub:type="landmarks" aria-label="Landmarks" hidden="hidden">
                        <ol>
                            <li><a epub:type="toc" href="nav.xhtml#toc">Contents</a></li>
                            <li><a epub:type="bodymatter" href="\(ChapterDocument.baseName(1)).xhtml">\(Self.escaped(chapters.first?.story.title ?? title))</a></li>
                        </ol>
                    </nav>

                """)
    }

    /// An XHTML content document around `body`, in `language`, with the book's style sheet.
    static func xhtmlDocument(title: String, language: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="\(escaped(language))" lang="\(escaped(language))">
        <head>
        <meta charset="UTF-8"/>
        <title>\(escaped(title))</title>
        <link rel="stylesheet" type="text/css" href="style.css"/>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    static let container = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
            <rootfiles>
                <rootfile full-path="OEBPS/package.opf" media-type="application/oebps-package+xml"/>
            </rootfiles>
        </container>

        """

    /// The highlight is a colour and an underline (never colour alone); pictures' descriptions
    /// stand apart from the story's text.
    static let css = """
        body { font-family: serif; line-height: 1.6; margin: 1em; }
        h1 { font-size: 1.6em; }
        .byline { font-style: italic; }
        figure.picture { margin: 1em 0; padding: 0.5em 1em; border-left: 0.3em solid #888; }
        figure.picture figcaption { font-style: italic; }
        .-epub-media-overlay-active { background-color: #FFE45C; color: #000; text-decoration: underline; }

        """

    // MARK: Writing

    static func escaped(_ text: String) -> String { XMLText.escaped(text) }

    /// A SMIL clock value, `0:01:02.345`.
    static func clock(_ ms: Int) -> String {
        String(format: "%d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
