import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a sync round stopped (the outbox is kept; the next round retries).
public enum SyncFailure: Error, CustomStringConvertible, Sendable {
    case insecureURL(String)
    case badURL(String)
    case badToken
    case refused(status: Int, message: String)
    case unreachable(String)
    case timedOut(seconds: Double)

    public var description: String { localized(.english) }

    /// What went wrong, in `messages`' language.
    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .insecureURL(let url):
            messages.tr("{url} is plain http:// to another machine: the token would cross the network readable; use https:// (a TLS proxy, see docs/sites.md) or --insecure on a trusted network", ["url": url])
        case .badURL(let url): messages.tr("'{url}' is not an http:// or https:// address", ["url": url])
        case .badToken: messages.tr("the token should look like SITE.SECRET, as printed by 'storyreader serve site add SITE'")
        case .refused(let status, let message): messages.tr("the server refused ({status}): {message}", ["status": String(status), "message": message])
        case .unreachable(let why): messages.tr("the server could not be reached: {reason}", ["reason": why])
        case .timedOut(let seconds): messages.trn("the server did not answer within {count} second", "the server did not answer within {count} seconds", Int(seconds))
        }
    }

    /// Whether trying again later can help (not for a revoked token or a wrong site).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .timedOut: true
        case .refused(let status, _): status >= 500
        default: false
        }
    }
}

/// What one round moved.
public struct SyncRound: Sendable, Hashable, Codable {
    public var uploaded = 0
    public var storedNew = 0
    public var downloaded = 0
    public var applied = 0
    public var clockWarning: String?
    public var summary: String { summary(.english) }

    /// What moved, in `messages`' language.
    public func summary(_ messages: MessageCatalog) -> String {
        messages.trn("sent {count} change ({new} new to the server), received {received} ({applied} changed something here)",
                     "sent {count} changes ({new} new to the server), received {received} ({applied} changed something here)", uploaded,
                     ["new": String(storedNew), "received": String(downloaded), "applied": String(applied)])
    }
}

/// The kiosk side of the `/v1/` API, on Foundation's URLSession only (no extra package, and nothing
/// of it runs unless the kiosk joined a site).
public struct SyncClient: Sendable {
    public var settings: SyncSettings
    /// The deadline of one HTTP call, kept from outside the request (see `exchange`).
    public var callDeadline: Double
    public var batchSize: Int
    /// The kiosk's time sent with an agreement (`agree`), which the server compares with its own;
    /// a round uses its store's clock.
    public var clock: WallClock

    public init(settings: SyncSettings, callDeadline: Double = 10, batchSize: Int = 500, clock: WallClock = .system) {
        self.settings = settings
        self.callDeadline = callDeadline
        self.batchSize = batchSize
        self.clock = clock
    }

