import Foundation

/// Writes values over fixed-width Vorbis comments in an Ogg file's header pages, in place, and
/// mends the pages' checksums. libopusenc takes the comments before the first sample, but a
/// chapter's start is only known once the audio before it is made: the comments are written
/// with placeholders of the final width (`CHAPTER001=00:00:00.000`) and filled in at the end.
enum OggCommentPatch {
    /// Replaces each comment `key=placeholder` (such as `CHAPTER002=00:00:00.000`, found with its
    /// length in front, so a title holding the same words is never touched) by `key=value` of the
    /// same length. Only the header pages (granule position 0) are looked at.
    static func apply(_ values: [(key: String, placeholder: String, value: String)], toFileAt path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw AudioError.fileFailed(path: path, reason: "cannot open it again to write the chapters")
        }
        defer { try? handle.close() }
        // The header pages: OpusHead, then OpusTags (over as many pages as it needs).
        var pages: [(start: Int, headerLength: Int, bodyLength: Int)] = []
        var bytes: [UInt8] = []
        var offset = 0
        while true {
            try handle.seek(toOffset: UInt64(offset))
            guard let header = try handle.read(upToCount: 27), header.count == 27, header.starts(with: Array("OggS".utf8)) else { break }
            let head = [UInt8](header)
            let granule = head[6..<14].reduce(0) { $0 | UInt64($1) }  // any nonzero byte: audio has begun
            let segmentCount = Int(head[26])
            guard let table = try handle.read(upToCount: segmentCount), table.count == segmentCount else { break }
            let bodyLength = table.reduce(0) { $0 + Int($1) }
            if granule != 0 { break }
            guard let body = try handle.read(upToCount: bodyLength), body.count == bodyLength else { break }
            pages.append((offset, 27 + segmentCount, bodyLength))
            bytes += head + [UInt8](table) + [UInt8](body)
            offset += 27 + segmentCount + bodyLength
        }
        // Where each body byte is in `bytes` (the bodies joined: a comment may cross pages).
        var bodyIndex: [Int] = []
        var position = 0
        for page in pages {
            bodyIndex += (position + page.headerLength)..<(position + page.headerLength + page.bodyLength)
            position += page.headerLength + page.bodyLength
        }
        let body = bodyIndex.map { bytes[$0] }
        for (key, placeholder, value) in values {
            let comment = Array((key + placeholder).utf8)
            guard value.utf8.count == placeholder.utf8.count,
                let at = body.firstRange(of: withUnsafeBytes(of: UInt32(comment.count).littleEndian, Array.init) + comment)
            else {
                throw AudioError.fileFailed(path: path, reason: "the comment \(key) is missing")
            }
            let valueStart = at.lowerBound + 4 + key.utf8.count
            for (index, byte) in value.utf8.enumerated() { bytes[bodyIndex[valueStart + index]] = byte }
        }
        position = 0
        for page in pages {
            let range = position..<(position + page.headerLength + page.bodyLength)
            for index in 22..<26 { bytes[position + index] = 0 }
            let crc = crc32(bytes[range])
            for index in 0..<4 { bytes[position + 22 + index] = UInt8(crc >> (8 * UInt32(index)) & 0xFF) }
            position = range.upperBound
        }
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Data(bytes))
    }

    /// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, starting at 0.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }
}
