import CLame
import Foundation

/// Speech written as an MP3 file (LAME), for players that take no Opus: mono, 22050 Hz, constant
/// 48 kbit/s unless told otherwise, with our ID3v2.4 tag at the start (chapters included).
/// Players take the length from the constant bitrate: ffprobe gives it within 0.1 s (the
/// encoder's own delay and padding). Written under a hidden name beside the target and renamed
/// when whole. The encoder and the file are owned by a thread of their own (`HandleOwner`): made,
/// written, closed and freed there; a write waits its turn there.
public final class MP3FileSink: PCMFileSink {
    /// LAME's encoder and the file, on the owner's thread only.
    private final class Output {
        var encoder: OpaquePointer?
        var file: UnsafeMutablePointer<FILE>?
        var written = 0
        var tags: AudioTags
        let tagSize: Int

        init(path: String, temporary: String, bitrate: Int, tags: AudioTags) throws {
            let encoder = try MP3FileSink.encoder(bitrate: bitrate, path: path)
            guard let file = fopen(temporary, "w+b") else {
                lame_close(encoder)
                throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
            }
            let tag = ID3Tag.encode(tags)
            guard fwrite(tag, 1, tag.count, file) == tag.count else {
                let reason = String(cString: strerror(errno))
                lame_close(encoder)
                fclose(file)
                unlink(temporary)
                throw AudioError.fileFailed(path: path, reason: reason)
            }
            self.encoder = encoder
            self.file = file
            self.tags = tags
            tagSize = tag.count
        }

        /// Frees the encoder and the file if a `close` or `discard` has not.
        func release() {
            if let encoder { lame_close(encoder) }
            if let file { fclose(file) }
            encoder = nil
            file = nil
        }
    }

    private let output: HandleOwner<Output>
    public let path: String
    public let temporaryPath: String

    public static let defaultBitrate = 48

    public init(path: String, bitrate: Int = defaultBitrate, tags: AudioTags) throws {
        let temporary = AtomicFile.temporaryPath(for: URL(fileURLWithPath: path).path)
        output = try HandleOwner(
            name: "storyreader.mp3", open: { try Output(path: path, temporary: temporary, bitrate: bitrate, tags: tags) },
            free: { $0.release() })
        self.path = path
        self.temporaryPath = temporary
    }

    /// A LAME encoder of speech: mono at the speech's rate, `bitrate` kbit/s constant. `infoFrame`:
    /// whether LAME begins the stream with a frame for its Xing/Info tag (a file joined from
    /// shares has one tag of its own for the whole, see `Mp3ExportFile`).
    static func encoder(bitrate: Int, path: String, infoFrame: Bool = true) throws -> OpaquePointer {
        guard let encoder = lame_init() else { throw AudioError.fileFailed(path: path, reason: "out of memory") }
        lame_set_in_samplerate(encoder, Int32(SpeechAudioFormat.sampleRate))
        lame_set_out_samplerate(encoder, Int32(SpeechAudioFormat.sampleRate))
        lame_set_num_channels(encoder, 1)
        lame_set_mode(encoder, MONO)
        lame_set_brate(encoder, Int32(bitrate))
        // LAME's "good and fast" setting, and its fastest: in LAME 3.100 qualities 8 and 9 make the
        // very same bytes as 7 (measured on eSpeak's "Captain Nine and the Comet", 13:42 of speech,
        // 48 kbit/s: q7, q8 and q9 all 1.4 s of CPU, identical files). The slower q5 takes 2.7 s and
        // decodes no closer to the WAV (SNR 20.4 dB against q7's 23.7, segmental 19.8 against
        // 21.8; loudness 0.951 of the WAV's for both, the lowpass; lengths equal). The bitrate buys
        // little time: 32 kbit/s takes 1.35 s for 3 dB less SNR, 64 kbit/s 1.45 s for 1.2 dB more.
        lame_set_quality(encoder, 7)
        // The tag is written by us, first, before any audio; LAME writes none.
        lame_set_write_id3tag_automatic(encoder, 0)
        if !infoFrame { lame_set_bWriteVbrTag(encoder, 0) }
        guard lame_init_params(encoder) >= 0 else {
            lame_close(encoder)
            throw AudioError.fileFailed(path: path, reason: "LAME refused \(bitrate) kbit/s at 22050 Hz (use 8 to 160)")
        }
        return encoder
    }

    /// The chapters' times, known once the audio is made: written over the tag on `close`.
    public func setChapterTimes(_ chapters: [AudioChapter]) {
        _ = try? output.withHandle { $0.tags.chapters = chapters }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        let (path, block) = (self.path, Array(samples))
        return try output.withHandle { output in
            guard let encoder = output.encoder, let file = output.file else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            var bytes = [UInt8](repeating: 0, count: block.count * 5 / 4 + 7200)
            let count = lame_encode_buffer(encoder, block, block, Int32(block.count), &bytes, Int32(bytes.count))
            guard count >= 0 else { throw AudioError.fileFailed(path: path, reason: "LAME could not encode (\(count))") }
            if count > 0, fwrite(bytes, 1, Int(count), file) != Int(count) {
                throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
            }
            output.written += block.count
            return true
        }
    }

    public var framesWritten: Int { (try? output.withHandle { $0.written }) ?? 0 }

    /// Flushes the encoder and renames the file.
    public func close() throws {
        let (path, temporaryPath) = (self.path, self.temporaryPath)
        defer { output.shutDown() }
        try output.withHandle { output in
            guard let encoder = output.encoder, let file = output.file else { return }
            output.encoder = nil
            output.file = nil
            var bytes = [UInt8](repeating: 0, count: 7200)
            let count = lame_encode_flush(encoder, &bytes, Int32(bytes.count))
            var failed = count < 0 || (count > 0 && fwrite(bytes, 1, Int(count), file) != Int(count))
            lame_close(encoder)
            // The tag again, with the chapters' times: the same size, over the first one.
            let tag = ID3Tag.encode(output.tags)
            if !output.tags.chapters.isEmpty {
                failed = failed || tag.count != output.tagSize || fseek(file, 0, SEEK_SET) != 0 || fwrite(tag, 1, tag.count, file) != tag.count
            }
            failed = failed || fflush(file) != 0 || fsync(fileno(file)) != 0
            failed = (fclose(file) != 0) || failed
            if failed || AtomicFile.rename(temporaryPath, path) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporaryPath)
                throw AudioError.fileFailed(path: path, reason: reason)
            }
        }
    }

    /// Stops and removes what was written: the target is never created.
    public func discard() {
        output.shutDown()
        unlink(temporaryPath)
    }
}
