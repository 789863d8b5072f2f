public import Foundation

/// The `/v1/` JSON API between kiosks and `storyreader serve`. Every request carries
/// `Authorization: Bearer TOKEN`; every path names the site, which must be the token's.
///
///     POST /v1/sites/{site}/changes        UploadRequest  -> UploadResponse
///     POST /v1/sites/{site}/changes?after=N&limit=M        -> UploadResponse with the pull's page
///     GET  /v1/sites/{site}/changes?after=N&limit=M        -> PullResponse
///     GET  /v1/sites/{site}/state                          -> SyncSnapshot (what every kiosk should show)
///     GET  /v1/health                                      -> "ok"
public enum SyncAPI {
    public static func changesPath(site: String) -> String { "/v1/sites/\(site)/changes" }
    public static func statePath(site: String) -> String { "/v1/sites/\(site)/state" }
}

public struct UploadRequest: Sendable, Codable {
    public var changes: [SyncChange]
    /// The kiosk's wall clock when it sent the batch (milliseconds), to tell it about skew.
    public var kioskMillis: Int64
    public init(changes: [SyncChange], kioskMillis: Int64) {
        self.changes = changes
        self.kioskMillis = kioskMillis
    }
}

public struct UploadResponse: Sendable, Codable {
    /// How many were new to the server (the rest it already had).
    public var stored: Int
    public var serverMillis: Int64
    /// Set when the kiosk's clock is more than five minutes ahead: its times were re-stamped.
    public var clockWarning: String?
    /// The page a pull after `after` would give, when the upload asked for it (`?after=N&limit=M`):
    /// a round's upload and its first pull in one exchange. A server that predates it leaves it out,
    /// and the kiosk pulls as before.
    public var page: PullResponse?
    /// Changes of a kind this server does not know (sent by a kiosk newer than it): kept apart by
    /// the server, not stored in the site's log, each with why. The kiosk keeps them in its outbox
    /// and sends them again in later rounds (an updated server stores them); the rest of the batch
    /// was stored. Left out when there are none (and by servers that predate it).
    public var unknownKinds: [RefusedChange]?

    public init(stored: Int, serverMillis: Int64, clockWarning: String?, unknownKinds: [RefusedChange]? = nil) {
        self.stored = stored
        self.serverMillis = serverMillis
        self.clockWarning = clockWarning
        self.unknownKinds = unknownKinds
    }

    enum CodingKeys: String, CodingKey { case stored, serverMillis, clockWarning, page, unknownKinds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stored = try container.decode(Int.self, forKey: .stored)
        serverMillis = try container.decode(Int64.self, forKey: .serverMillis)
        clockWarning = try container.decodeIfPresent(String.self, forKey: .clockWarning)
        unknownKinds = try container.decodeIfPresent([RefusedChange].self, forKey: .unknownKinds)
        // The upload was stored whatever the page holds: a page that does not read is left out,
        // and the kiosk asks for it again on its own.
        page = try? container.decodeIfPresent(PullResponse.self, forKey: .page)
    }

