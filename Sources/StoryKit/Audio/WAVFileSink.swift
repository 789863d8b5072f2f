import Foundation
import Synchronization

/// Writes speech to a WAV file (RIFF, PCM 16-bit mono, 22050 Hz) as it comes: nothing but a small
/// buffer is held in memory; the header's sizes are patched when the file is closed.
public final class WAVFileSink: PCMSink {
    /// Only touched under the mutex, so the `FILE *` never crosses threads unguarded.
    private struct State: @unchecked Sendable {
        var file: UnsafeMutablePointer<FILE>?
        var written = 0
    }
    private let state: Mutex<State>
    public let path: String

    public init(path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        state = Mutex(State(file: file))
        let header = Self.header(dataBytes: 0)
        let ok = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) == $0.count }
        if !ok { throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno))) }
    }

    /// The 44-byte canonical WAV header for `dataBytes` of samples.
    public static func header(dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func text(_ value: String) { bytes += Array(value.utf8) }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        let rate = SpeechAudioFormat.sampleRate
        let blockAlign = SpeechAudioFormat.channels * SpeechAudioFormat.bitsPerSample / 8
        text("RIFF"); u32(36 + dataBytes); text("WAVE")
        text("fmt "); u32(16); u16(1); u16(SpeechAudioFormat.channels); u32(rate); u32(rate * blockAlign)
        u16(blockAlign); u16(SpeechAudioFormat.bitsPerSample)
        text("data"); u32(dataBytes)
        return bytes
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try state.withLock { state in
            guard let file = state.file else { throw AudioError.fileFailed(path: path, reason: "already closed") }
            let count: Int
            #if _endian(little)
            count = fwrite(samples.baseAddress, 2, samples.count, file)
            #else
            let swapped = samples.map { $0.littleEndian }
            count = swapped.withUnsafeBufferPointer { fwrite($0.baseAddress, 2, $0.count, file) }
            #endif
            state.written += count
            if count != samples.count { throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno))) }
            return true
        }
    }

    public var framesWritten: Int { state.withLock { $0.written } }
    public var framesPlayed: Int { framesWritten }
    public func interrupt() {}
    public func drop() {}
    public func drain() throws {}
    public var isRealTime: Bool { false }
    public var bufferFrames: Int { 0 }

    public func close() throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            state.file = nil
            let header = Self.header(dataBytes: state.written * 2)
            var failed = fflush(file) != 0 || fseek(file, 0, SEEK_SET) != 0
            failed = failed || header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) != $0.count }
            failed = (fclose(file) != 0) || failed
            if failed { throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno))) }
        }
    }

    deinit { try? close() }
}
