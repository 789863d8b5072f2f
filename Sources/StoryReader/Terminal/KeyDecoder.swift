/// A key pressed in raw mode.
enum Key: Hashable, Sendable {
    case character(Character)
    case space, enter, tab, backspace, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Ctrl plus a letter (`c` for Ctrl-C, byte 03).
    case control(Character)
    /// Standard input closed (Ctrl-D on an empty line in cooked mode, or the pipe ended).
    case endOfInput
}

/// Turns raw terminal bytes into keys: UTF-8 characters, control bytes, and the CSI/SS3 sequences
/// of arrows and friends (`ESC [ A`, `ESC O A`, `ESC [ 5 ~`). Keeps a partial sequence between feeds.
struct KeyDecoder {
    private var buffer: [UInt8] = []

    var hasPendingEscape: Bool { buffer.first == 0x1B }

    /// Decodes what can be decoded; an incomplete sequence waits for more bytes.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Key] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var keys: [Key] = []
        while !buffer.isEmpty {
            guard let (key, used) = decodeOne(buffer) else { break }
            buffer.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// A lone ESC with nothing after it is the Escape key; a partial sequence is dropped.
    mutating func flushPendingEscape() -> Key? {
        guard !buffer.isEmpty else { return nil }
        let lone = buffer == [0x1B]
        buffer.removeAll()
        return lone ? .escape : nil
    }

    /// One key from the front of `bytes` and how many bytes it used; nil when more bytes are needed.
    private func decodeOne(_ bytes: [UInt8]) -> (Key?, Int)? {
        let first = bytes[0]
        switch first {
        case 0x1B:
            guard bytes.count >= 2 else { return nil }
            if bytes[1] == 0x1B { return (.escape, 1) }
            if bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") {
                // Parameters, then a final byte in 0x40…0x7E.
                var index = 2
                while index < bytes.count, (0x30...0x3F).contains(bytes[index]) { index += 1 }
                guard index < bytes.count else { return nil }
                let final = bytes[index]
                let parameters = String(decoding: bytes[2..<index], as: UTF8.self)
                let key: Key?
                switch final {
                case UInt8(ascii: "A"): key = .up
                case UInt8(ascii: "B"): key = .down
                case UInt8(ascii: "C"): key = .right
                case UInt8(ascii: "D"): key = .left
                case UInt8(ascii: "H"): key = .home
                case UInt8(ascii: "F"): key = .end
                case UInt8(ascii: "~"):
                    switch parameters {
                    case "1", "7": key = .home
                    case "4", "8": key = .end
                    case "5": key = .pageUp
                    case "6": key = .pageDown
                    default: key = nil
                    }
                default: key = nil
                }
                return (key, index + 1)
            }
            // Alt+key: treat as Escape followed by the key.
            return (.escape, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x20: return (.space, 1)
        case 0x00..<0x20:
            return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        default:
            // A UTF-8 character.
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            guard bytes.count >= length else { return nil }
            let text = String(decoding: bytes[0..<length], as: UTF8.self)
            return (text.first.map(Key.character), length)
        }
    }
}
