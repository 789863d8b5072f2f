import Foundation
import Synchronization

/// The server's count of wrong kiosk tokens per address: after ``limit`` wrong tokens within
/// ``windowSeconds``, that address's requests with a token are answered 429 (Retry-After) until its
/// window ends, unchecked. Other addresses are not affected. The table holds at most ``capacity``
/// addresses (an attacker with many addresses cannot grow it without bound): when full, windows
/// that have ended are dropped, then the address whose window began first.
///
/// A kiosk whose token was revoked tries once a round (minutes apart), far below the limit, so a
/// school's kiosks behind one address keep syncing beside it.
///
/// It lives beside the sync rules (not in the server target) so that it is tested without a network.
public final class WrongTokenGuesses: Sendable {
    public let limit: Int
    public let windowSeconds: Double
    public let capacity: Int

    struct Window {
        var start: Double
        var failures: Int
    }

    private let table = Mutex<[String: Window]>([:])

    public init(limit: Int = 20, windowSeconds: Double = 60, capacity: Int = 10_000) {
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.capacity = capacity
    }

    /// Seconds `address` must wait before its tokens are checked again (at least 1), or nil when they are checked now.
    public func retryAfter(_ address: String, now: Double) -> Int? {
        table.withLock { table in
            guard let window = table[address], window.failures >= limit else { return nil }
            let left = window.start + windowSeconds - now
            guard left > 0 else {
                table[address] = nil
                return nil
            }
            return max(1, Int(left.rounded(.up)))
        }
    }

    /// Counts a wrong token from `address`; returns how many it sent in its current window.
    @discardableResult
    public func failed(_ address: String, now: Double) -> Int {
        table.withLock { table in
            if var window = table[address], now - window.start < windowSeconds {
                window.failures += 1
                table[address] = window
                return window.failures
            }
            if table[address] == nil, table.count >= capacity {
                table = table.filter { now - $0.value.start < windowSeconds }
                if table.count >= capacity, let oldest = table.min(by: { $0.value.start < $1.value.start }) {
                    table[oldest.key] = nil
                }
            }
            table[address] = Window(start: now, failures: 1)
            return 1
        }
    }

    /// How many addresses the table holds.
    public var count: Int { table.withLock { $0.count } }
}
