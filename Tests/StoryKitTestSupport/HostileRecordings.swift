public import Foundation
import Testing

/// The adversarial run's read-along books (issue 43), made at test time: a book's `book.mp3` that
/// is not audio but something FFmpeg's probing would follow (an HLS playlist, an ffconcat script).
public enum HostileRecordings {
    /// What a hostile `book.mp3` holds.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A live HLS playlist (no end tag) of one segment that does not exist: FFmpeg waited for
        /// it for ever.
        case liveHLS
        /// A finished HLS playlist whose one segment is an MP3 outside the book, by absolute path:
        /// FFmpeg opened and played it.
        case outsideHLS
        /// An ffconcat script naming itself: FFmpeg recursed (94 % CPU, 735 MB in 20 s).
        case selfNamingConcat

        public var description: String { rawValue }

        /// The file's bytes, for a file named `name`; `outside` is the absolute path of a file
        /// outside the book (the segment named, existing or not).
        public func contents(name: String, outside: String) -> Data {
            switch self {
            case .liveHLS:
                Data("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:1\n#EXTINF:10.0,\n\(outside)\n".utf8)
            case .outsideHLS:
                Data("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:30\n#EXTINF:30.0,\n\(outside)\n#EXT-X-ENDLIST\n".utf8)
            case .selfNamingConcat:
                Data("ffconcat version 1.0\nfile \(name)\nfile \(name)\n".utf8)
            }
        }
    }

    static let chapter = EPUBFixtures.xhtml(
        """
        <h1>The Night Garden</h1>
        <p><span id="s1">Pip woke up in the dark.</span> <span id="s2">The garden was wet.</span></p>
        <p id="p2">She went home. It was late.</p>
        """, language: "en")

    /// A FLAC of `hours` of silence at 8 kHz (made by the ffmpeg command): some 12 KB an hour,
    /// a decompression bomb (the adversarial run's 3.2 MB played for 50 hours).
    public static func flacSilence(_ path: String, hours: Int) throws -> Data {
        guard let ffmpeg = RequiredTool.find("ffmpeg", package: "ffmpeg", for: "making a FLAC of silence") else { throw CocoaError(.featureUnsupported) }
        let made = try ExternalProcess.run(
            ffmpeg,
            ["-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", String(hours * 3600), "-c:a", "flac", "-frame_size", "32768", path],
            environment: [:])
        guard made.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: made.standardError]) }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// A one-chapter read-along EPUB (`hostile-night.epub` in `folder`, its story's id
    /// `the-night-garden`) whose overlay names `OEBPS/audio/NAME`, holding `audio`. Its pars
    /// have no clip times (each is the whole file, as the adversarial book's were), the last one
    /// a paragraph of two sentences (shared by the file's length, which is read to share it).
    public static func book(in folder: URL, audio: Data, name: String = "book.mp3") throws -> URL {
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:identifier id="id">hostile-night</dc:identifier><dc:title>The Night Garden</dc:title><dc:language>en</dc:language>
            <meta property="media:duration">0:00:30</meta></metadata>
            <manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>
            <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml" media-overlay="c1o"/>
            <item id="c1o" href="c1.smil" media-type="application/smil+xml"/>
            <item id="audio" href="audio/\(name)" media-type="audio/mpeg"/></manifest>
            <spine><itemref idref="c1"/></spine></package>
            """
        let pars = ["s1", "s2", "p2"].map { #"<par><text src="c1.xhtml#\#($0)"/><audio src="audio/\#(name)"/></par>"# }.joined()
        let smil = """
            <smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0"><body>
            <seq epub:textref="c1.xhtml">\(pars)</seq></body></smil>
            """
        let nav = EPUBFixtures.xhtml(#"<nav epub:type="toc"><ol><li><a href="c1.xhtml">The Night Garden</a></li></ol></nav>"#)
        return try EPUBFixtures.make(
            folder.appendingPathComponent("hostile-night.epub"), opf: opf,
            files: [("OEBPS/nav.xhtml", nav), ("OEBPS/c1.xhtml", chapter), ("OEBPS/c1.smil", smil)],
            data: [("OEBPS/audio/\(name)", audio)])
    }

    /// The imported book's story id, and its audio file's name beside it.
    public static let storyID = "the-night-garden"
    public static func importedAudio(_ name: String = "book.mp3") -> String { "the-night-garden.audio/1-" + name }
}
