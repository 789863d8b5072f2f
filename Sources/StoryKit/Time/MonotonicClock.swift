public import Foundation
import Synchronization

/// The program's one clock protocol for time that only goes forward (never jumps with the wall
/// clock), in seconds: the kiosk's rules (the shell reads it and feeds `Input.tick`), background
/// sync's schedule, export progress, the loop's deadlines, the coach's wait for its last words.
/// Tests use `ManualMonotonicClock` (or pass times to `tick` directly), so no rule depends on
/// real time. `monotonicNanoseconds()` is the same clock for the loops that count in nanoseconds
/// (the REPL's turns, a sync request's deadline, the terminal's answer to a probe).
///
/// What keeps another kind of time, and why: dates (reads, the PIN's lockout, sync's stamps) are
/// `WallClock`'s `Date`s, for people; the speech thread, its service and the sinks keep Swift's
/// `ContinuousClock` (its deadlines and a sink's clock of frames are `Duration` arithmetic on
/// one thread, and tests drive them with virtual-clock sinks, not with this protocol);
/// benchmarks time themselves with `ContinuousClock`; the server's target reads `DispatchTime`,
/// this clock's source, for its connection timeouts.
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
