import COpusEnc
import Foundation
import Synchronization

/// One share of a story's speech encoded as Opus packets on the core that made it, ready to be
/// joined to the others into one Ogg Opus stream (`OpusExportFile`).
///
/// Each share has its own encoder. An encoder's first packet starts with `preSkip` samples of its
/// warm-up, and its last packet is padded to a whole frame: joined as they are, every share would
/// begin that much later than in the WAV. So a share that is not the file's last ends on a whole
/// frame of the stream: its trailing silence (a sentence's pause) is shortened to the frame at or
/// before its end (by less than 20 ms), and the next share's warm-up plays in place of the last
/// `preSkip` samples of that silence. The stream then has one pre-skip, granule positions that
/// count every packet, and the joins fall in silence; the file's last share is padded so that
/// the whole is as long as its samples.
public struct EncodedShare: Sendable {
    /// The Opus packets, in order.
    public var packets: [[UInt8]]
    /// How long the share lasts in the file, in frames of `SpeechAudioFormat.sampleRate`: whole
    /// Opus frames for a share that is not the last, which may differ from `sourceFrames` by
    /// less than a frame (20 ms).
    public var frames: Int
    /// The samples the share was made from.
    public var sourceFrames: Int

    public init(packets: [[UInt8]], frames: Int, sourceFrames: Int) {
        self.packets = packets
        self.frames = frames
        self.sourceFrames = sourceFrames
    }
}

/// The encoder of one share: eSpeak NG's speech made 16 kHz (`SpeechResampler`) and coded by
/// libopus in CELT mode, wideband, complexity 0, a packet each 20 ms (see `complexity`).
///
/// A packet whose 20 ms, and the 20 ms each side, are digital silence (a pause between
/// sentences is zeros) is not encoded: a silent packet made once stands in for it, and the
/// encoder starts afresh after the pause. That is what the encoder would have sent (a CELT frame
/// of zeros is a silence flag, and after one both sides hold the same state), at none of the
/// cost: eSpeak NG's speech is about a quarter pauses, and coding a frame of silence costs four
/// fifths of coding one of speech.
/// Owned by a thread of its own (`HandleOwner`: an export file's current share, or a worker's
/// `OpusShareSink`).
final class OpusShareEncoder: ShareEncoding {
    /// Opus frames of 20 ms (CELT's longest), in samples at 48 kHz and at 16 kHz.
    static let frameSamples48k = 960
    static let frameSamples = 320
    /// Samples of 48 kHz a frame of the speech's rate stands for.
    static let rate = SpeechAudioFormat.sampleRate
    /// A sample this close to zero is silence (the pause eSpeak NG leaves after a sentence is zeros).
    static let silenceLevel: Int16 = 32
    /// The tail kept back from the encoder until the share's end is known, so that its silence can
    /// be shortened: a frame and a pre-skip with room to spare.
    static let heldBack = 4096

    /// libopus's effort, 0–10. At 24 kbit/s SILK (libopus's speech coder) cost four times eSpeak
    /// NG's synthesis of the same speech, even at complexity 0; CELT a fifth of that. eSpeak NG's
    /// formant voice has no breath or room for SILK's noise shaping to save, and CELT at 24
    /// kbit/s over 0–8 kHz keeps every word clear. CELT's higher complexities add a pitch
    /// pre-filter and finer spreading and time-frequency choices: 5 costs twice 0, with no
    /// difference in the decoded speech's error (13.5 dB against 13.9 dB on "Captain Nine").
    static let complexity = 0

    private let encoder: OpaquePointer
    private var resampler = SpeechResampler()
    /// Speech at the speech's rate not yet resampled (the held-back tail).
    private var pending: [Int16] = []
    /// Resampled speech not yet encoded: whole frames wait for the one after them.
    private var resampled: [Float] = []
    private var packets: [[UInt8]] = []
    /// What stands for a frame of silence, and whether the last frame was silence or was left out.
    private let silentPacket: [UInt8]
    private var previousSilent = true
    private var skipped = false
    private(set) var sourceFrames = 0
    /// The decoder's warm-up at the start of every stream (the encoder's look-ahead), at 48 kHz.
    let preSkip: Int

