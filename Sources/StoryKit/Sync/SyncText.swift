public import Foundation

/// The text of the changes most of a site's traffic is (finished reads and the positions each one
/// forgets), written and read without Foundation's general paths: every change crosses this text
/// four times (a kiosk's outbox, its upload, the server's log, every other kiosk's pull), and with
/// twenty kiosks on two cores `JSONEncoder`, `JSONDecoder` and `UUID`'s own text (`sscanf` and
/// `printf` on Linux) were about a fifth of the kiosks' CPU in `bench sync` (issue 32).
///
/// What is written is `JSONEncoder.sync`'s text byte for byte (the tests compare them); anything
/// this is not sure of (another kind of change, a string that needs an escape, a date that is
/// not a plain number) is left to `JSONEncoder.sync`.
extension SyncChange {
    /// The change as `JSONEncoder.sync` writes it.
    public var jsonText: String {
        if let text = fastJSON() { return text }
        return (try? String(decoding: JSONEncoder.sync.encode(self), as: UTF8.self)) ?? "{}"
    }

    /// `{"body":{"read":{"finishedAt":…,"profile":"…","story":"…"}},"hlc":"…","id":"…"}`, keys
    /// sorted, or nil when `JSONEncoder` must write it.
    func fastJSON() -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(200)
        out.append(contentsOf: #"{"body":{"#.utf8)
        switch body {
        case .read(let profile, let story, let finishedAt):
            // What `millisecondsSince1970` writes: the Double, without a trailing ".0".
            var millis = (finishedAt.timeIntervalSince1970 * 1000).description
            guard !millis.contains("e"), !millis.contains("n"), !millis.contains("i") else { return nil }
            if millis.hasSuffix(".0") { millis.removeLast(2) }
            out.append(contentsOf: #""read":{"finishedAt":"#.utf8)
            out.append(contentsOf: millis.utf8)
            out.append(contentsOf: #","profile":""#.utf8)
            out.append(contentsOf: profile.syncText.utf8)
            out.append(contentsOf: #"","story":"#.utf8)
            guard Self.appendPlain(story, to: &out) else { return nil }
        case .position(let profile, let story, let sentence):
            out.append(contentsOf: #""position":{"profile":""#.utf8)
            out.append(contentsOf: profile.syncText.utf8)
            out.append(UInt8(ascii: "\""))
            if let sentence {
                out.append(contentsOf: #","sentence":"#.utf8)
                out.append(contentsOf: String(sentence).utf8)
            }
            out.append(contentsOf: #","story":"#.utf8)
            guard Self.appendPlain(story, to: &out) else { return nil }
        default:
            return nil
        }
        out.append(contentsOf: #"}},"hlc":"#.utf8)
        guard Self.appendPlain(hlc.description, to: &out) else { return nil }
        out.append(contentsOf: #","id":""#.utf8)
        out.append(contentsOf: id.syncText.utf8)
        out.append(UInt8(ascii: "\""))
        if let storyTitle {
            out.append(contentsOf: #","storyTitle":"#.utf8)
            guard Self.appendPlain(storyTitle, to: &out) else { return nil }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` quoted, when it needs no escape as `JSONEncoder` writes them (no quote, backslash,
    /// slash or control character); false otherwise, and `out` is then not to be used.
    static func appendPlain(_ text: String, to out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "/") else { return false }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
        return true
    }
}

extension UploadRequest {
    /// The request as `JSONEncoder.sync` writes it, each change by ``SyncChange/jsonText``.
    public var json: Data {
        var out = Data(#"{"changes":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: change.jsonText.utf8)
        }
        out.append(contentsOf: #"],"kioskMillis":"#.utf8)
        out.append(contentsOf: String(kioskMillis).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension UUID {
    /// The UUID as `uuidString` writes it (upper-case hex, 8-4-4-4-12), without `printf`.
    public var syncText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    let (high, low) = (bytes[index] >> 4, bytes[index] & 0x0F)
                    out[at] = high < 10 ? UInt8(ascii: "0") + high : UInt8(ascii: "A") - 10 + high
                    out[at + 1] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "A") - 10 + low
                    at += 2
                }
                return at
            }
        }
    }

    /// A UUID from its text as `UUID(uuidString:)` takes it, without `sscanf` for the usual
    /// 8-4-4-4-12 hex; anything else is `UUID(uuidString:)`'s to decide.
    public init?(syncText text: String) {
        var halves: (UInt64, UInt64) = (0, 0)
        var nibbles = 0
        var copy = text
        // The bytes in one piece (what a native string already is), walked by index.
        let valid = copy.withUTF8 { bytes -> Bool in
            guard bytes.count == 36 else { return false }
            for index in 0..<36 {
                let byte = bytes[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                    continue
                }
                let value: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte &- UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(byte &- UInt8(ascii: "A") &+ 10)
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte &- UInt8(ascii: "a") &+ 10)
                default: return false
                }
                if nibbles < 16 { halves.0 = halves.0 << 4 | value } else { halves.1 = halves.1 << 4 | value }
                nibbles += 1
            }
            return true
        }
        let bytes = halves
        guard valid, nibbles == 32 else {
            guard let parsed = UUID(uuidString: text) else { return nil }
            self = parsed
            return
        }
        // Big-endian: the text's first byte is the UUID's first.
        let (a, b) = (bytes.0.bigEndian, bytes.1.bigEndian)
        self.init(uuid: withUnsafeBytes(of: (a, b)) { $0.load(as: uuid_t.self) })
    }
}

extension HybridLogicalClock {
    /// The clock as the store keeps it (`{"last":…,"node":…,"offsetMillis":…}`, JSON that
    /// `JSONDecoder` reads): written by hand, as every finished read saves it.
    var storedText: String {
        var out: [UInt8] = Array(#"{"last":"#.utf8)
        guard SyncChange.appendPlain(last.description, to: &out) else { return encoded }
        out.append(contentsOf: #","node":"#.utf8)
        guard SyncChange.appendPlain(node, to: &out) else { return encoded }
        out.append(contentsOf: #","offsetMillis":"#.utf8)
        out.append(contentsOf: String(offsetMillis).utf8)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private var encoded: String { (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "{}" }

    /// The clock the store kept, read by ``SyncPageReader`` or else by `JSONDecoder` (which says
    /// what is wrong with it).
    init(storedText text: String) throws {
        if let clock = SyncPageReader.clock(text) {
            self = clock
        } else {
            self = try JSONDecoder().decode(HybridLogicalClock.self, from: Data(text.utf8))
        }
    }
}
