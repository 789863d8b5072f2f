import Foundation

/// The `/v1/` JSON API between kiosks and `storyreader serve`. Every request carries
/// `Authorization: Bearer TOKEN`; every path names the site, which must be the token's.
///
///     POST /v1/sites/{site}/changes        UploadRequest  -> UploadResponse
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
    public init(stored: Int, serverMillis: Int64, clockWarning: String?) {
        self.stored = stored
        self.serverMillis = serverMillis
        self.clockWarning = clockWarning
    }
}

public struct PullResponse: Sendable, Codable {
    public var changes: [SyncChange]
    /// The site's change counter of the last change returned (the next `after`).
    public var cursor: Int64
    public var more: Bool
    public var serverMillis: Int64
    public init(changes: [SyncChange], cursor: Int64, more: Bool, serverMillis: Int64) {
        self.changes = changes
        self.cursor = cursor
        self.more = more
        self.serverMillis = serverMillis
    }
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
