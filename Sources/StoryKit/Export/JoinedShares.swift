import Foundation
import Synchronization

/// Speech written to an export file directly is encoded on a thread of its own, so that a
/// one-process export encodes on the core its synthesis leaves idle (`OpusExportFile`,
/// `Mp3ExportFile`). `room` bounds what waits for it (blocks of the narration player's, a few
/// seconds of speech); the first error there is thrown by the next `submit` or by `drain`.
final class EncodingQueue: Sendable {
    private let queue: DispatchQueue
    private let room = DispatchSemaphore(value: 64)
    private let failure = Mutex<(any Error)?>(nil)

    init(label: String) { queue = DispatchQueue(label: label) }

    /// Queues a copy of `samples` for `encode`, after what was queued before.
    func submit(_ samples: UnsafeBufferPointer<Int16>, to encode: @escaping @Sendable (UnsafeBufferPointer<Int16>) throws -> Void) throws {
        if let failure = failure.withLock({ $0 }) { throw failure }
        let block = Array(samples)
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            do { try block.withUnsafeBufferPointer { try encode($0) } } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Waits for what was queued to be encoded; throws what went wrong there.
    func drain() throws {
        queue.sync {}
        if let failure = failure.withLock({ $0 }) { throw failure }
    }
}

/// A share encoder of a joined export file (`OpusShareEncoder`, `Mp3ShareEncoder`): one encoder
/// for one run of speech, used by one thread at a time.
protocol ShareEncoding: AnyObject, Sendable {
    init(bitrate: Int) throws
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
}

/// What every joined export file (`OpusExportFile`, `Mp3ExportFile`) keeps the same way: the
/// speech written to the file directly goes to the current share's encoder through an encoding
/// queue; shares encoded elsewhere (workers') come after it. The file says how a finished share is
/// written; this counts the file's length so far (`timeline`, shares whole, in frames of the
/// speech's rate) and the samples given in all (`sourceFrames`, the length the file should have).
/// Used under its file's lock.
struct JoinedShares<Encoder: ShareEncoding> {
    let bitrate: Int
    private let encoding: EncodingQueue
    private var current: Encoder?
    private var currentFrames = 0
    var timeline = 0
    var sourceFrames = 0

    init(bitrate: Int, label: String) {
        self.bitrate = bitrate
        encoding = EncodingQueue(label: label)
    }

    /// The file's length in frames with what is still being encoded.
    var framesWritten: Int { timeline + currentFrames }

    /// Speech written to the file directly, into the current share (begun if there is none).
    mutating func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        let encoder = try current ?? Encoder(bitrate: bitrate)
        current = encoder
        try encoding.submit(samples) { try encoder.write($0) }
        currentFrames += samples.count
        sourceFrames += samples.count
    }

    /// The current share's encoder with everything queued for it encoded, to be finished and
    /// written by the file; nil when nothing was written directly since the last one.
    mutating func takeCurrent() throws -> Encoder? {
        guard let encoder = current else { return nil }
        try encoding.drain()
        current = nil
        currentFrames = 0
        return encoder
    }

    /// The file's last share: the current one, or a fresh one when the file ends on a share from
    /// elsewhere (it is then silence, padding the file to `sourceFrames`).
    mutating func takeLast() throws -> Encoder {
        try encoding.drain()
        let last = try current ?? Encoder(bitrate: bitrate)
        current = nil
        currentFrames = 0
        return last
    }

    /// A share encoded elsewhere, `sourceFrames` long, is in the file.
    mutating func appended(sourceFrames frames: Int) { sourceFrames += frames }

    /// The file is discarded: the current share's encoder goes.
    mutating func discard() { current = nil }
}