    init(bitrate: Int) throws {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(SpeechResampler.outputRate), 1, OPUS_APPLICATION_RESTRICTED_LOWDELAY, &error) else {
            throw AudioError.fileFailed(path: "Opus", reason: String(cString: opus_strerror(error)))
        }
        self.encoder = encoder
        guard copus_set_bitrate(encoder, Int32(bitrate)) == OPUS_OK else {
            opus_encoder_destroy(encoder)
            throw AudioError.fileFailed(path: "Opus", reason: "the bitrate \(bitrate) is not one Opus takes (500 to 512000 bit/s)")
        }
        copus_set_complexity(encoder, Int32(Self.complexity))
        preSkip = Int(copus_lookahead(encoder)) * 48_000 / SpeechResampler.outputRate
        let zeros = [Float](repeating: 0, count: Self.frameSamples)
        silentPacket = Self.encode(encoder, zeros[...]) ?? []
        copus_reset(encoder)
        guard !silentPacket.isEmpty else {
            opus_encoder_destroy(encoder)
            throw AudioError.fileFailed(path: "Opus", reason: "libopus could not encode silence")
        }
    }

    deinit { opus_encoder_destroy(encoder) }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        pending.append(contentsOf: samples)
        sourceFrames += samples.count
        if pending.count > 2 * Self.heldBack {
            try feed(pending.count - Self.heldBack)
        }
    }

    /// Ends the share. Not the last (`wantedFrames == nil`): it ends on a whole frame, its trailing
    /// silence shortened or lengthened to the nearest. The last: `wantedFrames` long, padded with
    /// silence (or its trailing silence shortened) to that, with `endGranule` for the stream's end.
    func finish(wantedFrames: Int? = nil) throws -> (share: EncodedShare, contentSamples48k: Int) {
        let silence = pending.reversed().prefix { abs(Int($0)) <= Int(Self.silenceLevel) }.count
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
        resampler.finish(into: &resampled)
        // Frames up to the fed speech and the look-ahead, the last padded with silence; the
        // share's end counts as silence after it (the next share's encoder starts afresh).
        let covered = resampler.produced + preSkip * SpeechResampler.outputRate / 48_000
        let frames = (covered + Self.frameSamples - 1) / Self.frameSamples
        try encodeFrames(final: true, upTo: frames)
        let fed = fedFrames
        let decoded = packets.reduce(0) { $0 + Self.samples(in: $1) }
        let length = wantedFrames == nil ? decoded * Self.rate / 48_000 : fed
        return (EncodedShare(packets: packets, frames: length, sourceFrames: sourceFrames), Self.samples48k(fed))
    }

    /// Samples at 48 kHz for `frames` at the speech's rate: three for each one the resampler makes.
    static func samples48k(_ frames: Int) -> Int { 3 * SpeechResampler.outputCount(for: frames) }

    /// How many samples of the trailing `silence` to leave out so that the share ends on a frame
    /// of the stream: the encoder makes frames up to the fed audio and its pre-skip. The frame at
    /// or before its true end when the silence allows (the pause shortened by less than a frame),
    /// so that the file never runs longer than its samples and the last share pads it to its
    /// exact length; the next frame when not.
    private func trimmedForWholeFrames(silence: Int) -> Int {
        let frame = Self.frameSamples48k
        let total = fedFrames + pending.count
        let trueEnd = Self.samples48k(total)
        var best = 0
        var bestFrames = Int.max
        for trim in 0...min(silence, pending.count) {
            let covered = Self.samples48k(total - trim) + preSkip
            let frames = (covered + frame - 1) / frame * frame
            if frames <= trueEnd { return trim }
            if frames < bestFrames {
                best = trim
                bestFrames = frames
            }
        }
        return best
    }

    private var fedFrames = 0
    /// Frames of 16 kHz encoded (or left out as silence) so far, and where `resampled` starts.
    private var encodedFrames = 0

    private func feed(_ count: Int) throws {
        guard count > 0 else { return }
        pending.withUnsafeBufferPointer { resampler.append(UnsafeBufferPointer(rebasing: $0[..<count]), to: &resampled) }
        pending.removeFirst(count)
        fedFrames += count
        try encodeFrames(final: false, upTo: nil)
    }

    /// Encodes the whole frames in `resampled`, each once the one after it is there (or, at the
    /// end, up to `upTo` frames in all, silence after them).
    private func encodeFrames(final: Bool, upTo total: Int?) throws {
        let size = Self.frameSamples
        var offset = 0
        while true {
            if let total, encodedFrames >= total { break }
            let available = resampled.count - offset
            guard available >= (final ? size : 2 * size) else {
                if final, let total, encodedFrames < total {
                    // The last frames: padded with silence.
                    resampled += [Float](repeating: 0, count: size - available)
                    continue
                }
                break
            }
            let frame = resampled[offset..<(offset + size)]
            let silent = frame.allSatisfy { $0 == 0 }
            let nextSilent = available >= 2 * size ? resampled[(offset + size)..<(offset + 2 * size)].allSatisfy { $0 == 0 } : true
            if silent, previousSilent, nextSilent {
                packets.append(silentPacket)
                skipped = true
            } else {
                if skipped {
                    // After a pause left out, the encoder starts afresh from silence.
                    copus_reset(encoder)
                    skipped = false
                }
                guard let packet = Self.encode(encoder, frame) else {
                    throw AudioError.fileFailed(path: "Opus", reason: "libopus could not encode")
                }
                packets.append(packet)
            }
            previousSilent = silent
            offset += size
            encodedFrames += 1
        }
        resampled.removeFirst(offset)
    }

    private static func encode(_ encoder: OpaquePointer, _ frame: ArraySlice<Float>) -> [UInt8]? {
        var packet = [UInt8](repeating: 0, count: 1_275)
        let length = frame.withUnsafeBufferPointer { samples in
            opus_encode_float(encoder, samples.baseAddress!, Int32(samples.count), &packet, Int32(packet.count))
        }
        guard length > 0 else { return nil }
        packet.removeSubrange(Int(length)...)
        return packet
    }

    /// Samples (at 48 kHz) a packet decodes to.
    static func samples(in packet: [UInt8]) -> Int {
        Int(packet.withUnsafeBufferPointer { opus_packet_get_nb_samples($0.baseAddress!, Int32($0.count), 48_000) })
    }
}

