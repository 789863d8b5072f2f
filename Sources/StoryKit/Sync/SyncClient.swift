public import Foundation

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
    /// The server refused changes of the batch as invalid and stored nothing of it (400).
    case invalidChanges([RefusedChange])
    /// The server answered a page that does not move the cursor on, yet says more follow.
    case stuckCursor(Int64)
    /// The server's answer was larger than any the API gives (`limit` bytes): left unread.
    case answerTooLarge(limit: Int)

    public var description: String { localized(.english) }

    /// What went wrong, in `messages`' language.
    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .insecureURL(let url):
            messages.tr(
                "{url} is plain http:// to another machine: the token would cross the network readable; use https:// (a TLS proxy, see docs/sites.md) or --insecure on a trusted network",
                ["url": url])
        case .badURL(let url): messages.tr("'{url}' is not an http:// or https:// address", ["url": url])
        case .badToken: messages.tr("the token should look like SITE.SECRET, as printed by 'storyreader serve site add SITE'")
        case .refused(let status, let message): messages.tr("the server refused ({status}): {message}", ["status": String(status), "message": message])
        // The reason is one of ours (marked for the catalogs) or the system's words.
        case .unreachable(let why): messages.tr("the server could not be reached: {reason}", ["reason": messages.text(why)])
        case .timedOut(let seconds):
            messages.trn("the server did not answer within {count} second", "the server did not answer within {count} seconds", Int(seconds))
        case .invalidChanges(let refused):
            messages.trn(
                "the server refused {count} change as invalid: {reason}", "the server refused {count} changes as invalid: {reason}",
                refused.count, ["reason": Sanitizer.sanitizeLine(refused.first?.reason ?? "")])
        case .stuckCursor(let cursor):
            messages.tr("the server said more changes follow but did not move past change {cursor}: the round was ended", ["cursor": String(cursor)])
        case .answerTooLarge(let limit):
            messages.tr("the server's answer is larger than {size} MB: it was not read", ["size": String(limit / (1024 * 1024))])
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
    /// Changes set aside as invalid this round (this kiosk's refused by the server, pulled ones
    /// that broke the rules; see ``SyncValidation``).
    public var setAside = 0
    public var clockWarning: String?
    public var summary: String { summary(.english) }

    /// What moved, in `messages`' language.
    public func summary(_ messages: MessageCatalog) -> String {
        messages.trn(
            "sent {count} change ({new} new to the server), received {received} ({applied} changed something here)",
            "sent {count} changes ({new} new to the server), received {received} ({applied} changed something here)", uploaded,
            ["new": String(storedNew), "received": String(downloaded), "applied": String(applied)])
    }
}

