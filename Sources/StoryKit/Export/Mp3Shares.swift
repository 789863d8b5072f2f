import CLame
import Foundation
import Synchronization

/// One share of a story's speech encoded as MP3 frames on the core that made it, ready to be
/// joined to the others into one MP3 file (`Mp3ExportFile`).
///
/// Each share has its own LAME encoder. Its stream decodes to a lead of 1,105 samples (LAME's
/// 576 of encoder delay and the decoder's 529), the speech, then padding to whole frames of 576
/// samples and at least one frame more: joined as they are, every share would begin about 50 ms
/// later than in the WAV. So a share that is not the file's last is made as long in the file as
/// whole frames allow: its trailing silence (a sentence's pause) is shortened so that its frames
/// end at or before its true end, and the next share's lead plays in place of the last of that
/// silence. The file has one Xing/Info frame with a LAME tag saying the first share's delay and
/// the last share's padding, so that decoders (FFmpeg, mpg123) trim it to exactly the samples
/// given. Each encoder starts with an empty bit reservoir, so a share's first frame has
/// main_data_begin 0 and takes nothing from the share before it, and LAME's flush puts all of a
/// share's data in its own frames: the bytes of the shares simply follow one another.
public struct EncodedMp3Share: Sendable {
    /// The MP3 frames, in order, with no Xing/Info frame.
    public var bytes: [UInt8]
    /// How long the share lasts in the file, in samples: its frames, 576 samples each.
    public var frames: Int
    /// The samples the share was made from.
    public var sourceFrames: Int

    public init(bytes: [UInt8], frames: Int, sourceFrames: Int) {
        self.bytes = bytes
        self.frames = frames
        self.sourceFrames = sourceFrames
    }
}

/// The encoder of one share (see `EncodedMp3Share`), owned by a thread of its own
/// (`HandleOwner`: an export file's current share, or a worker's `Mp3ShareSink`).
final class Mp3ShareEncoder: ShareEncoding {
    /// Samples in an MPEG-2 layer III frame.
    static let frameSamples = 576
    /// LAME's delay before a stream's first sample; a decoder adds 529 of its own.
    static let encoderDelay = 576
    /// The tail kept back from the encoder until the share's end is known, so that its silence can
    /// be shortened by up to three frames.
    static let heldBack = 4096

    private let encoder: OpaquePointer
    private var pending: [Int16] = []
    private var bytes: [UInt8] = []
    private var fedFrames = 0
    private(set) var sourceFrames = 0

    init(bitrate: Int) throws {
        encoder = try MP3FileSink.encoder(bitrate: bitrate, path: "MP3", infoFrame: false)
    }

    deinit { lame_close(encoder) }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        pending.append(contentsOf: samples)
        sourceFrames += samples.count
        if pending.count > 2 * Self.heldBack { try feed(pending.count - Self.heldBack) }
    }

    /// Ends the share. Not the last (`wantedFrames == nil`): as long in the file as whole frames
    /// allow, its trailing silence shortened for that. The last: `wantedFrames` of speech, padded
    /// with silence (or its trailing silence shortened) to that.
    func finish(wantedFrames: Int? = nil) throws -> EncodedMp3Share {
        let silence = pending.reversed().prefix { abs(Int($0)) <= Int(OpusShareEncoder.silenceLevel) }.count
        var keep = pending.count
        if let wanted = wantedFrames {
            let extra = wanted - sourceFrames
            if extra >= 0 {
                pending += [Int16](repeating: 0, count: extra)
                keep = pending.count
            } else {
                keep -= min(-extra, silence)
            }
        } else {
            keep -= trimmedForWholeFrames(silence: silence)
        }
        try feed(keep)
        pending.removeAll()
        var output = [UInt8](repeating: 0, count: 7200)
        let count = lame_encode_flush(encoder, &output, Int32(output.count))
        guard count >= 0 else { throw AudioError.fileFailed(path: "MP3", reason: "LAME could not encode (\(count))") }
        bytes += output[..<Int(count)]
        let frames = Int(lame_get_frameNum(encoder)) * Self.frameSamples
        return EncodedMp3Share(bytes: bytes, frames: wantedFrames == nil ? frames : fedFrames, sourceFrames: sourceFrames)
    }

    /// How many samples of the trailing `silence` to leave out so that the share's frames end at
    /// or before its true end, as near it as they can: LAME 3.100's flush makes frames of its
    /// delay and the samples, rounded up, and one frame more. All the silence when that is not enough
    /// (the share then runs longer by less than three frames, and the last share makes up for it).
    private func trimmedForWholeFrames(silence: Int) -> Int {
        let total = fedFrames + pending.count
        let fitting = max(0, total / Self.frameSamples - 2) * Self.frameSamples
        return min(total - fitting, silence, pending.count)
    }

    private func feed(_ count: Int) throws {
        guard count > 0 else { return }
        var output = [UInt8](repeating: 0, count: count * 5 / 4 + 7200)
        let encoded = pending.withUnsafeBufferPointer { samples in
            lame_encode_buffer(encoder, samples.baseAddress, samples.baseAddress, Int32(count), &output, Int32(output.count))
        }
        guard encoded >= 0 else { throw AudioError.fileFailed(path: "MP3", reason: "LAME could not encode (\(encoded))") }
        bytes += output[..<Int(encoded)]
        pending.removeFirst(count)
        fedFrames += count
    }
}