/// An Ogg Opus file made of shares encoded apart (`EncodedShare`) and of speech written to it
/// (encoded a share at a time, each on a thread of its own): one logical stream, one pre-skip, granule positions counting
/// every packet, the tags and chapters in its comments. Written beside its target and renamed
/// when whole, as `WAVFileSink` does.
public final class OpusExportFile: PCMFileSink, @unchecked Sendable {
    // One thread writes at a time (the narration player's, then the one joining the workers'
    // shares); the lock makes the hand-over between them safe. The encoders are not under it:
    // each is owned by a thread of its own (`JoinedShares`).
    private let lock = NSLock()
    public let path: String
    public let temporaryPath: String
    /// Bits a second, as the encoders are told.
    public let bitrate: Int
    /// Speech at 24 kbit/s unless told otherwise.
    public static let defaultBitrate = 24_000
    private let tags: AudioTags
    private var chapters: [AudioChapter]
    private var file: FileHandle?
    private var pages: OggPageWriter
    /// The shares: this file's own (speech written here, encoded on a thread of its own) and the
    /// workers'.
    private var shares: JoinedShares<OpusShareEncoder>
    /// The file's length so far in decoded samples at 48 kHz (the packets written).
    private var decoded48k = 0
    private var headerWritten = false
    /// Every share encoder's look-ahead at 48 kHz (CELT's 2.5 ms), as the first one to finish says.
    private var preSkip = 120

    /// Vorbis comments in order: the tags, then the chapters (times as placeholders of their
    /// final width, written on `close`).
    static func comments(_ tags: AudioTags) -> [(String, String)] {
        var comments = [("TITLE", tags.title)]
        if let artist = tags.artist, !artist.isEmpty { comments.append(("ARTIST", artist)) }
        comments += [("ALBUM", tags.album), ("LANGUAGE", tags.language)]
        if let licence = tags.licence, !licence.isEmpty { comments.append(("LICENSE", licence)) }
        comments.append(("ENCODER", "storyreader"))
        for (index, chapter) in tags.chapters.enumerated() {
            comments.append((chapterKey(index), chapterTime(0)))
            comments.append((chapterKey(index) + "NAME", chapter.title))
        }
        return comments
    }

    static func chapterKey(_ index: Int) -> String { String(format: "CHAPTER%03d", index + 1) }

