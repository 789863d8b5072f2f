public import Foundation
import Synchronization

/// The program's one clock protocol for time that only goes forward (never jumps with the wall
/// clock), in seconds: the kiosk's rules (the shell reads it and feeds `Input.tick`), background
/// sync's schedule, export progress, the loop's deadlines. Tests use `ManualMonotonicClock` (or
/// pass times to `tick` directly), so no rule depends on real time. Dates (reads, the PIN's
/// lockout) are `WallClock`'s; the speech thread keeps Swift's `ContinuousClock`, which it hands to
/// the sink's own clock of frames.
public protocol MonotonicClock: Sendable {
    func now() -> TimeInterval
}

/// The system's monotonic clock (never jumps with the wall clock).
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}
    public func now() -> TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 }
}

/// A clock that moves only when told (tests).
public final class ManualMonotonicClock: MonotonicClock, Sendable {
    private let time: Mutex<TimeInterval>
    public init(_ start: TimeInterval = 1000) { time = Mutex(start) }
    public func now() -> TimeInterval { time.withLock { $0 } }
    public func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// The system's monotonic clock in nanoseconds (the REPL's loop, its deadlines and animations):
/// `SystemMonotonicClock`'s time, without the conversion to seconds.
public func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
