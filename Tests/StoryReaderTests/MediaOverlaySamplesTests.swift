import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The read-along structure of the IDPF's EPUB 3 samples (github.com/IDPF/epub3-samples), rebuilt
/// at test time. Of the samples only `moby-dick-mo` has Media Overlays; its narration
/// (`OPS/audio/mobydick_001_002_melville.mp4`, 23 minutes) is not in the stored repository, so the
/// book is made here with its structure: one MP4 (AAC) narration shared by two chapters, a heading
/// par, the first sentence par by par word by word, then a par a sentence, and a par a whole
/// paragraph in chapter 2; clocks in every SMIL form; and a nested `seq` (`epub:type="table"`) as
/// the issue names. The narration is a rising tone, so every clip's place in it is known.
@Suite struct MediaOverlaySamplesTests {
    static func chapter(_ body: String) -> String { EPUBFixtures.xhtml(body, language: "en") }

    static let chapter1 = chapter(
        """
        <h1 id="c01h01">Loomings</h1>
        <p><span id="c01w00001">Call</span> <span id="c01w00002">me</span> <span id="c01w00003">Ishmael.</span>
        <span id="c01s0002">Some years ago I went to sea.</span> <span id="c01s0003">It is a way I have.</span></p>
        """)
    static let chapter2 = chapter(
        """
        <h1 id="c02h01">The Carpet Bag</h1>
        <p id="c02p0001">I stuffed a shirt or two into my old bag. I started for Cape Horn.</p>
        """)
    static func par(_ text: String, _ begin: String, _ end: String) -> String {
        #"<par><text src="\#(text)"/><audio src="audio/mobydick.mp4" clipBegin="\#(begin)" clipEnd="\#(end)"/></par>"#
    }
    static func smil(_ document: String, _ pars: String) -> String {
        """
        <smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0"><body>
        <seq epub:textref="\(document)" epub:type="bodymatter chapter">\(pars)</seq></body></smil>
        """
    }
    static let overlay1 = smil(
        "chapter_001.xhtml",
        [
            par("chapter_001.xhtml#c01h01", "0:00:00.500", "0:00:01.800"),  // full clock
            par("chapter_001.xhtml#c01w00001", "00:01.800", "00:02.100"),  // partial clock
            par("chapter_001.xhtml#c01w00002", "2.1s", "2400ms"),  // timecounts
            par("chapter_001.xhtml#c01w00003", "2.4", "0:00:03"),
            par("chapter_001.xhtml#c01s0002", "3s", "0.1min"),
            #"<seq epub:type="table">"# + par("chapter_001.xhtml#c01s0003", "6000ms", "7.5s") + "</seq>",
        ].joined())
    static let overlay2 = smil("chapter_002.xhtml", par("chapter_002.xhtml#c02p0001", "0:00:08.000", "0:00:11.500"))
    static let opf = """
        <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <metadata><dc:identifier id="id">moby-dick-mo-structure</dc:identifier><dc:title>Moby-Dick</dc:title><dc:creator>Herman Melville</dc:creator>
        <dc:language>en</dc:language>
        <meta property="media:duration" refines="#chapter_001_overlay">0:00:07.000</meta>
        <meta property="media:duration" refines="#chapter_002_overlay">0:00:03.500</meta>
        <meta property="media:duration">0:00:10.500</meta><meta property="media:narrator">A tone</meta>
        <meta property="media:active-class">-epub-media-overlay-active</meta></metadata>
        <manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>
        <item id="xchapter_001" href="chapter_001.xhtml" media-type="application/xhtml+xml" media-overlay="chapter_001_overlay"/>
        <item id="chapter_001_overlay" href="chapter_001_overlay.smil" media-type="application/smil+xml"/>
        <item id="xchapter_002" href="chapter_002.xhtml" media-type="application/xhtml+xml" media-overlay="chapter_002_overlay"/>
        <item id="chapter_002_overlay" href="chapter_002_overlay.smil" media-type="application/smil+xml"/>
        <item id="narration" href="audio/mobydick.mp4" media-type="audio/mp4"/></manifest>
        <spine><itemref idref="xchapter_001"/><itemref idref="xchapter_002"/></spine></package>
        """