    /// The answer as the server sends it: `encoded` (this answer without a page, by
    /// ``JSONEncoder/sync``) with `page` (from ``PullResponse/json(bodies:cursor:more:serverMillis:skipped:)``)
    /// spliced in as it is.
    public static func json(encoded: Data, page: [UInt8]) -> [UInt8] {
        var out = Array(encoded)
        guard out.last == UInt8(ascii: "}") else { return out }
        out.removeLast()
        out.append(contentsOf: #","page":"#.utf8)
        out.append(contentsOf: page)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

public struct PullResponse: Sendable, Codable {
    public var changes: [SyncChange]
    /// The site's change counter of the last change returned (the next `after`).
    public var cursor: Int64
    public var more: Bool
    public var serverMillis: Int64
    /// Why each change of the page that does not read as a change did not (a log written by a
    /// server without checks, or a hostile one): the kiosk sets them aside and takes the rest,
    /// rather than failing the page, and every later pull with it.
    public var unreadable: [String] = []

    public init(changes: [SyncChange], cursor: Int64, more: Bool, serverMillis: Int64) {
        self.changes = changes
        self.cursor = cursor
        self.more = more
        self.serverMillis = serverMillis
    }

    enum CodingKeys: String, CodingKey { case changes, cursor, more, serverMillis }

    /// Consumes one element of a list whatever it holds (a failed decode does not move on).
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .changes)
        changes = []
        while !list.isAtEnd {
            do {
                changes.append(try list.decode(SyncChange.self))
            } catch {
                unreadable.append(String(String(describing: error).prefix(300)))
                _ = try list.decode(Skipped.self)
            }
        }
        cursor = try container.decode(Int64.self, forKey: .cursor)
        more = try container.decode(Bool.self, forKey: .more)
        serverMillis = try container.decode(Int64.self, forKey: .serverMillis)
    }

    /// A page as the server sends it, its changes spliced in as the log stores them (JSON of a
    /// change each, written by ``JSONEncoder/sync``): decoding and encoding every change of every
    /// page was most of a pull's work. A body that is not JSON at all is left out (it would spoil
    /// the page for every kiosk) and passed to `skipped`; one that is JSON but not a change reaches
    /// the kiosk, which sets it aside.
    public static func json(
        bodies: some Sequence<(seq: Int64, body: String)>, cursor: Int64, more: Bool, serverMillis: Int64,
        skipped: (Int64) -> Void = { _ in }
    ) -> [UInt8] {
        let page = LogPage(rows: bodies)
        return json(page, count: page.count, cursor: cursor, more: more, serverMillis: serverMillis, skipped: skipped)
    }

    /// The same page, from the first `count` changes of `page` (how the server reads them).
    public static func json(
        _ page: LogPage, count: Int, cursor: Int64, more: Bool, serverMillis: Int64, skipped: (Int64) -> Void = { _ in }
    ) -> [UInt8] {
        var out = Array(#"{"changes":["#.utf8)
        out.reserveCapacity(page.text.count + 100)
        var first = true
        page.text.withUnsafeBufferPointer { text in
            var start = 0
            for index in 0..<min(count, page.count) {
                let body = UnsafeBufferPointer(rebasing: text[start..<page.ends[index]])
                start = page.ends[index]
                guard JSONSyntax.isValue(buffer: body) else {
                    skipped(page.seqs[index])
                    continue
                }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: body)
            }
        }
        out.append(contentsOf: #"],"cursor":\#(cursor),"more":\#(more),"serverMillis":\#(serverMillis)}"#.utf8)
        return out
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changes, forKey: .changes)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(more, forKey: .more)
        try container.encode(serverMillis, forKey: .serverMillis)
    }
}

/// Changes of the site's log, oldest first, as the server reads them: their numbers, and their
/// bodies (each the JSON of a change, as stored) as one text with where each ends. Read as one row
/// of the database, a page costs the server little more than its bytes; a row a change cost more
/// than the change (PostgreSQL's message, the driver's decoding, a String each), and a site of
/// hundreds of kiosks is mostly pulls of every other kiosk's changes.
public struct LogPage: Sendable, Equatable {
    public private(set) var seqs: [Int64]
    public private(set) var text: [UInt8]
    /// Where each body ends in `text`.
    public private(set) var ends: [Int]

    public init(rows: some Sequence<(seq: Int64, body: String)>) {
        seqs = []
        text = []
        ends = []
        for row in rows {
            seqs.append(row.seq)
            text.append(contentsOf: row.body.utf8)
            ends.append(text.count)
        }
    }

    /// A page as the database aggregates it, or nil when it is not one: numbers that do not rise,
    /// or lengths that do not cut the text (a database whose encoding is not UTF-8 counts bytes of
    /// its own). The caller then reads the rows one by one.
    public init?(seqs: [Int64], lengths: [Int32], text: String) {
        guard seqs.count == lengths.count, zip(seqs, seqs.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        self.seqs = seqs
        self.text = Array(text.utf8)
        ends = []
        ends.reserveCapacity(lengths.count)
        var end = 0
        for length in lengths {
            guard length >= 0 else { return nil }
            end += Int(length)
            ends.append(end)
        }
        guard end == self.text.count else { return nil }
    }

    public var count: Int { seqs.count }
}

/// Where a kiosk's site is, saved as `sync.json` (mode 0600) in the data folder by `sync join`.
public struct SyncSettings: Sendable, Codable, Hashable {
    public static let fileName = "sync.json"
    public var url: String
    public var site: String
    public var token: String

    public init(url: String, site: String, token: String) {
        self.url = url
        self.site = site
        self.token = token
    }
}

/// One change the server would not store, and why (see ``SyncValidation``).
public struct RefusedChange: Sendable, Hashable, Codable {
    public var id: UUID
    public var reason: String
    public init(id: UUID, reason: String) {
        self.id = id
        self.reason = reason
    }
}

/// The server's answer to a batch it refused whole (400): nothing of it was stored, and `refused`
/// names each change that was wrong, so the kiosk can set those aside and send the rest again.
public struct RefusalResponse: Sendable, Codable {
    public var error: String
    public var refused: [RefusedChange]
    public init(error: String, refused: [RefusedChange]) {
        self.error = error
        self.refused = refused
    }
}
