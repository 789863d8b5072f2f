/// A half-open range of offsets in **Unicode scalars** into a story's plain text (`Story.text`).
///
/// Unicode scalars are the unit eSpeak NG reports positions in, so the same numbers work for the
/// story, the speech engine's events and `storyreader read --events json`.
public struct TextRange: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The first scalar, counted from 0.
    public var start: Int
    /// One past the last scalar.
    public var end: Int

    public init(start: Int, end: Int) {
        precondition(start <= end, "a range ends after it starts")
        self.start = start
        self.end = end
    }

    public var length: Int { end - start }
    public var isEmpty: Bool { start == end }

    public func contains(_ offset: Int) -> Bool { offset >= start && offset < end }

    /// The same range moved by `delta` scalars.
    public func shifted(by delta: Int) -> TextRange { TextRange(start: start + delta, end: end + delta) }

    public static func < (lhs: TextRange, rhs: TextRange) -> Bool {
        (lhs.start, lhs.end) < (rhs.start, rhs.end)
    }

    public var description: String { "\(start)..<\(end)" }
}

extension String {
    /// The text at a scalar range; ranges outside the string are clipped.
    public func scalars(in range: TextRange) -> String {
        let scalars = unicodeScalars
        let count = scalars.count
        let lower = Swift.max(0, Swift.min(range.start, count))
        let upper = Swift.max(lower, Swift.min(range.end, count))
        let from = scalars.index(scalars.startIndex, offsetBy: lower)
        let to = scalars.index(from, offsetBy: upper - lower)
        return String(scalars[from..<to])
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (Unicode), without Foundation's bridging.
    public func trimmedWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        // Copied as UTF-8 between the two scalars: building a UnicodeScalarView a scalar at a
        // time cost a fifth of parsing a story.
        return String(decoding: utf8[first..<scalars.index(after: last)], as: UTF8.self)
    }
}