    @Test func mobyDickMediaOverlayStructuresPlayClipByClip() throws {
        let folder = try TemporaryFolder("moby-mo")
        defer { folder.remove() }
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "encoding the sample's narration"))
        let wav = folder.path + "/tone.wav"
        _ = try Chirp.write(wav, seconds: 12)
        let mp4 = folder.path + "/narration.mp4"
        let encoded = try ExternalProcess.run(ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "64k", mp4], environment: [:])
        #expect(encoded.status == 0, "\(encoded.standardError)")
        let epub = folder.url.appendingPathComponent("moby-dick-mo.epub")
        try EPUBFixtures.make(
            epub, opf: Self.opf,
            files: [
                (
                    "OEBPS/nav.xhtml",
                    Self.chapter(
                        #"<nav epub:type="toc"><ol><li><a href="chapter_001.xhtml">Loomings</a></li><li><a href="chapter_002.xhtml">The Carpet Bag</a></li></ol></nav>"#
                    )
                ),
                ("OEBPS/chapter_001.xhtml", Self.chapter1), ("OEBPS/chapter_002.xhtml", Self.chapter2),
                ("OEBPS/chapter_001_overlay.smil", Self.overlay1), ("OEBPS/chapter_002_overlay.smil", Self.overlay2),
            ], data: [("OEBPS/audio/mobydick.mp4", try Data(contentsOf: URL(fileURLWithPath: mp4)))])
        let data = folder.path + "/data"
        let imported = try StoryReaderProcess.run(["import", "--as-one", epub.path], dataDirectory: data)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(!imported.standardError.contains("Media Overlays"), "the narration is kept: \(imported.standardError)")
        let read = try StoryReaderProcess.run(["read", "moby", "--no-audio", "--events", "json"], dataDirectory: data)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardError.isEmpty, "every clip decoded: \(read.standardError)")
        let events = read.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func sentence(_ text: String) -> [String: Any]? {
            events.first { $0["type"] as? String == "sentence" && ($0["text"] as? String)?.hasPrefix(text) == true }
        }
        func clip(_ text: String) -> (begin: Int, end: Int)? {
            // Import keeps the audio beside the story as `1-mobydick.mp4` (numbered, one file for both chapters).
            guard let event = sentence(text), event["source"] as? String == "recording", event["audio"] as? String == "1-mobydick.mp4",
                let begin = event["clipBegin"] as? Int, let end = event["clipEnd"] as? Int
            else { return nil }
            return (begin, end)
        }
        // Every clock form, each sentence's clip; the words of the first sentence at their own clips.
        #expect(clip("Loomings").map { [$0.begin, $0.end] } == [500, 1800], "\(read.standardOutput)")
        #expect(clip("Call me Ishmael.").map { [$0.begin, $0.end] } == [1800, 3000])
        #expect(clip("Some years ago").map { [$0.begin, $0.end] } == [3000, 6000])
        #expect(clip("It is a way").map { [$0.begin, $0.end] } == [6000, 7500], "inside a nested seq")
        let callAt = try #require(events.firstIndex { $0["type"] as? String == "sentence" && ($0["text"] as? String)?.hasPrefix("Call") == true })
        let words = events[(callAt + 1)...].prefix { $0["type"] as? String == "word" }
        #expect(words.compactMap { $0["clipBegin"] as? Int } == [1800, 2100, 2400])
        #expect(words.compactMap { ($0["text"] as? String)?.prefix(2) } == ["Ca", "me", "Is"])
        // Chapter 2's heading has no par: eSpeak NG. Its paragraph's one clip, from the audio file
        // chapter 1 used too, is shared by its two sentences by their length.
        #expect(sentence("The Carpet Bag")?["source"] as? String == "synthesis")
        let first = try #require(clip("I stuffed a shirt"))
        let second = try #require(clip("I started for Cape Horn"))
        #expect(first.begin == 8000 && second.end == 11500)
        #expect(first.end == second.begin)
        #expect(first.end > 9000 && first.end < 10500, "shared by length: \(first), \(second)")
    }
}