/// An MP3 file made of shares encoded apart (`EncodedMp3Share`) and of speech written to it
/// (encoded a share at a time, each on a thread of its own): our ID3v2.4 tag, one Xing/Info
/// frame with a LAME tag for the whole (frames, bytes, encoder delay and padding), then the
/// shares' frames. Written beside its target and renamed when whole, as `WAVFileSink` does.
public final class Mp3ExportFile: PCMFileSink, @unchecked Sendable {
    // One thread writes at a time (the narration player's, then the one joining the workers'
    // shares); the lock makes the hand-over between them safe. The encoders are not under it:
    // each is owned by a thread of its own (`JoinedShares`).
    private let lock = NSLock()
    public let path: String
    public let temporaryPath: String
    /// kbit/s, as the encoders are told.
    public let bitrate: Int
    private var tags: AudioTags
    private let tagSize: Int
    private var file: FileHandle?
    /// The shares: this file's own (speech written here, encoded on a thread of its own) and the
    /// workers'.
    private var shares: JoinedShares<Mp3ShareEncoder>
    /// The file's audio frames and their bytes.
    private var audioFrames = 0
    private var audioBytes = 0
    private var firstHeader: [UInt8]?
    private let infoSize: Int
    private let infoBitrateIndex: Int

    /// MPEG-2 layer III bitrates, kbit/s, by their index in a frame's header.
    static let bitrates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]

    public init(path: String, bitrate: Int = MP3FileSink.defaultBitrate, tags: AudioTags) throws {
        guard let index = Self.bitrates.firstIndex(of: bitrate), index > 0 else {
            throw AudioError.fileFailed(path: path, reason: "LAME refused \(bitrate) kbit/s at 22050 Hz (use 8 to 160)")
        }
        // The Info frame holds the Xing fields and LAME's tag (65 bytes): at least 32 kbit/s.
        infoBitrateIndex = max(index, 4)
        infoSize = 72_000 * Self.bitrates[infoBitrateIndex] / SpeechAudioFormat.sampleRate
        temporaryPath = AtomicFile.temporaryPath(for: path)
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil), let handle = FileHandle(forWritingAtPath: temporaryPath) else {
            throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        self.bitrate = bitrate
        shares = JoinedShares(bitrate: bitrate, label: "storyreader.mp3-export")
        self.tags = tags
        let tag = ID3Tag.encode(tags)
        tagSize = tag.count
        file = handle
        do {
            // The Info frame's place, written on `close`.
            try handle.write(contentsOf: tag + [UInt8](repeating: 0, count: infoSize))
        } catch {
            try? handle.close()
            unlink(temporaryPath)
            throw AudioError.fileFailed(path: path, reason: error.localizedDescription)
        }
    }

    public var framesWritten: Int { lock.withLock { shares.framesWritten } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try lock.withLock {
            guard file != nil else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            try shares.write(samples)
            return true
        }
    }

    /// Ends what was written directly as a share and returns the file's length in samples: where
    /// the next share begins.
    public func sealShare() throws -> Int {
        try lock.withLock {
            try sealCurrent()
            return shares.timeline
        }
    }

    /// Appends a share encoded elsewhere, after what the file holds.
    public func append(_ share: EncodedMp3Share) throws {
        try lock.withLock {
            try sealCurrent()
            try writeShare(share)
            shares.appended(sourceFrames: share.sourceFrames)
        }
    }

    private func sealCurrent() throws {
        guard let share = try shares.finishCurrent({ try $0.finish() }) else { return }
        try writeShare(share)
    }

    private func writeShare(_ share: EncodedMp3Share) throws {
        if firstHeader == nil, share.bytes.count >= 4 { firstHeader = Array(share.bytes[..<4]) }
        try file?.write(contentsOf: share.bytes)
        audioBytes += share.bytes.count
        audioFrames += Self.frameCount(share.bytes)
        shares.timeline += share.frames
    }

    /// Frames in a run of MPEG-2 layer III frames at the speech's rate, read from their headers.
    static func frameCount(_ bytes: [UInt8]) -> Int {
        var offset = 0
        var count = 0
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 {
            let kbps = bitrates[safe: Int(bytes[offset + 2] >> 4)] ?? 0
            let size = 72_000 * kbps / SpeechAudioFormat.sampleRate + Int(bytes[offset + 2] >> 1 & 1)
            guard size > 0 else { break }
            offset += size
            count += 1
        }
        return count
    }

    /// The Info frame: a silent frame whose side information is zeros, holding the Xing fields
    /// (frames and bytes) and LAME's tag with the encoder delay and padding (as FFmpeg and mpg123
    /// read it), its CRC-16 over the bytes before it.
    func infoFrame(padding: Int) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: infoSize)
        let header = firstHeader ?? [0xFF, 0xF3, 0x60, 0xC4]
        frame[0] = 0xFF
        frame[1] = header[1]
        frame[2] = UInt8(infoBitrateIndex << 4) | (header[2] & 0x0C)
        frame[3] = header[3]
        var tag: [UInt8] = Array("Info".utf8) + Self.bigEndian(3, 4) + Self.bigEndian(audioFrames, 4) + Self.bigEndian(infoSize + audioBytes, 4)
        let version = Array(String(cString: get_lame_very_short_version()).utf8.prefix(9))
        tag += version + [UInt8](repeating: 0x20, count: 9 - version.count)
        tag += [0x01, 0]  // revision 0, constant bitrate; no lowpass said
        tag += [UInt8](repeating: 0, count: 4 + 2 + 2 + 1)  // peak, gains, flags
        tag.append(UInt8(min(bitrate, 255)))
        let delay = Mp3ShareEncoder.encoderDelay
        let end = min(max(padding, 0), 4095)
        tag += [UInt8(delay >> 4), UInt8((delay & 0xF) << 4 | end >> 8), UInt8(end & 0xFF)]
        tag += [0, 0, 0, 0] + Self.bigEndian(infoSize + audioBytes, 4) + [0, 0]  // misc, gain, preset; length; music CRC
        let start = 4 + 9  // header and MPEG-2 mono side information
        frame.replaceSubrange(start..<(start + tag.count), with: tag)
        let crc = Self.crc16(frame[..<(start + tag.count)])
        frame[start + tag.count] = UInt8(crc >> 8)
        frame[start + tag.count + 1] = UInt8(crc & 0xFF)
        return frame
    }

    static func bigEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) }
    }

    /// CRC-16 as LAME's tag uses it (polynomial 0x8005 reflected, from zero).
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    public func setChapterTimes(_ chapters: [AudioChapter]) {
        lock.withLock { tags.chapters = chapters }
    }

    /// Ends the file, as long as everything given (the last share padded or shortened to that),
    /// writes its Info frame and the tag with the chapters' times, and renames it to its target.
    public func close() throws {
        try lock.withLock {
            guard let file else { return }
            do {
                let wanted = max(0, shares.sourceFrames - shares.timeline)
                try writeShare(try shares.finishLast { try $0.finish(wantedFrames: wanted) })
                let padding = audioFrames * Mp3ShareEncoder.frameSamples - Mp3ShareEncoder.encoderDelay - shares.sourceFrames
                try file.seek(toOffset: UInt64(tagSize))
                try file.write(contentsOf: infoFrame(padding: padding))
                if !tags.chapters.isEmpty {
                    let tag = ID3Tag.encode(tags)
                    guard tag.count == tagSize else { throw AudioError.fileFailed(path: path, reason: "the chapters' tag changed size") }
                    try file.seek(toOffset: 0)
                    try file.write(contentsOf: tag)
                }
                try file.synchronize()
                try file.close()
                self.file = nil
                guard AtomicFile.rename(temporaryPath, path) == 0 else { throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno))) }
            } catch {
                try? file.close()
                self.file = nil
                unlink(temporaryPath)
                if let error = error as? AudioError { throw error }
                throw AudioError.fileFailed(path: path, reason: error.localizedDescription)
            }
        }
    }

    public func discard() {
        lock.withLock {
            shares.discard()
            try? file?.close()
            file = nil
        }
        unlink(temporaryPath)
    }
}

/// Speech encoded into one share (an export worker's run of sentences), for `Mp3ExportFile` to
/// join: the narration player's thread writes, the worker's main thread finishes it once that is
/// done; the encoder itself is owned by a thread of its own, so it encodes while speech is made.
public final class Mp3ShareSink: PCMFileSink, Sendable {
    private let encoder: HandleOwner<Mp3ShareEncoder>
    private let written = Atomic<Int>(0)

    public init(bitrate: Int) throws { encoder = try .shareEncoder(named: "storyreader.mp3-share", bitrate: bitrate) }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try encoder.encode(samples)
        written.add(samples.count, ordering: .relaxed)
        return true
    }

    public var framesWritten: Int { written.load(ordering: .relaxed) }

    /// The share, as long in the file as whole frames allow (it is not the file's last).
    public func finish() throws -> EncodedMp3Share { try encoder.finish { try $0.finish() } }

    public func close() throws {}
    public func discard() {}
}
