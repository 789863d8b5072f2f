import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import ZIPFoundation

/// `storyreader bench import`: how long an import takes and how much memory it needs, on the
/// books given, else on a generated EPUB as large as a big picture book (35 MB, 600 pictures).
struct ImportBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: helpMessages.tr("Time importing books (EPUB or Project Gutenberg) into a temporary folder, and peak memory."),
        discussion: helpMessages.tr(
            "Without FILE, a generated EPUB is used: 100 chapters of text and 600 pictures of 60 KB that do not compress (about 35 MB). Each book is imported --runs times into a fresh temporary folder; the median time is shown. Example: {command}",
            [
                "command": "storyreader bench import book.epub"
            ])
    )

    @Option(help: ArgumentHelp(helpMessages.tr("Timed imports per book (the median is shown).")))
    var runs = 3

    @Argument(help: ArgumentHelp(helpMessages.tr("Books to import (default: a generated 35 MB EPUB)."), valueName: "file"))
    var files: [String] = []

    @Flag(
        help: ArgumentHelp(
            helpMessages.tr("Time the hostile books instead: a spine listing one 20 MB chapter 40 times, and 300,000 note references in one paragraph.")))
    var hostile = false

    func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-import-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var books = files
        if hostile {
            books = try Self.generateHostile(in: root).map(\.path)
        } else if books.isEmpty {
            let generated = root.appendingPathComponent("generated.epub")
            try Self.generate(generated, chapters: 100, pictures: 600, pictureBytes: 60_000)
            books = [generated.path]
        }
        print(
            "import benchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, median of \(runs) runs, each `storyreader import` a whole process timed from outside"
        )
        let binary = BundledStories.sibling("storyreader").path
        for book in books {
            let bytes = ((try? FileManager.default.attributesOfItem(atPath: book))?[.size] as? Int) ?? 0
            var samples: [ExportBenchmark.Sample] = []
            var stories = 0
            for run in 0..<runs {
                let data = root.appendingPathComponent("data-\(run)")
                samples.append(try ExportBenchmark.time([[binary, "import", "--data-dir", data.path, book]]))
                let folder = data.appendingPathComponent("stories").path
                stories = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".md") }.count
                try? FileManager.default.removeItem(at: data)
            }
            let wall = Percentile.median(samples.map(\.wall))
            let cpu = Percentile.median(samples.map(\.cpu))
            let rss = samples.map(\.rss).max() ?? 0
            print(
                String(
                    format: "%@ (%.1f MB): %d stories in %.0f ms (CPU %.0f ms); peak RSS %.1f MB",
                    (book as NSString).lastPathComponent, Double(bytes) / 1_048_576, stories, wall * 1000, cpu * 1000, Double(rss) / 1024))
        }
    }

    /// An EPUB 3 novel with `chapters` chapters and `pictures` pictures (random bytes, stored:
    /// they do not compress, as JPEGs do not), each described by its alt text.
    static func generate(_ url: URL, chapters: Int, pictures: Int, pictureBytes: Int) throws {
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ data: Data, compressed: Bool = true) throws {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count),
                compressionMethod: compressed ? .deflate : .none
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("mimetype", Data("application/epub+zip".utf8), compressed: false)
        try add("META-INF/container.xml", Data(#"<container><rootfiles><rootfile full-path="book/content.opf"/></rootfiles></container>"#.utf8))
        var generator = SplitMix(seed: 7)
        var manifest = ""
        var spine = ""
        let perChapter = max(1, pictures / max(chapters, 1))
        for chapter in 1...chapters {
            var body = "<h2>Chapter \(chapter)</h2>"
            for paragraph in 0..<40 {
                var words: [String] = []
                for _ in 0..<60 { words.append(StoryGenerator.vocabulary[Int(generator.next() % UInt64(StoryGenerator.vocabulary.count))]) }
                body += "<p>\(words.joined(separator: " ")).</p>"
                if paragraph % 8 == 0, (chapter - 1) * perChapter + paragraph / 8 < pictures {
                    let number = (chapter - 1) * perChapter + paragraph / 8
                    body += #"<img src="../images/p\#(number).jpg" alt="Picture \#(number): a fox under a bright sky."/>"#
                }
            }
            let xhtml =
                #"<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title></head><body>"# + body
                + "</body></html>"
            try add("book/text/c\(chapter).xhtml", Data(xhtml.utf8))
            manifest += #"<item id="c\#(chapter)" href="text/c\#(chapter).xhtml" media-type="application/xhtml+xml"/>"#
            spine += #"<itemref idref="c\#(chapter)"/>"#
        }
        for number in 0..<pictures {
            var bytes = [UInt8](repeating: 0, count: pictureBytes)
            for index in stride(from: 0, to: bytes.count, by: 8) {
                withUnsafeBytes(of: generator.next()) { random in
                    for offset in 0..<min(8, bytes.count - index) { bytes[index + offset] = random[offset] }
                }
            }
            try add("book/images/p\(number).jpg", Data(bytes), compressed: false)
            manifest += #"<item id="p\#(number)" href="images/p\#(number).jpg" media-type="image/jpeg"/>"#
        }
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>Generated Book</dc:title><dc:creator>Bench</dc:creator><dc:language>en</dc:language></metadata>
            <manifest>\(manifest)</manifest><spine>\(spine)</spine></package>
            """
        try add("book/content.opf", Data(opf.utf8))
    }

    /// EPUBs made to walk around the import's limits (issue 33): a small file whose spine lists one
    /// large chapter many times (read once now), and one paragraph of many note references
    /// (stripped in linear time now).
    static func generateHostile(in folder: URL) throws -> [URL] {
        func book(_ name: String, chapters: [(String, Data)], spine: [String]) throws -> URL {
            let url = folder.appendingPathComponent(name)
            let archive = try Archive(url: url, accessMode: .create)
            func add(_ path: String, _ data: Data) throws {
                try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            try add("mimetype", Data("application/epub+zip".utf8))
            try add("META-INF/container.xml", Data(#"<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>"#.utf8))
            let manifest = chapters.map { #"<item id="\#($0.0)" href="\#($0.0).xhtml" media-type="application/xhtml+xml"/>"# }.joined()
            try add(
                "content.opf",
                Data(
                    """
                    <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
                    <metadata><dc:title>\(name)</dc:title><dc:language>en</dc:language></metadata>
                    <manifest>\(manifest)</manifest><spine>\(spine.map { #"<itemref idref="\#($0)"/>"# }.joined())</spine></package>
                    """.utf8))
            for (id, data) in chapters { try add(id + ".xhtml", data) }
            return url
        }
        func xhtml(_ body: String) -> Data {
            Data(
                (#"<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title></head><body>"#
                    + body + "</body></html>").utf8)
        }
        let big = xhtml("<p>" + String(repeating: "a ", count: 10 << 20) + "</p>")
        let notes = xhtml("<p>" + String(repeating: "w<sup>1</sup> ", count: 300_000) + "</p>")
        return [
            try book("spine-repeats-a-20mb-chapter-40-times.epub", chapters: [("big", big)], spine: Array(repeating: "big", count: 40)),
            try book("300000-note-references.epub", chapters: [("notes", notes)], spine: ["notes"]),
        ]
    }
}
