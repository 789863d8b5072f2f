public import Foundation

/// The time now, injectable so tests can move it.
public struct WallClock: Sendable {
    public var now: @Sendable () -> Date
    public init(now: @escaping @Sendable () -> Date) { self.now = now }
    public static let system = WallClock { Date() }
}