/// The kiosk side of the `/v1/` API: a small HTTP/1.1 client of its own for `http://` sites
/// (``PlainHTTP``), Foundation's URLSession for `https://` ones (no extra package, and nothing of
/// it runs unless the kiosk joined a site).
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

    /// The most pages one round pulls: a server that keeps saying "more" cannot keep a kiosk busy
    /// for ever (the next round goes on from the cursor).
    public static let maximumPagesPerRound = 200

    /// The server times a kiosk believes (2020 to 2286): another is ignored, with a warning.
    public static let plausibleServerMillis: ClosedRange<Int64> = 1_577_836_800_000...HLCTimestamp.millisRange.upperBound
    static let implausibleServerClock = N_(
        "the server's clock is out of range (before 2020 or after 2286): it was ignored, and this machine keeps its own time")

    func runRound(_ store: StoryStore) async throws -> SyncRound {
        var round = SyncRound()
        var batch = batchSize
        // The first page of the pull when the last upload brought it, and the cursor it follows.
        var uploadedPage: (page: PullResponse, after: Int64)?
        // Outbox entries of kinds the server does not know yet: they stay in the outbox for a later
        // round (an updated server stores them), and this round goes on past them.
        var held = Set<Int64>()
        var sentThrough: Int64 = 0
        while true {
            let pending = try store.pendingChanges(limit: batch, after: sentThrough, excluding: held)
            guard let last = pending.last else { break }
            // The store's clock is this kiosk's clock (what its changes were stamped with).
            let request = UploadRequest(changes: pending.map(\.change), kioskMillis: HybridLogicalClock.millis(store.now))
            // The outbox's last batch asks for the pull's first page in the same answer.
            let after = pending.count < batch ? try store.syncCursor() : nil
            let response: UploadResponse
            do {
                response = try await call("POST", SyncAPI.changesPath(site: settings.site) + (after.map { pageQuery(after: $0) } ?? ""), body: request)
            } catch SyncFailure.invalidChanges(let refused) {
                // Nothing of the batch was stored: the bad ones are set aside, the rest goes again.
                let reasons = Dictionary(refused.map { ($0.id, $0.reason) }, uniquingKeysWith: { first, _ in first })
                let bad = pending.compactMap { entry in reasons[entry.change.id].map { (seq: entry.seq, change: entry.change, reason: $0) } }
                guard !bad.isEmpty else { throw SyncFailure.invalidChanges(refused) }
                try store.setAsideRefused(bad)
                round.setAside += bad.count
                continue
            } catch SyncFailure.refused(let status, let message) where status == 400 && message.contains("not a valid batch") {
                // A server that predates a kind refuses the batch as no batch at all, naming no
                // change: the kinds newer than it wait for a later round, the rest goes again.
                let later = pending.filter { SyncChange.laterKinds.contains($0.change.kind) }
                guard !later.isEmpty else { throw SyncFailure.refused(status: status, message: message) }
                held.formUnion(later.map(\.seq))
                continue
            } catch SyncFailure.refused(let status, let message) where status == 413 {
                // Too large for the server: smaller batches, and a change too large alone is set aside.
                if pending.count > 1 {
                    batch = max(1, pending.count / 2)
                    continue
                }
                try store.setAsideRefused([(seq: last.seq, change: last.change, reason: "too large for the server (413): \(message.prefix(200))")])
                round.setAside += 1
                continue
            }
            // What the server kept apart as of a kind it does not know stays in the outbox.
            let unknown = Set((response.unknownKinds ?? []).map(\.id))
            let kept = pending.filter { unknown.contains($0.change.id) }.map(\.seq)
            held.formUnion(kept)
            try store.confirmUploaded(through: last.seq, keeping: held)
            sentThrough = last.seq
            if let after, let page = response.page { uploadedPage = (page, after) }
            round.uploaded += pending.count - kept.count
            round.storedNew += response.stored
            if Self.plausibleServerMillis.contains(response.serverMillis) {
                round.clockWarning = response.clockWarning
                try store.setClockOffset(millis: Self.offset(serverMillis: response.serverMillis, kioskMillis: HybridLogicalClock.millis(store.now)))
            } else {
                round.clockWarning = Self.implausibleServerClock
            }
        }
        for _ in 0..<Self.maximumPagesPerRound {
            let cursor: Int64
            let page: PullResponse
            if let early = uploadedPage.take() {
                (page, cursor) = (early.page, early.after)
            } else {
                cursor = try store.syncCursor()
                page = try await call("GET", SyncAPI.changesPath(site: settings.site) + pageQuery(after: cursor), body: Optional<UploadRequest>.none)
            }
            let serverClock = Self.plausibleServerMillis.contains(page.serverMillis) ? page.serverMillis : nil
            // Pulled changes are checked at the server's time, else at this machine's.
            let before = try store.setAsideCount()
            round.downloaded += page.changes.count
            round.applied += try store.applyPulled(page.changes, cursor: page.cursor, serverMillis: serverClock, unreadable: page.unreadable)
            round.setAside += try store.setAsideCount() - before
            // A round with nothing to send still learns whether this clock runs ahead.
            if round.uploaded == 0 {
                round.clockWarning =
                    serverClock.map { ClockSkew.warning(kioskMillis: HybridLogicalClock.millis(store.now), serverMillis: $0) }
                    ?? Self.implausibleServerClock
            }
            if !page.more { break }
            // "More" from a page that did not move the cursor would ask for the same page for ever.
            if try store.syncCursor() <= cursor { throw SyncFailure.stuckCursor(cursor) }
        }
        return round
    }

    /// The query of a pull's page after `cursor`.
    func pageQuery(after cursor: Int64) -> String { "?after=\(cursor)&limit=\(batchSize)" }

    /// Server minus local time, ignored when within a second (no need to move a good clock).
    static func offset(serverMillis: Int64, kioskMillis: Int64) -> Int64 {
        let offset = serverMillis.saturatingSubtract(kioskMillis)
        return offset > -1000 && offset < 1000 ? 0 : offset
    }

    /// The site as the server sees it (for tests and `sync --status --json`).
    public func siteSnapshot() async throws -> SyncSnapshot {
        try await call("GET", SyncAPI.statePath(site: settings.site), body: Optional<UploadRequest>.none)
    }

    func call<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, body: Body?) async throws -> Answer {
        guard let url = URL(string: settings.url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw SyncFailure.badURL(settings.url)
        }
        let encoded = try body.map { body in try (body as? UploadRequest)?.json ?? JSONEncoder.sync.encode(body) }
        let (status, data) = try await exchange(method, url, body: encoded)
        if status == 400, let refusal = try? JSONDecoder().decode(RefusalResponse.self, from: data), !refusal.refused.isEmpty {
            throw SyncFailure.invalidChanges(refusal.refused)
        }
        guard status == 200 else {
            let message = (try? JSONDecoder().decode([String: String].self, from: data))?["error"] ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw SyncFailure.refused(status: status, message: message)
        }
        return try Self.decode(Answer.self, from: data)
    }

    /// An answer as `JSONDecoder` reads it: a page, or an upload's answer that brings one, read
    /// by ``SyncPageReader`` where it is sure of it (most of a busy site's round was decoding them).
    static func decode<Answer: Decodable>(_ type: Answer.Type, from data: Data) throws -> Answer {
        if type == PullResponse.self, let page = SyncPageReader.pull(data) as? Answer { return page }
        if type == UploadResponse.self, let answer = SyncPageReader.upload(data) as? Answer { return answer }
        return try JSONDecoder.sync.decode(type, from: data)
    }

    /// One request and its answer's status and body: `http://` by ``PlainHTTP`` (a connection
    /// kept alive from round to round), `https://` by URLSession. Both end by `callDeadline`.
    func exchange(_ method: String, _ url: URL, body: Data?) async throws -> (status: Int, body: Data) {
        var headers = [("Authorization", "Bearer \(settings.token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if url.scheme?.lowercased() == "http" {
            let answer = try await PlainHTTP.exchange(method, url, headers: headers, body: body, deadline: callDeadline)
            return (answer.status, answer.body)
        }
        var request = URLRequest(url: url, timeoutInterval: callDeadline)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        do {
            let (data, response) = try await Self.exchange(request, deadline: callDeadline)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch let failure as SyncFailure {
            throw failure
        } catch let cancelled as CancellationError {
            throw cancelled
        } catch let error as URLError where error.code == .timedOut {
            throw SyncFailure.timedOut(seconds: callDeadline)
        } catch {
            throw SyncFailure.unreachable(error.localizedDescription)
        }
    }
}