    /// Checks an address a kiosk is told to join: http(s) only, and plain http only to this machine
    /// unless `insecure`.
    public static func checkURL(_ text: String, insecure: Bool) throws(SyncFailure) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty
        else { throw .badURL(text) }
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        if scheme == "http" && !loopback && !insecure { throw .insecureURL(text) }
        return url
    }

    /// The site named in a token (`SITE.SECRET`).
    public static func site(ofToken token: String) throws(SyncFailure) -> String {
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].count >= 16 else { throw .badToken }
        return String(parts[0])
    }

    /// Saves the settings as `sync.json`, readable by the owner only (it holds the token).
    public static func save(_ settings: SyncSettings, in dataDirectory: URL) throws {
        let url = dataDirectory.appendingPathComponent(SyncSettings.fileName)
        let data = try JSONEncoder().encode(settings)
        // Replaced whole or not at all, and the owner's alone from its first byte.
        try AtomicFile.write(data, to: url, permissions: 0o600)
    }

    /// The saved settings, or nil when this kiosk never joined a site (there is no `sync.json`).
    /// One that is there but cannot be read or is not settings is an error naming it, never taken
    /// for "not joined".
    public static func load(from dataDirectory: URL) throws(StoreError) -> SyncSettings? {
        let path = dataDirectory.appendingPathComponent(SyncSettings.fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try StoryStore.checkRegularFile(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .fileNotReadable(path: path, reason: access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "read failed")
        }
        do {
            return try JSONDecoder().decode(SyncSettings.self, from: data)
        } catch {
            throw .badSyncSettings(path: path)
        }
    }

    /// One round: upload the outbox in batches (deleting each batch only once the server confirmed
    /// it), then pull everything after the cursor. Records the outcome for `sync --status`.
    @discardableResult
    public func round(_ store: StoryStore) async throws -> SyncRound {
        do {
            let result = try await runRound(store)
            try store.recordSyncOutcome(error: nil, moved: result.summary, clockWarning: result.clockWarning)
            return result
        } catch {
            try? store.recordSyncOutcome(error: String(describing: error))
            throw error
        }
    }

    func runRound(_ store: StoryStore) async throws -> SyncRound {
        var round = SyncRound()
        while true {
            let pending = try store.pendingChanges(limit: batchSize)
            guard let last = pending.last else { break }
            // The store's clock is this kiosk's clock (what its changes were stamped with).
            let request = UploadRequest(changes: pending.map(\.change), kioskMillis: HybridLogicalClock.millis(store.now))
            let response: UploadResponse = try await call("POST", SyncAPI.changesPath(site: settings.site), body: request)
            try store.confirmUploaded(through: last.seq)
            round.uploaded += pending.count
            round.storedNew += response.stored
            round.clockWarning = response.clockWarning
            try store.setClockOffset(millis: Self.offset(serverMillis: response.serverMillis, kioskMillis: HybridLogicalClock.millis(store.now)))
        }
        while true {
            let cursor = try store.syncCursor()
            let page: PullResponse = try await call(
                "GET", SyncAPI.changesPath(site: settings.site) + "?after=\(cursor)&limit=\(batchSize)", body: Optional<UploadRequest>.none)
            round.downloaded += page.changes.count
            round.applied += try store.applyPulled(page.changes, cursor: page.cursor)
            // A round with nothing to send still learns whether this clock runs ahead.
            if round.uploaded == 0 {
                round.clockWarning = ClockSkew.warning(kioskMillis: HybridLogicalClock.millis(store.now), serverMillis: page.serverMillis)
            }
            if !page.more { break }
        }
        return round
    }

    /// Server minus local time, ignored when within a second (no need to move a good clock).
    static func offset(serverMillis: Int64, kioskMillis: Int64) -> Int64 {
        let offset = serverMillis - kioskMillis
        return abs(offset) < 1000 ? 0 : offset
    }

    /// The site as the server sees it (for tests and `sync --status --json`).
    public func siteSnapshot() async throws -> SyncSnapshot {
        try await call("GET", SyncAPI.statePath(site: settings.site), body: Optional<UploadRequest>.none)
    }

    func call<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, body: Body?) async throws -> Answer {
        guard let url = URL(string: settings.url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw SyncFailure.badURL(settings.url)
        }
        var request = URLRequest(url: url, timeoutInterval: callDeadline)
        request.httpMethod = method
        request.setValue("Bearer \(settings.token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONEncoder.sync.encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.exchange(request, deadline: callDeadline)
        } catch let failure as SyncFailure {
            throw failure
        } catch let cancelled as CancellationError {
            throw cancelled
        } catch let error as URLError where error.code == .timedOut {
            throw SyncFailure.timedOut(seconds: callDeadline)
        } catch {
            throw SyncFailure.unreachable(error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let message = (try? JSONDecoder().decode([String: String].self, from: data))?["error"] ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw SyncFailure.refused(status: status, message: message)
        }
        return try JSONDecoder.sync.decode(Answer.self, from: data)
    }
}
