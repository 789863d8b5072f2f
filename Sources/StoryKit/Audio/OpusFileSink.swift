import COpusEnc
import Foundation
import Synchronization

/// Speech written as an Ogg Opus file (libopusenc): mono, 24 kbit/s unless told otherwise, with
/// Vorbis comments for the tags and chapters. Like `WAVFileSink`, it writes under a hidden name
/// beside the target and renames the file only when it is whole.
public final class OpusFileSink: PCMFileSink {
    private struct State: @unchecked Sendable {
        var encoder: OpaquePointer?
        var written = 0
    }
    private let state: Mutex<State>
    public let path: String
    public let temporaryPath: String

    public static let defaultBitrate = 24_000

    /// - Parameter comments: Vorbis comments in order (`TITLE`, `ARTIST`, `CHAPTER001`, …).
    public init(path: String, bitrate: Int = defaultBitrate, comments: [(String, String)] = []) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).part").path
        guard let tags = ope_comments_create() else { throw AudioError.fileFailed(path: path, reason: "out of memory") }
        defer { ope_comments_destroy(tags) }
        for (tag, value) in comments { ope_comments_add(tags, tag, value) }
        var error: Int32 = 0
        // libopusenc resamples eSpeak NG's 22050 Hz itself (Opus runs at 48 kHz).
        guard let encoder = ope_encoder_create_file(temporary, tags, Int32(SpeechAudioFormat.sampleRate), 1, 0, &error) else {
            throw AudioError.fileFailed(path: path, reason: String(cString: ope_strerror(error)))
        }
        copusenc_set_voice(encoder)
        copusenc_set_complexity(encoder, 3)
        if copusenc_set_bitrate(encoder, Int32(bitrate)) != OPE_OK {
            ope_encoder_destroy(encoder)
            unlink(temporary)
            throw AudioError.fileFailed(path: path, reason: "the bitrate \(bitrate) is not one Opus takes (500 to 512000 bit/s)")
        }
        self.path = path
        self.temporaryPath = temporary
        state = Mutex(State(encoder: encoder))
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try state.withLock { state in
            guard let encoder = state.encoder else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            let status = ope_encoder_write(encoder, samples.baseAddress, Int32(samples.count))
            if status != OPE_OK { throw AudioError.fileFailed(path: path, reason: String(cString: ope_strerror(status))) }
            state.written += samples.count
            return true
        }
    }

    public var framesWritten: Int { state.withLock { $0.written } }

    /// Finishes the stream and renames the file to its target.
    public func close() throws {
        try state.withLock { state in
            guard let encoder = state.encoder else { return }
            state.encoder = nil
            let status = ope_encoder_drain(encoder)
            ope_encoder_destroy(encoder)
            if status != OPE_OK || rename(temporaryPath, path) != 0 {
                let reason = status != OPE_OK ? String(cString: ope_strerror(status)) : String(cString: strerror(errno))
                unlink(temporaryPath)
                throw AudioError.fileFailed(path: path, reason: reason)
            }
        }
    }

    /// Stops and removes what was written: the target is never created.
    public func discard() {
        state.withLock { state in
            if let encoder = state.encoder { ope_encoder_destroy(encoder) }
            state.encoder = nil
        }
        unlink(temporaryPath)
    }
}
