import Foundation
import Synchronization

/// Writes speech to a WAV file (PCM 16-bit mono, 22050 Hz) as it comes: nothing but a small buffer
/// is held in memory; the header's sizes are patched when the file is closed.
///
/// The samples go to a hidden temporary file beside the target (`.NAME.PID-N.part`, see `AtomicFile.temporaryPath`), renamed to the
/// target only by ``close()``: an export that is stopped, fails or is killed never leaves a file
/// that looks whole. Past 4 GiB of samples a RIFF header cannot hold the sizes (they are 32-bit),
/// so the file is written as RF64 (EBU Tech 3306) — the format players use for long recordings.
public final class WAVFileSink: PCMFileSink {
    /// Only touched under the mutex, so the `FILE *` never crosses threads unguarded.
    private struct State: @unchecked Sendable {
        var file: UnsafeMutablePointer<FILE>?
        /// stdio's buffer for `file`, freed once it is closed.
        var buffer: UnsafeMutableRawPointer?
        var written = 0
        var behind = WriteBehind()
    }
    private let state: Mutex<State>
    /// Where the finished file goes.
    public let path: String
    /// Where it is written until then.
    public let temporaryPath: String
    /// Data bytes above which the file is written as RF64 (a parameter only for tests, which cannot
    /// write 4 GiB).
    let rf64Threshold: Int

    /// The most data bytes a canonical RIFF/WAVE header can describe (its RIFF size is 36 + data).
    public static let riffDataLimit = Int(UInt32.max) - 36
    static let bufferSize = 1 << 18

    public convenience init(path: String) throws {
        try self.init(path: path, rf64Threshold: Self.riffDataLimit)
    }

    init(path: String, rf64Threshold: Int) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = AtomicFile.temporaryPath(for: url.path)
        guard let file = fopen(temporary, "w+b") else {  // read too: RF64 moves the samples in place
            throw AudioError.fileFailed(path: path, reason: String(cString: strerror(errno)))
        }
        // Samples come 20 ms (882 bytes) at a time: with stdio's 4 KiB buffer a long story was
        // some 8,000 write calls; a quarter of a megabyte makes it a hundred or so. Set before
        // anything is written (stdio allows it only then), with a buffer of our own (glibc
        // ignores the size without one); freed after the file is closed.
        let buffer = malloc(Self.bufferSize)
        setvbuf(file, buffer?.assumingMemoryBound(to: CChar.self), _IOFBF, Self.bufferSize)
        self.path = path
        self.temporaryPath = temporary
        self.rf64Threshold = rf64Threshold
        state = Mutex(State(file: file, buffer: buffer))
        let header = Self.header(dataBytes: 0)
        let ok = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) == $0.count }
        if !ok {
            let reason = String(cString: strerror(errno))
            discard()
            throw AudioError.fileFailed(path: path, reason: reason)
        }
    }

    /// The header for `dataBytes` of samples: the 44-byte canonical WAV header, or past
    /// ``riffDataLimit`` the 80-byte RF64 header whose `ds64` chunk holds the 64-bit sizes.
    public static func header(dataBytes: Int) -> [UInt8] {
        dataBytes > riffDataLimit ? rf64Header(dataBytes: dataBytes) : riffHeader(dataBytes: dataBytes)
    }

    static func riffHeader(dataBytes: Int) -> [UInt8] {
        var bytes = HeaderBytes()
        bytes.text("RIFF")
        bytes.u32(36 + dataBytes)
        bytes.text("WAVE")
        bytes.formatChunk()
        bytes.text("data")
        bytes.u32(dataBytes)
        return bytes.bytes
    }

    /// EBU Tech 3306: `RF64`, sizes of 0xFFFFFFFF, and a `ds64` chunk right after `WAVE` with the
    /// RIFF size, the data size and the sample count in 64 bits.
    static func rf64Header(dataBytes: Int) -> [UInt8] {
        var bytes = HeaderBytes()
        bytes.text("RF64")
        bytes.u32(Int(UInt32.max))
        bytes.text("WAVE")
        bytes.text("ds64")
        bytes.u32(28)
        bytes.u64(72 + dataBytes)  // the whole file less the first 8 bytes
        bytes.u64(dataBytes)
        bytes.u64(dataBytes / (SpeechAudioFormat.channels * SpeechAudioFormat.bitsPerSample / 8))
        bytes.u32(0)  // no table of other chunks' sizes
        bytes.formatChunk()
        bytes.text("data")
        bytes.u32(Int(UInt32.max))
        return bytes.bytes
    }

    private struct HeaderBytes {
        var bytes: [UInt8] = []
        mutating func text(_ value: String) { bytes += Array(value.utf8) }
        mutating func u16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        mutating func u32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        mutating func u64(_ value: Int) { withUnsafeBytes(of: UInt64(value).littleEndian) { bytes += $0 } }
        mutating func formatChunk() {
            let rate = SpeechAudioFormat.sampleRate
            let blockAlign = SpeechAudioFormat.channels * SpeechAudioFormat.bitsPerSample / 8
            text("fmt ")
            u32(16)
            u16(1)
            u16(SpeechAudioFormat.channels)
            u32(rate)
            u32(rate * blockAlign)
            u16(blockAlign)
            u16(SpeechAudioFormat.bitsPerSample)
        }
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
            state.behind.wrote(upTo: 44 + state.written * 2, of: fileno(file)) { fflush(file) == 0 }
            return true
        }
    }

    public var framesWritten: Int { state.withLock { $0.written } }

    /// Finishes the header and renames the file to its target: only now does the target exist.
    public func close() throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            state.file = nil
            let dataBytes = state.written * 2
            var failed = fflush(file) != 0
            var header = Self.riffHeader(dataBytes: dataBytes)
            if dataBytes > rf64Threshold {
                // The RF64 header is 36 bytes longer: move the samples up, from the end, in place.
                failed = failed || !Self.shiftData(of: file, bytes: dataBytes, from: 44, by: 36)
                header = Self.rf64Header(dataBytes: dataBytes)
            }
            failed = failed || fseek(file, 0, SEEK_SET) != 0
            failed = failed || header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) != $0.count }
            failed = failed || fflush(file) != 0 || fsync(fileno(file)) != 0
            failed = (fclose(file) != 0) || failed
            free(state.buffer)
            state.buffer = nil
            if failed || AtomicFile.rename(temporaryPath, path) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporaryPath)
                throw AudioError.fileFailed(path: path, reason: reason)
            }
        }
    }

    /// Stops writing and removes what was written: the target is never created.
    public func discard() {
        state.withLock { state in
            if let file = state.file { fclose(file) }
            state.file = nil
            free(state.buffer)
            state.buffer = nil
        }
        unlink(temporaryPath)
    }

    /// Moves `bytes` bytes at `offset` up by `distance`, in 1 MiB blocks from the end.
    private static func shiftData(of file: UnsafeMutablePointer<FILE>, bytes: Int, from offset: Int, by distance: Int) -> Bool {
        let descriptor = fileno(file)
        let block = 1 << 20
        var buffer = [UInt8](repeating: 0, count: block)
        var remaining = bytes
        while remaining > 0 {
            let count = min(block, remaining)
            let start = offset + remaining - count
            let ok = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress, count, off_t(start)) == count
                    && pwrite(descriptor, raw.baseAddress, count, off_t(start + distance)) == count
            }
            guard ok else { return false }
            remaining -= count
        }
        return true
    }

    /// A sink dropped without `close()` (an error, a stop) leaves nothing behind.
    deinit { discard() }
}
