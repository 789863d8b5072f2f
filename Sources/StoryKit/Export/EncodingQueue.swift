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
