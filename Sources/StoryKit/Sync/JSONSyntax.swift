/// Whether bytes are one JSON value (RFC 8259, and a trailing comma as Foundation's parser
/// allows), checked by syntax alone: nothing is built.
///
/// The site server hands out the bodies of its log as they are stored (each was encoded by the
/// server itself after its checks), so a pull costs no decoding and encoding per change; only a row
/// written by hand or by an older server may not be JSON at all, and one such row spliced into a
/// page would make the whole page unreadable to every kiosk. This check keeps such a row out at a
/// small fraction of a decode's cost; a row that is JSON but not a change still reaches the
/// kiosks, which set it aside (``PullResponse/unreadable``).
public enum JSONSyntax {
    /// Nesting deeper than this is refused (a decoder would recurse as deep).
    public static let maximumDepth = 512

    public static func isValue(_ bytes: some Collection<UInt8>) -> Bool {
        if let answer = bytes.withContiguousStorageIfAvailable({ isValue(buffer: $0) }) { return answer }
        return Array(bytes).withUnsafeBufferPointer { isValue(buffer: $0) }
    }

    public static func isValue(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValue(buffer: $0) }
    }

    static func isValue(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = Scanner(bytes: buffer)
        scanner.skipSpace()
        guard scanner.value(depth: 0) else { return false }
        scanner.skipSpace()
        return scanner.index == buffer.count
    }

    /// Where the JSON value that starts at `start` ends (the index after it), or nil when no value
    /// starts there: how ``SyncPageReader`` passes over a member it does not need. `depth` is how
    /// deep in the document the value is (the limit counts from the top).
    static func end(ofValueIn buffer: UnsafeBufferPointer<UInt8>, from start: Int, depth: Int) -> Int? {
        var scanner = Scanner(bytes: buffer)
        scanner.index = start
        return scanner.value(depth: depth) ? scanner.index : nil
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maximumDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            default: return number()
            }
        }

        /// An object or an array: members separated by commas (one after the last allowed).
        mutating func container(close: UInt8, keyed: Bool, depth: Int) -> Bool {
            index += 1
            skipSpace()
            if take(close) { return true }
            while true {
                if keyed {
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return false }
                    skipSpace()
                }
                guard value(depth: depth + 1) else { return false }
                skipSpace()
                if take(close) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
                skipSpace()
                // A comma before the end, as the kiosks' parser (Foundation's) takes it.
                if take(close) { return true }
            }
        }

        /// A string: no raw control character, only the escapes JSON has.
        mutating func string() -> Bool {
            index += 1
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let digit = current, digit.isHexDigit else { return false }
                            index += 1
                        }
                    default: return false
                    }
                case 0..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func word(_ word: StaticString) -> Bool {
            guard bytes.has(word, at: index) else { return false }
            index += word.utf8CodeUnitCount
            return true
        }

        /// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            if !take(UInt8(ascii: "0")) {
                guard let first = current, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
                digits()
            }
            if take(UInt8(ascii: ".")) {
                guard current?.isDigit == true else { return false }
                digits()
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard current?.isDigit == true else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while current?.isDigit == true { index += 1 }
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `word`'s bytes come at `index`.
    func has(_ word: StaticString, at index: Int) -> Bool {
        let count = word.utf8CodeUnitCount
        guard self.count - index >= count else { return false }
        for offset in 0..<count where self[index + offset] != word.utf8Start[offset] { return false }
        return true
    }
}
