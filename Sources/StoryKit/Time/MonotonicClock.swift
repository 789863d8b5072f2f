public import Foundation
import Synchronization

/// A monotonic clock in seconds. The shell reads it and feeds `Input.tick`; tests use
/// `ManualKioskClock` (or pass times to `tick` directly), so no kiosk rule depends on real time.
public protocol KioskClock: Sendable {
    func now() -> TimeInterval
}

/// The system's monotonic clock (never jumps with the wall clock).
public struct SystemKioskClock: KioskClock {
    public init() {}
    public func now() -> TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 }
}

/// A clock that moves only when told (tests).
public final class ManualKioskClock: KioskClock, Sendable {
    private let time: Mutex<TimeInterval>
    public init(_ start: TimeInterval = 1000) { time = Mutex(start) }
    public func now() -> TimeInterval { time.withLock { $0 } }
    public func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// The system's monotonic time in nanoseconds (the REPL's loop, its deadlines and animations).
public func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
