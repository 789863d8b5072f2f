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
        var chapters: [AudioChapter]
    }
    private let state: Mutex<State>
    public let path: String
    public let temporaryPath: String

    public static let defaultBitrate = 24_000

    public init(path: String, bitrate: Int = defaultBitrate, tags: AudioTags) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = AtomicFile.temporaryPath(for: url.path)
        guard tags.chapters.count <= AudioTags.mostChapters else {
            throw AudioError.fileFailed(path: path, reason: "\(tags.chapters.count) chapters are more than an Ogg file can name (\(AudioTags.mostChapters))")
        }
        guard let comments = ope_comments_create() else { throw AudioError.fileFailed(path: path, reason: "out of memory") }
        defer { ope_comments_destroy(comments) }
        for (tag, value) in Self.comments(tags) { ope_comments_add(comments, tag, value) }
        var error: Int32 = 0
        // libopusenc resamples eSpeak NG's 22050 Hz itself (Opus runs at 48 kHz).
        guard let encoder = ope_encoder_create_file(temporary, comments, Int32(SpeechAudioFormat.sampleRate), 1, 0, &error) else {
            throw AudioError.fileFailed(path: path, reason: String(cString: ope_strerror(error)))
        }
        copusenc_set_voice(encoder)
        copusenc_set_complexity(encoder, 3)
        copusenc_set_frame_duration_60ms(encoder)
        if copusenc_set_bitrate(encoder, Int32(bitrate)) != OPE_OK {
            ope_encoder_destroy(encoder)
            unlink(temporary)
            throw AudioError.fileFailed(path: path, reason: "the bitrate \(bitrate) is not one Opus takes (500 to 512000 bit/s)")
        }
        self.path = path
        self.temporaryPath = temporary
        state = Mutex(State(encoder: encoder, chapters: tags.chapters))
    }

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

    /// The chapters' times, known once the audio is made: written into the comments on `close`.
    public func setChapterTimes(_ chapters: [AudioChapter]) {
        state.withLock { $0.chapters = chapters }
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
            do {
                if status == OPE_OK, !state.chapters.isEmpty {
                    try OggCommentPatch.apply(
                        state.chapters.enumerated().map { (Self.chapterKey($0) + "=", Self.chapterTime(0), Self.chapterTime($1.start)) },
                        toFileAt: temporaryPath)
                }
            } catch {
                unlink(temporaryPath)
                throw error
            }
            if status != OPE_OK || AtomicFile.rename(temporaryPath, path) != 0 {
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
