public import Foundation

/// A hybrid logical clock timestamp: wall-clock milliseconds, a counter for events within the same
/// millisecond (or when the wall clock went backwards), and the node that made it, so that two
/// timestamps never tie. "Last writer wins" compares these, never raw wall clocks: a clock that
/// jumps back cannot make a newer edit look older than one it has already seen.
public struct HLCTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var millis: Int64
    public var counter: Int
    public var node: String

    public init(millis: Int64, counter: Int = 0, node: String) {
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.millis, lhs.counter, lhs.node) < (rhs.millis, rhs.counter, rhs.node)
    }

    /// Fixed-width text that sorts like the timestamp (SQL `ORDER BY` and `MAX` work on it).
    public var description: String {
        let m = String(millis)
        let c = String(counter)
        return String(repeating: "0", count: max(0, 13 - m.count)) + m + ":"
            + String(repeating: "0", count: max(0, 6 - c.count)) + c + ":" + node
    }

    /// The counters a stamp may carry: six digits, as ``description`` writes them (a longer one
    /// would no longer sort as text), and far from any overflow.
    public static let counterRange = 0...999_999
    /// The milliseconds a stamp may carry: from 1970 to the last that thirteen digits hold (2286).
    public static let millisRange: ClosedRange<Int64> = 0...9_999_999_999_999

    public init?(_ text: String) {
        // "millis:counter:node", the node taking any later colon. Found by bytes, not by
        // `split` (which walks Characters): a kiosk reads one of these in every change it pulls.
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ":")),
            let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ":")),
            let millis = Int64(text[..<first]), let counter = Int(text[utf8.index(after: first)..<second])
        else { return nil }
        let node = text[utf8.index(after: second)...]
        guard !node.isEmpty else { return nil }
        self.init(millis: millis, counter: counter, node: String(node))
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = HLCTimestamp(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a clock value: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The clock itself (a value: the store persists it between runs).
///
/// `tick` stamps a local event with max(wall clock + server offset, last seen + 1); `observe` folds in
/// a timestamp seen from elsewhere. The offset is learnt from the server on each sync: a kiosk whose
/// clock runs hours ahead or behind stamps its edits in the server's time, not its own.
public struct HybridLogicalClock: Sendable, Hashable, Codable {
    public var node: String
    public private(set) var last: HLCTimestamp
    /// Server time minus this machine's time, in milliseconds (0 until the server said otherwise).
    public var offsetMillis: Int64

    public init(node: String, last: HLCTimestamp? = nil, offsetMillis: Int64 = 0) {
        self.node = node
        self.last = last ?? HLCTimestamp(millis: 0, node: node)
        self.offsetMillis = offsetMillis
    }

    /// A new timestamp for a local event at wall-clock time `now`, later than every one seen so far.
    ///
    /// Never traps, whatever the stored clock holds (an offset or a stamp learnt from another
    /// machine): the sum saturates, and a counter at its largest moves on to the next millisecond.
    public mutating func tick(now: Date) -> HLCTimestamp {
        let wall = Self.millis(now).saturatingAdd(offsetMillis)
        if wall > last.millis {
            last = HLCTimestamp(millis: wall, counter: 0, node: node)
        } else if last.counter < HLCTimestamp.counterRange.upperBound {
            last = HLCTimestamp(millis: last.millis, counter: last.counter + 1, node: node)
        } else {
            last = HLCTimestamp(millis: last.millis.saturatingAdd(1), counter: 0, node: node)
        }
        return last
    }

    /// Remembers a timestamp made elsewhere, so the next local one sorts after it.
    public mutating func observe(_ remote: HLCTimestamp) {
        if remote.millis > last.millis || (remote.millis == last.millis && remote.counter > last.counter) {
            last = HLCTimestamp(millis: remote.millis, counter: remote.counter, node: node)
        }
    }

    /// Forgets stamps made by a clock that ran ahead (see ``ClockSkew``).
    public mutating func reset(to millis: Int64) {
        last = HLCTimestamp(millis: millis, counter: 0, node: node)
    }

    /// Milliseconds since 1970 (clamped to what an `Int64` holds: a date never traps here).
    public static func millis(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return value > 0 ? .max : .min }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }
}

/// The clock-skew rule: a kiosk more than five minutes ahead of the server is told so, and its clock is
/// not trusted (its timestamps are re-stamped by the server, and it adopts the server's offset).
public enum ClockSkew {
    public static let toleranceMillis: Int64 = 5 * 60 * 1000

    /// Whether a timestamp made by a kiosk is believable at server time `serverMillis`.
    public static func isTrusted(_ stamp: HLCTimestamp, serverMillis: Int64) -> Bool {
        stamp.millis <= serverMillis.saturatingAdd(toleranceMillis)
    }

    /// The message a kiosk shows a grown-up (in `sync --status`), or nil when the clocks agree.
    ///
    /// Both times may come from another machine (any `Int64`, `Int64.min` included): the
    /// difference saturates instead of trapping.
    public static func warning(kioskMillis: Int64, serverMillis: Int64) -> String? {
        let ahead = kioskMillis.saturatingSubtract(serverMillis)
        guard ahead > toleranceMillis else { return nil }
        return
            "this machine's clock is \(ahead / 60_000) minutes ahead of the server's; its times are corrected by the server (set the clock, e.g. with systemd-timesyncd)"
    }
}

extension Int64 {
    /// `self + other`, held at `Int64.min` or `Int64.max` instead of trapping.
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, held at `Int64.min` or `Int64.max` instead of trapping.
    public func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }
}
