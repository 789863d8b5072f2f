import CLame
import Foundation
import Synchronization

/// Speech written as an MP3 file (LAME), for players that take no Opus: mono, 22050 Hz, constant
/// 48 kbit/s unless told otherwise, with our ID3v2.4 tag at the start (chapters included).
/// Players take the length from the constant bitrate: ffprobe gives it within 0.1 s (the
/// encoder's own delay and padding). Written under a hidden name beside the target and renamed
/// when whole.
public final class MP3FileSink: PCMFileSink {
    private struct State: @unchecked Sendable {
        var encoder: OpaquePointer?
        var file: UnsafeMutablePointer<FILE>?
        var written = 0
        var tags: AudioTags
        var tagSize: Int
    }
    private let state: Mutex<State>
    public let path: String
    public let temporaryPath: String

    public static let defaultBitrate = 48

    public init(path: String, bitrate: Int = defaultBitrate, tags: AudioTags) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = AtomicFile.temporaryPath(for: url.path)
        let encoder = try Self.encoder(bitrate: bitrate, path: path)
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
        self.path = path
        self.temporaryPath = temporary
        state = Mutex(State(encoder: encoder, file: file, tags: tags, tagSize: tag.count))
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
        state.withLock { $0.tags.chapters = chapters }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try state.withLock { state in
            guard let encoder = state.encoder, let file = state.file else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            var output = [UInt8](repeating: 0, count: samples.count * 5 / 4 + 7200)
            let count = lame_encode_buffer(encoder, samples.baseAddress, samples.baseAddress, Int32(samples.count), &output, Int32(output.count))
            guard count >= 0 else { throw AudioError.fileFailed(path: path, reason: "LAME could not encode (\(count))") }
            if count > 0, fwrite(output, 1, Int(count), file) != Int(count) {
                throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
            }
            state.written += samples.count
            return true
        }
    }

    public var framesWritten: Int { state.withLock { $0.written } }

    /// Flushes the encoder and renames the file.
    public func close() throws {
        try state.withLock { state in
            guard let encoder = state.encoder, let file = state.file else { return }
            state.encoder = nil
            state.file = nil
            var output = [UInt8](repeating: 0, count: 7200)
            let count = lame_encode_flush(encoder, &output, Int32(output.count))
            var failed = count < 0 || (count > 0 && fwrite(output, 1, Int(count), file) != Int(count))
            lame_close(encoder)
            // The tag again, with the chapters' times: the same size, over the first one.
            let tag = ID3Tag.encode(state.tags)
            if !state.tags.chapters.isEmpty {
                failed = failed || tag.count != state.tagSize || fseek(file, 0, SEEK_SET) != 0 || fwrite(tag, 1, tag.count, file) != tag.count
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
        state.withLock { state in
            if let encoder = state.encoder { lame_close(encoder) }
            if let file = state.file { fclose(file) }
            state.encoder = nil
            state.file = nil
        }
        unlink(temporaryPath)
    }
}
