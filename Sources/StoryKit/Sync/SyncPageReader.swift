public import Foundation

/// Reads a pull's page, and an upload's answer that brings one, without `JSONDecoder` for the
/// changes most of a page is (finished reads and positions): with many kiosks on a site, decoding
/// them through `Codable` was most of a kiosk's round (issue 32).
///
/// It takes only what it is sure of, and leaves the rest to `JSONDecoder`, so what a kiosk
/// accepts, refuses and sets aside stays `JSONDecoder`'s:
/// - a change of another kind, or one it is not sure of (an escape in a string, a number that is
///   not a plain one, a key twice, a missing field, a wrong type), is decoded by `JSONDecoder` alone
///   (and set aside as unreadable when it fails, as in a decoded page);
/// - an answer whose frame is not as the server writes it (bad syntax anywhere, a key twice, a
///   field missing or of a wrong type) is decoded whole by `JSONDecoder` (nil here).
public enum SyncPageReader {
    /// A pull's page, or nil for `JSONDecoder` to read it (and to say what is wrong with it).
    public static func pull(_ data: Data) -> PullResponse? { read(data) { reader throws(Unsure) in try reader.page(depth: 0) } }

    /// An upload's answer with or without its page, or nil for `JSONDecoder` to read it.
    public static func upload(_ data: Data) -> UploadResponse? { read(data) { reader throws(Unsure) in try reader.uploadAnswer() } }

    /// One change (an outbox entry), or nil for `JSONDecoder` to read it.
    public static func change(_ text: String) -> SyncChange? { read(text) { reader throws(Unsure) in try reader.change(depth: 0) } }

    /// An upload's request (what the server reads), or nil for `JSONDecoder` to read it.
    public static func uploadRequest(_ data: Data) -> UploadRequest? { read(data) { reader throws(Unsure) in try reader.uploadRequest() } }

    /// A kiosk's stored clock, or nil for `JSONDecoder` to read it.
    static func clock(_ text: String) -> HybridLogicalClock? {
        read(text) { reader throws(Unsure) in
            var last: HLCTimestamp?
            var node: String?
            var offset: Int64?
            try reader.members(depth: 0) { reader, key throws(Unsure) in
                switch key {
                case "last": try Reader.once(&last, try Reader.sure(HLCTimestamp(try reader.string())))
                case "node": try Reader.once(&node, try reader.string())
                case "offsetMillis": try Reader.once(&offset, try reader.integer())
                default: throw Unsure()
                }
            }
            return HybridLogicalClock(node: try Reader.sure(node), last: try Reader.sure(last), offsetMillis: try Reader.sure(offset))
        }
    }

    /// What `value` reads from the whole of `data` (white space around it allowed), or nil.
    static func read<Value>(_ data: Data, _ value: (inout Reader) throws(Unsure) -> Value) -> Value? {
        data.withUnsafeBytes { raw in read(raw.bindMemory(to: UInt8.self), value) }
    }

    static func read<Value>(_ text: String, _ value: (inout Reader) throws(Unsure) -> Value) -> Value? {
        var text = text
        return text.withUTF8 { read($0, value) }
    }

    static func read<Value>(_ bytes: UnsafeBufferPointer<UInt8>, _ value: (inout Reader) throws(Unsure) -> Value) -> Value? {
        var reader = Reader(bytes)
        reader.skipSpace()
        guard let read = try? value(&reader), reader.isAtEnd else { return nil }
        return read
    }

