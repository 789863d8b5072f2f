package import StoryKit

/// Turns terminal bytes into keys. A lone Escape is told apart from the start of an arrow key's
/// sequence by time: the shell calls `flush()` when no byte followed within `escapeDelay`.
package struct KeyDecoder {
    /// How long to wait after ESC for the rest of a sequence (terminals send it in one write).
    static let escapeDelayMilliseconds: Int32 = 40
    private var buffer: [UInt8] = []

    package init() {}

    /// Whether bytes are waiting (an ESC that may start a sequence, or half a UTF-8 character).
    var hasPending: Bool { !buffer.isEmpty }

    /// Decodes what it can; an incomplete sequence waits for more bytes or `flush()`.
    package mutating func feed(_ bytes: [UInt8]) -> [Key] {
        buffer += bytes
        var keys: [Key] = []
        while !buffer.isEmpty {
            guard let (key, used) = decode(buffer, final: false) else { break }
            buffer.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// No more bytes came: what is pending is complete as it is (a lone ESC is Escape).
    mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !buffer.isEmpty {
            guard let (key, used) = decode(buffer, final: true) else {
                buffer.removeAll()
                break
            }
            buffer.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// One key from the start of `bytes` and how many bytes it took; nil when more are needed.
    private func decode(_ bytes: [UInt8], final: Bool) -> (Key?, Int)? {
        let first = bytes[0]
        switch first {
        case 0x1B:
            if bytes.count == 1 { return final ? (.escape, 1) : nil }
            let second = bytes[1]
            if second == UInt8(ascii: "[") || second == UInt8(ascii: "O") {
                // CSI or SS3: parameters and intermediates (0x20...0x3F), then a final byte in
                // 0x40...0x7E. Any other byte (a control key, a new ESC) ends a broken sequence
                // and is a key of its own: a process that reads late (a busy machine) gets a half
                // sequence and the next keys in one read, and Escape and Ctrl-W were swallowed.
                var index = 2
                while index < bytes.count, (0x20...0x3F).contains(bytes[index]) { index += 1 }
                if index >= bytes.count { return final ? (.unknown("ESC"), bytes.count) : nil }
                if !(0x40...0x7E).contains(bytes[index]) { return (.unknown("ESC"), index) }
                let body = String(decoding: bytes[2..<index], as: UTF8.self)
                return (csiKey(final: bytes[index], parameters: body), index + 1)
            }
            if second == 0x1B { return (.escape, 1) }
            // Alt+key: read as the key itself.
            return (.escape, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x20: return (.space, 1)
        case 0x01...0x1A: return (.control(Character(UnicodeScalar(first + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (.unknown(String(first)), 1)
        default:
            let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            if bytes.count < length { return final ? (nil, bytes.count) : nil }
            let text = String(decoding: bytes[0..<length], as: UTF8.self)
            guard let character = text.first, text != "\u{FFFD}" else { return (nil, length) }
            return (.character(character), length)
        }
    }

    private func csiKey(final: UInt8, parameters: String) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .shiftTab
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return .unknown("CSI \(parameters)~")
            }
        default: return .unknown("CSI \(parameters)\(Character(UnicodeScalar(final)))")
        }
    }
}