    /// `HH:MM:SS.mmm`, as the Ogg chapter extension writes a start.
    static func chapterTime(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    public init(path: String, bitrate: Int = OpusExportFile.defaultBitrate, tags: AudioTags) throws {
        temporaryPath = AtomicFile.temporaryPath(for: path)
        guard tags.chapters.count <= AudioTags.mostChapters else {
            throw AudioError.fileFailed(path: path, reason: "\(tags.chapters.count) chapters are more than an Ogg file can name (\(AudioTags.mostChapters))")
        }
        guard (500...512_000).contains(bitrate) else {
            throw AudioError.fileFailed(path: path, reason: "the bitrate \(bitrate) is not one Opus takes (500 to 512000 bit/s)")
        }
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil), let handle = FileHandle(forWritingAtPath: temporaryPath) else {
            throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        self.bitrate = bitrate
        shares = JoinedShares(bitrate: bitrate, label: "storyreader.opus-export")
        self.tags = tags
        chapters = tags.chapters
        file = handle
        pages = OggPageWriter(serial: UInt32.random(in: 1...UInt32.max))
    }

    public var framesWritten: Int { lock.withLock { shares.framesWritten } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try lock.withLock {
            guard file != nil else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            try shares.write(samples)
            return true
        }
    }

    /// Ends what was written directly as a share (on a whole frame) and returns the file's length
    /// in frames: where the next share begins.
    public func sealShare() throws -> Int {
        try lock.withLock {
            try sealCurrent()
            return shares.timeline
        }
    }

    /// Appends a share encoded elsewhere, after what the file holds.
    public func append(_ share: EncodedShare) throws {
        try lock.withLock {
            try sealCurrent()
            try writePackets(share.packets)
            shares.timeline += share.frames
            shares.appended(sourceFrames: share.sourceFrames)
        }
    }

    private func sealCurrent() throws {
        guard let sealed = try shares.finishCurrent({ encoder in (share: try encoder.finish().share, preSkip: encoder.preSkip) }) else { return }
        let encoded = sealed.share
        preSkip = sealed.preSkip
        try writePackets(encoded.packets)
        shares.timeline += encoded.frames
    }

    private func writePackets(_ packets: [[UInt8]], endGranule: Int? = nil) throws {
        try writeHeaderIfNeeded()
        for (index, packet) in packets.enumerated() {
            decoded48k += OpusShareEncoder.samples(in: packet)
            let last = endGranule != nil && index == packets.count - 1
            try emit(pages.add(packet, granule: last ? endGranule! : decoded48k, endOfStream: last))
        }
    }

    private func writeHeaderIfNeeded() throws {
        guard !headerWritten else { return }
        headerWritten = true
        var head = Array("OpusHead".utf8) + [1, 1]
        head += [UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
        let rate = UInt32(SpeechAudioFormat.sampleRate)
        head += [UInt8(rate & 0xFF), UInt8(rate >> 8 & 0xFF), UInt8(rate >> 16 & 0xFF), UInt8(rate >> 24)]
        head += [0, 0, 0]  // output gain, channel mapping family 0
        try emit(pages.add(head, granule: 0, beginningOfStream: true))
        try emit(pages.flush())
        var comments = Self.littleEndian(Self.vendor.utf8.count) + Array(Self.vendor.utf8)
        let list = Self.comments(tags)
        comments += Self.littleEndian(list.count)
        for (key, value) in list {
            let text = Array("\(key)=\(value)".utf8)
            comments += Self.littleEndian(text.count) + text
        }
        try emit(pages.add(Array("OpusTags".utf8) + comments, granule: 0))
        try emit(pages.flush())
    }

    private static let vendor = "storyreader (libopus \(String(cString: opus_get_version_string())))"

    private static func littleEndian(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    private func emit(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty, let file else { return }
        try file.write(contentsOf: bytes)
    }

    public func setChapterTimes(_ chapters: [AudioChapter]) {
        lock.withLock { self.chapters = chapters }
    }

    /// Ends the stream, as long as everything given (a last share of silence, or the last one
    /// written directly, padded or shortened to that), and renames the file to its target.
    public func close() throws {
        try lock.withLock {
            guard let file else { return }
            do {
                let wanted = max(0, shares.sourceFrames - shares.timeline)
                let (encoded, content, lastPreSkip) = try shares.finishLast { last in
                    let (encoded, content) = try last.finish(wantedFrames: wanted)
                    return (encoded, content, last.preSkip)
                }
                preSkip = lastPreSkip
                try writePackets(encoded.packets, endGranule: decoded48k + preSkip + content)
                shares.timeline += encoded.frames
                try emit(pages.flush())
                try file.close()
                self.file = nil
                if !chapters.isEmpty {
                    try OggCommentPatch.apply(
                        chapters.enumerated().map { (Self.chapterKey($0) + "=", Self.chapterTime(0), Self.chapterTime($1.start)) },
                        toFileAt: temporaryPath)
                }
                guard rename(temporaryPath, path) == 0 else { throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno))) }
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

/// Packs packets into Ogg pages (RFC 3533) of one logical stream: a page is sent when it holds
/// about a second of packets or 255 segments; a packet longer than a page continues on the next.
struct OggPageWriter {
    let serial: UInt32
    private var sequence: UInt32 = 0
    private var segments: [UInt8] = []
    private var body: [UInt8] = []
    /// The granule position of the last packet that ends on the page being filled, if one does.
    private var granule: Int?
    private var continued = false
    private var beginning = false
    private var packetsOnPage = 0

    init(serial: UInt32) { self.serial = serial }

    /// Adds a packet whose end is at `granule`; returns the pages it completed (bytes to write).
    mutating func add(_ packet: [UInt8], granule packetGranule: Int, beginningOfStream: Bool = false, endOfStream: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        if beginningOfStream { beginning = true }
        var offset = 0
        repeat {
            if segments.count == 255 { out += page(last: false) }
            let lacing = min(255, packet.count - offset)
            segments.append(UInt8(lacing))
            body += packet[offset..<(offset + lacing)]
            offset += lacing
            if lacing < 255 { break }
            if offset == packet.count {
                // A packet of a multiple of 255 bytes ends with a lacing value of 0.
                if segments.count == 255 { out += page(last: false) }
                segments.append(0)
                break
            }
        } while true
        granule = packetGranule
        packetsOnPage += 1
        if endOfStream {
            out += page(last: true)
        } else if packetsOnPage >= 50 || body.count >= 4096 {
            out += page(last: false)
        }
        return out
    }

    /// The page being filled, sent now.
    mutating func flush() -> [UInt8] {
        segments.isEmpty ? [] : page(last: false)
    }

    private mutating func page(last: Bool) -> [UInt8] {
        // A page on which no packet ends has granule position -1.
        let ends = segments.last.map { $0 < 255 } ?? false
        let position = UInt64(bitPattern: Int64(granule ?? -1))
        var header: [UInt8] = Array("OggS".utf8) + [0]
        header.append((continued ? 1 : 0) | (beginning ? 2 : 0) | (last ? 4 : 0))
        for shift in stride(from: 0, to: 64, by: 8) { header.append(UInt8(position >> UInt64(shift) & 0xFF)) }
        for value in [serial, sequence] { for shift in stride(from: 0, to: 32, by: 8) { header.append(UInt8(value >> UInt32(shift) & 0xFF)) } }
        header += [0, 0, 0, 0, UInt8(segments.count)]
        var bytes = header + segments + body
        let crc = OggCommentPatch.crc32(bytes[...])
        for (index, shift) in stride(from: 0, to: 32, by: 8).enumerated() { bytes[22 + index] = UInt8(crc >> UInt32(shift) & 0xFF) }
        continued = !ends
        beginning = false
        sequence += 1
        segments.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: true)
        packetsOnPage = 0
        granule = nil
        return bytes
    }
}

/// Speech encoded into one share (an export worker's run of sentences), for `OpusExportFile` to
/// join: the narration player's thread writes, the worker's main thread finishes it once that is
/// done; the encoder itself is owned by a thread of its own, so it encodes while speech is made.
public final class OpusShareSink: PCMFileSink, Sendable {
    private let encoder: HandleOwner<OpusShareEncoder>
    private let written = Atomic<Int>(0)

    public init(bitrate: Int) throws { encoder = try .shareEncoder(named: "storyreader.opus-share", bitrate: bitrate) }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try encoder.encode(samples)
        written.add(samples.count, ordering: .relaxed)
        return true
    }

    public var framesWritten: Int { written.load(ordering: .relaxed) }

    /// The share, ending on a whole frame (it is not the file's last).
    public func finish() throws -> EncodedShare { try encoder.finish { try $0.finish().share } }

    public func close() throws {}
    public func discard() {}
}