    /// Not sure: `JSONDecoder` decides.
    struct Unsure: Error {}

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// Whether only white space is left.
        var isAtEnd: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count
            }
        }

        // MARK: The answers

        mutating func uploadAnswer() throws(Unsure) -> UploadResponse {
            var stored: Int?
            var serverMillis: Int64?
            var clockWarning: String??
            var page: PullResponse??
            try members(depth: 0) { reader, key throws(Unsure) in
                switch key {
                case "stored": try Self.once(&stored, try Self.sure(Int(exactly: try reader.integer())))
                case "serverMillis": try Self.once(&serverMillis, try reader.integer())
                case "clockWarning": try Self.once(&clockWarning, reader.take("null") ? nil : try reader.string())
                // A page that does not read is left out by the decoder (the kiosk pulls it again):
                // that, and anything else about it, is the decoder's to say.
                case "page": try Self.once(&page, reader.take("null") ? nil : try reader.page(depth: 1))
                // Changes the server kept apart (rare): the decoder reads the answer.
                case "unknownKinds": throw Unsure()
                default: try reader.skipValue(depth: 1)
                }
            }
            guard let stored, let serverMillis else { throw Unsure() }
            var answer = UploadResponse(stored: stored, serverMillis: serverMillis, clockWarning: clockWarning ?? nil)
            answer.page = page ?? nil
            return answer
        }

        mutating func uploadRequest() throws(Unsure) -> UploadRequest {
            var changes: ([SyncChange], unreadable: [String])?
            var kioskMillis: Int64?
            try members(depth: 0) { reader, key throws(Unsure) in
                switch key {
                case "changes": try Self.once(&changes, try reader.changes(depth: 1))
                case "kioskMillis": try Self.once(&kioskMillis, try reader.integer())
                default: try reader.skipValue(depth: 1)
                }
            }
            // A change that does not decode makes the decoder refuse the whole request, and say why.
            guard let changes, changes.unreadable.isEmpty, let kioskMillis else { throw Unsure() }
            return UploadRequest(changes: changes.0, kioskMillis: kioskMillis)
        }

        /// A page, `depth` deep in the answer (the limit on nesting counts from the top).
        mutating func page(depth: Int) throws(Unsure) -> PullResponse {
            var changes: ([SyncChange], unreadable: [String])?
            var cursor: Int64?
            var more: Bool?
            var serverMillis: Int64?
            try members(depth: depth) { reader, key throws(Unsure) in
                switch key {
                case "changes": try Self.once(&changes, try reader.changes(depth: depth + 1))
                case "cursor": try Self.once(&cursor, try reader.integer())
                case "more": try Self.once(&more, try reader.boolean())
                case "serverMillis": try Self.once(&serverMillis, try reader.integer())
                default: try reader.skipValue(depth: depth + 1)
                }
            }
            guard let changes, let cursor, let more, let serverMillis else { throw Unsure() }
            var page = PullResponse(changes: changes.0, cursor: cursor, more: more, serverMillis: serverMillis)
            page.unreadable = changes.unreadable
            return page
        }

        /// The page's list: each change read here, or by `JSONDecoder` from its own bytes.
        mutating func changes(depth: Int) throws(Unsure) -> ([SyncChange], unreadable: [String]) {
            guard take(UInt8(ascii: "[")) else { throw Unsure() }
            var changes: [SyncChange] = []
            var unreadable: [String] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return (changes, unreadable) }
            while true {
                let start = index
                if let change = try? change(depth: depth + 1) {
                    changes.append(change)
                } else {
                    // Not sure of it: its bytes (if they are JSON at all) go to the decoder alone.
                    guard let end = JSONSyntax.end(ofValueIn: bytes, from: start, depth: depth + 1) else { throw Unsure() }
                    index = end
                    do {
                        changes.append(try JSONDecoder.sync.decode(SyncChange.self, from: Data(bytes[start..<end])))
                    } catch {
                        unreadable.append(String(String(describing: error).prefix(300)))
                    }
                }
                skipSpace()
                if take(UInt8(ascii: "]")) { return (changes, unreadable) }
                guard take(UInt8(ascii: ",")) else { throw Unsure() }
                skipSpace()
            }
        }

        /// A finished read or a position, as `JSONEncoder.sync` writes them.
        mutating func change(depth: Int) throws(Unsure) -> SyncChange {
            var id: UUID?
            var hlc: HLCTimestamp?
            var body: SyncChange.Body?
            var title: String??
            try members(depth: depth) { reader, key throws(Unsure) in
                switch key {
                case "id": try Self.once(&id, try reader.uuid())
                case "hlc": try Self.once(&hlc, try Self.sure(HLCTimestamp(try reader.string())))
                case "body": try Self.once(&body, try reader.body(depth: depth + 1))
                case "storyTitle": try Self.once(&title, reader.take("null") ? nil : try reader.string())
                default: try reader.skipValue(depth: depth + 1)
                }
            }
            guard let id, let hlc, let body else { throw Unsure() }
            return SyncChange(id: id, hlc: hlc, body: body, storyTitle: title ?? nil)
        }

        /// `{"read":{…}}` or `{"position":{…}}`: one key, as the enum's coding has it.
        mutating func body(depth: Int) throws(Unsure) -> SyncChange.Body {
            var body: SyncChange.Body?
            try members(depth: depth) { reader, key throws(Unsure) in
                guard body == nil else { throw Unsure() }
                var profile: UUID?
                var story: String?
                switch key {
                case "read":
                    var finishedAt: Date?
                    try reader.members(depth: depth + 1) { reader, key throws(Unsure) in
                        switch key {
                        case "profile": try Self.once(&profile, try reader.uuid())
                        case "story": try Self.once(&story, try reader.string())
                        // What `millisecondsSince1970` makes of the number.
                        case "finishedAt": try Self.once(&finishedAt, Date(timeIntervalSince1970: try reader.double() / 1000.0))
                        default: try reader.skipValue(depth: depth + 2)
                        }
                    }
                    guard let profile, let story, let finishedAt else { throw Unsure() }
                    body = .read(profile: profile, story: story, finishedAt: finishedAt)
                case "position":
                    var sentence: Int??
                    try reader.members(depth: depth + 1) { reader, key throws(Unsure) in
                        switch key {
                        case "profile": try Self.once(&profile, try reader.uuid())
                        case "story": try Self.once(&story, try reader.string())
                        case "sentence":
                            try Self.once(&sentence, reader.take("null") ? nil : try Self.sure(Int(exactly: try reader.integer())))
                        default: try reader.skipValue(depth: depth + 2)
                        }
                    }
                    guard let profile, let story else { throw Unsure() }
                    body = .position(profile: profile, story: story, sentence: sentence ?? nil)
                default: throw Unsure()
                }
            }
            guard let body else { throw Unsure() }
            return body
        }

        // MARK: JSON

        /// Sets a member's value, unless the key came before (which the decoder may take otherwise).
        static func once<Value>(_ slot: inout Value?, _ value: Value) throws(Unsure) {
            guard slot == nil else { throw Unsure() }
            slot = value
        }

        static func sure<Value>(_ value: Value?) throws(Unsure) -> Value {
            guard let value else { throw Unsure() }
            return value
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, Self.isSpace(byte) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// `word` (true, false, null) when it is next.
        mutating func take(_ word: StaticString) -> Bool {
            guard bytes.has(word, at: index) else { return false }
            index += word.utf8CodeUnitCount
            return true
        }

        /// An object's members: `member` reads each value (or passes over it).
        mutating func members(depth: Int, _ member: (inout Reader, String) throws(Unsure) -> Void) throws(Unsure) {
            guard depth < JSONSyntax.maximumDepth, take(UInt8(ascii: "{")) else { throw Unsure() }
            skipSpace()
            if take(UInt8(ascii: "}")) { return }
            while true {
                let key = try string()
                skipSpace()
                guard take(UInt8(ascii: ":")) else { throw Unsure() }
                skipSpace()
                try member(&self, key)
                skipSpace()
                if take(UInt8(ascii: "}")) { return }
                guard take(UInt8(ascii: ",")) else { throw Unsure() }
                skipSpace()
            }
        }

        mutating func skipValue(depth: Int) throws(Unsure) {
            guard let end = JSONSyntax.end(ofValueIn: bytes, from: index, depth: depth) else { throw Unsure() }
            index = end
        }

        /// A string without escapes nor control characters, of valid UTF-8.
        mutating func string() throws(Unsure) -> String {
            guard take(UInt8(ascii: "\"")) else { throw Unsure() }
            let start = index
            while let byte = current {
                if byte == UInt8(ascii: "\"") {
                    let text = String(validating: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return try Self.sure(text)
                }
                guard byte >= 0x20, byte != UInt8(ascii: "\\") else { throw Unsure() }
                index += 1
            }
            throw Unsure()
        }

        mutating func uuid() throws(Unsure) -> UUID {
            try Self.sure(UUID(syncText: try string()))
        }

        mutating func boolean() throws(Unsure) -> Bool {
            if take("true") { return true }
            if take("false") { return false }
            throw Unsure()
        }

        /// The bytes of a JSON number (-? int frac? exp?).
        mutating func number() throws(Unsure) -> Slice<UnsafeBufferPointer<UInt8>> {
            let start = index
            _ = take(UInt8(ascii: "-"))
            guard let first = current, first.isDigit else { throw Unsure() }
            index += 1
            if first != UInt8(ascii: "0") { digits() }
            if take(UInt8(ascii: ".")) {
                guard current?.isDigit == true else { throw Unsure() }
                digits()
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard current?.isDigit == true else { throw Unsure() }
                digits()
            }
            return bytes[start..<index]
        }

        mutating func digits() {
            while current?.isDigit == true { index += 1 }
        }

        /// A whole number written as one (no fraction, no exponent), of at most 18 digits.
        mutating func integer() throws(Unsure) -> Int64 {
            let text = try number()
            let negative = text.first == UInt8(ascii: "-")
            let digits = text.dropFirst(negative ? 1 : 0)
            guard digits.count <= 18, digits.allSatisfy(\.isDigit) else { throw Unsure() }
            let magnitude = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
            return negative ? -magnitude : magnitude
        }

        /// A number as the nearest Double (as the decoder's parser rounds it).
        mutating func double() throws(Unsure) -> Double {
            let text = try number()
            guard text.count <= 40, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { throw Unsure() }
            return value
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
