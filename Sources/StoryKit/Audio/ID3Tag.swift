import Foundation

/// An ID3v2.4 tag, written by us rather than by LAME: LAME's own tag has no chapter frames.
/// Text frames are UTF-8; chapters are `CHAP` frames (each with its title as a `TIT2` sub-frame)
/// listed in order by a `CTOC` frame, as ffprobe, foobar2000 and podcast players read them.
/// The times of a chapter are fixed-width fields, so the tag written before the audio (times
/// not known yet) and the one written over it at the end have the same size.
public enum ID3Tag {
    /// The whole tag for `tags`.
    public static func encode(_ tags: AudioTags) -> [UInt8] {
        var frames: [UInt8] = []
        frames += textFrame("TIT2", tags.title)
        if let artist = tags.artist, !artist.isEmpty { frames += textFrame("TPE1", artist) }
        frames += textFrame("TALB", tags.album)
        if let language = tags.iso639_2 { frames += textFrame("TLAN", language) }
        if let licence = tags.licence, !licence.isEmpty { frames += textFrame("TCOP", licence) }
        frames += textFrame("TSSE", "storyreader")
        if !tags.chapters.isEmpty { frames += chapterFrames(tags.chapters) }
        return [UInt8(ascii: "I"), UInt8(ascii: "D"), UInt8(ascii: "3"), 4, 0, 0] + synchsafe(frames.count) + frames
    }

    /// `CTOC` frames hold at most 255 entries: more chapters get a top-level table of tables.
    static func chapterFrames(_ chapters: [AudioChapter]) -> [UInt8] {
        var frames: [UInt8] = []
        let ids = chapters.indices.map { "ch\($0 + 1)" }
        for (id, chapter) in zip(ids, chapters) {
            var body = Array(id.utf8) + [0]
            body += bigEndian(UInt32(clamping: chapter.start)) + bigEndian(UInt32(clamping: chapter.end))
            body += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]  // byte offsets: not given
            body += textFrame("TIT2", chapter.title)
            frames += frame("CHAP", body)
        }
        func table(_ id: String, topLevel: Bool, children: [String]) -> [UInt8] {
            var body = Array(id.utf8) + [0]
            body.append(topLevel ? 0x03 : 0x01)  // top level and/or ordered
            body.append(UInt8(children.count))
            for child in children { body += Array(child.utf8) + [0] }
            return frame("CTOC", body)
        }
        if ids.count <= 255 {
            frames += table("toc", topLevel: true, children: ids)
        } else {
            let groups = stride(from: 0, to: ids.count, by: 255).map { Array(ids[$0..<min($0 + 255, ids.count)]) }
            let groupIDs = groups.indices.map { "toc\($0 + 1)" }
            frames += table("toc", topLevel: true, children: groupIDs)
            for (id, group) in zip(groupIDs, groups) { frames += table(id, topLevel: false, children: group) }
        }
        return frames
    }

    static func textFrame(_ id: String, _ text: String) -> [UInt8] {
        frame(id, [3] + Array(text.utf8))  // 3: UTF-8
    }

    static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + synchsafe(body.count) + [0, 0] + body
    }

    /// ID3v2.4 sizes: 7 bits a byte.
    static func synchsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
