#if Server
    import Crypto
    import Foundation
    import Synchronization
    public import Logging
    public import PostgresNIO
    public import StoryKit

    /// A database call that did not answer in time (the kiosk gets 503 and retries later).
    public struct DeadlineExceeded: Error, CustomStringConvertible {
        public var what: String
        public var description: String { "the database did not answer \(what) in time" }
    }

    /// Runs `operation` and gives up after `seconds`, from outside: the caller is resumed with
    /// ``DeadlineExceeded`` even when the operation never returns (postgres-nio 1.33.2 can leave a query
    /// pending forever after its connection was closed), and the operation is cancelled.
    func withDeadline<T: Sendable>(
        _ seconds: Double, _ what: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let gate = DeadlineGate<T>()
        return try await withCheckedThrowingContinuation { continuation in
            gate.set(continuation)
            let work = Task {
                do { gate.finish(.success(try await operation())) } catch { gate.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                if gate.finish(.failure(DeadlineExceeded(what: what))) { work.cancel() }
            }
        }
    }

    /// Resumes a continuation once, whichever of the work and the timer comes first.
    final class DeadlineGate<T: Sendable>: Sendable {
        private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

        func set(_ continuation: CheckedContinuation<T, any Error>) {
            self.continuation.withLock { $0 = continuation }
        }

        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            let waiting = continuation.withLock { $0.take() }
            waiting?.resume(with: result)
            return waiting != nil
        }
    }

    /// The server's PostgreSQL: its schema and migrations, sites and tokens, the per-site change log.
    public struct ServerDatabase: Sendable {
        public let client: PostgresClient
        let logger: Logger
        /// The deadline of each database call, in seconds.
        public var callDeadline: Double

        public init(client: PostgresClient, logger: Logger, callDeadline: Double = 5) {
            self.client = client
            self.logger = logger
            self.callDeadline = callDeadline
        }

        /// Versioned migrations, each a list of statements: append, never edit a shipped one.
        static let migrations: [[String]] = [
            [
                """
                CREATE TABLE site (
                    id bigserial PRIMARY KEY,
                    name text NOT NULL UNIQUE,
                    -- The pull cursor: taken (row locked) inside each upload transaction, so a change that
                    -- commits later always has a larger number (a bigserial would not promise that).
                    counter bigint NOT NULL DEFAULT 0,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE kiosk_token (
                    hash text PRIMARY KEY,   -- SHA-256 of the token, which itself is never stored
                    site_id bigint NOT NULL REFERENCES site ON DELETE CASCADE,
                    revoked_at timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE change (
                    site_id bigint NOT NULL REFERENCES site ON DELETE CASCADE,
                    id uuid NOT NULL,
                    seq bigint NOT NULL,
                    hlc text NOT NULL,
                    body text NOT NULL,      -- JSON of the change, as the kiosk sent it (clock re-stamped if untrusted)
                    received_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (site_id, id),
                    UNIQUE (site_id, seq)
                )
                """,
            ],
            [
                // The current name of each profile of a site and whether it was removed: what creating or
                // renaming a profile is checked against (unique per site, folded as a kiosk's nameKey).
                // Kept up to date inside the upload transactions; no UNIQUE index, since profiles made on
                // kiosks before they joined may already share a name (those become one child anyway).
                """
                CREATE TABLE profile_name (
                    site_id bigint NOT NULL REFERENCES site ON DELETE CASCADE,
                    profile uuid NOT NULL,
                    name_key text NOT NULL,
                    hlc text NOT NULL,
                    removed boolean NOT NULL DEFAULT false,
                    PRIMARY KEY (site_id, profile)
                )
                """,
                "CREATE INDEX profile_name_key ON profile_name (site_id, name_key)",
            ],
            // Staff accounts and web sessions (Web/StaffAccounts.swift).
            webMigration,
            // Changes of kinds the server does not know (SyncServer+UnknownKinds.swift).
            setAsideMigration,
        ]

        /// Creates or updates the schema (in one transaction, under an advisory lock).
        public func migrate() async throws {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(8750)", logger: logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS storyreader_schema (version int NOT NULL)", logger: logger)
                var version = 0
                for try await value in try await connection.query("SELECT max(version) FROM storyreader_schema", logger: logger).decode(Int?.self) {
                    version = value ?? 0
                }
                for (index, statements) in Self.migrations.enumerated() where index >= version {
                    for statement in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO storyreader_schema (version) VALUES (\(index + 1))", logger: logger)
                }
                if version == 1 {
                    // Names and removals already in the log fill the new profile_name table.
                    var rows: [(Int64, String)] = []
                    for try await row in try await connection.query(
                        "SELECT site_id, body FROM change WHERE body LIKE '%profileRemoved%' OR body LIKE '%\"name\"%' ORDER BY seq",
                        logger: logger
                    ).decode((Int64, String).self) { rows.append(row) }
                    for (site, body) in rows {
                        if let change = try? JSONDecoder.sync.decode(SyncChange.self, from: Data(body.utf8)) {
                            try await Self.trackName(change, site: site, on: connection, logger: logger)
                        }
                    }
                }
            }
        }

        static func hash(_ token: String) -> String {
            SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        /// Adds the site when new and a token for it; returns the token (shown once, stored hashed).
        public func addSite(_ name: String) async throws -> String {
            var bytes = [UInt8](repeating: 0, count: 24)
            var generator = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
            let secret = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let token = "\(name).\(secret)"
            let hash = Self.hash(token)
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("INSERT INTO site (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING", logger: logger)
                try await connection.query(
                    "INSERT INTO kiosk_token (hash, site_id) SELECT \(hash), id FROM site WHERE name = \(name)", logger: logger)
            }
            return token
        }

        /// Revokes every token of the site; returns how many were active.
        public func revokeSite(_ name: String) async throws -> Int {
            var count = 0
            let rows = try await client.query(
                """
                UPDATE kiosk_token SET revoked_at = now() WHERE revoked_at IS NULL
                AND site_id = (SELECT id FROM site WHERE name = \(name)) RETURNING 1
                """, logger: logger)
            for try await _ in rows { count += 1 }
            return count
        }

        /// The site a live token belongs to, or nil (unknown or revoked).
        func site(ofToken token: String) async throws -> (id: Int64, name: String)? {
            let hash = Self.hash(token)
            return try await withDeadline(callDeadline, "the token check") { [client, logger] in
                let rows = try await client.query(
                    "SELECT s.id, s.name FROM kiosk_token t JOIN site s ON s.id = t.site_id WHERE t.hash = \(hash) AND t.revoked_at IS NULL",
                    logger: logger)
                for try await (id, name) in rows.decode((Int64, String).self) { return (id, name) }
                return nil
            }
        }

        /// Stores the changes the site has not seen, numbering them with the site's counter inside
        /// the same transaction; returns how many were new. A PIN hash is dropped here: the PIN changes
        /// only through ``agree(site:changes:)``, never from a kiosk's offline outbox.
        ///
        /// - Throws: ``InvalidChanges`` when a change names a profile with a name another child of the
        ///   site has (what `/profiles` refuses too); nothing is stored then.
        func upload(site: Int64, changes: [SyncChange]) async throws -> Int {
            let changes = changes.filter { if case .pinHash = $0.body { false } else { true } }
            // Reads, positions and the like (nearly every batch) are one statement, which takes the
            // site's row lock for itself: one round trip to the database instead of seven.
            if !changes.contains(where: Self.tracksName) {
                return try await withDeadline(callDeadline, "the upload") { [client, logger] in
                    try await client.withConnection { try await Self.store(changes, site: site, on: $0, logger: logger) }
                }
            }
            // The refusal is returned, not thrown, out of the transaction (see `agree`).
            let outcome = try await withDeadline(callDeadline, "the upload") { [client, logger] () -> Result<Int, InvalidChanges> in
                try await client.withTransaction(logger: logger) { connection -> Result<Int, InvalidChanges> in
                    try await Self.lockSite(site, on: connection, logger: logger)
                    let refused = try await Self.takenNames(changes, site: site, on: connection, logger: logger)
                    if !refused.isEmpty { return .failure(InvalidChanges(refused: refused)) }
                    return .success(try await Self.store(changes, site: site, on: connection, logger: logger))
                }
            }
            return try outcome.get()
        }

        /// Changes of a batch the site refuses whole (400 to the kiosk, with each change and its reason).
        public struct InvalidChanges: Error, CustomStringConvertible {
            public var refused: [RefusedChange]
            public var description: String {
                "\(refused.count) change(s) refused: " + refused.prefix(3).map(\.reason).joined(separator: "; ")
            }
        }

        /// The name changes of `changes` whose name (folded as a kiosk's nameKey) another live child of
        /// the site has, or an earlier change of the same batch gives another child. Run under the
        /// site's row lock, so two kiosks cannot both take one name.
        static func takenNames(_ changes: [SyncChange], site: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [RefusedChange] {
            var claimed: [String: UUID] = [:]
            var refused: [RefusedChange] = []
            for change in changes {
                guard case .profileField(let profile, "name", let name?) = change.body else { continue }
                let key = ChildProfile.nameKey(name)
                var taken = claimed[key].map { $0 != profile } ?? false
                if !taken {
                    for try await _ in try await connection.query(
                        """
                        SELECT 1 FROM profile_name WHERE site_id = \(site) AND name_key = \(key) AND NOT removed AND profile <> \(profile)
                        """, logger: logger)
                    { taken = true }
                }
                if taken {
                    refused.append(
                        RefusedChange(
                            id: change.id, reason: "there is already a profile called \(Sanitizer.sanitizeLine(name)) on this site: choose another name"))
                } else {
                    claimed[key] = profile
                }
            }
            return refused
        }

        /// Why the site refused a change every kiosk must agree on (409 to the kiosk).
        public struct Disagreement: Error, CustomStringConvertible {
            public var description: String
        }

        /// Stores changes that need the whole site's agreement (creating, renaming, removing a profile;
        /// the PIN), after checking them under the site's row lock: a new name must be free on the site
        /// (folded as a kiosk's nameKey) and a removed profile cannot be edited.
        ///
        /// - Throws: ``Disagreement`` when the site refuses; nothing is stored then.
        func agree(site: Int64, changes: [SyncChange]) async throws -> Int {
            // The refusal is returned, not thrown, out of the transaction: postgres-nio wraps what its
            // closure throws (and nothing was written yet, so committing the check is harmless).
            let outcome = try await withDeadline(callDeadline, "the check with the site") { [client, logger] () -> Result<Int, Disagreement> in
                try await client.withTransaction(logger: logger) { connection -> Result<Int, Disagreement> in
                    try await Self.lockSite(site, on: connection, logger: logger)
                    for change in changes {
                        guard let profile = change.profile else { continue }
                        var removed = false
                        for try await value in try await connection.query(
                            "SELECT removed FROM profile_name WHERE site_id = \(site) AND profile = \(profile)", logger: logger
                        ).decode(Bool.self) { removed = value }
                        if removed { return .failure(Disagreement(description: "this profile was removed on another kiosk of the site")) }
                    }
                    if let taken = try await Self.takenNames(changes, site: site, on: connection, logger: logger).first {
                        return .failure(Disagreement(description: taken.reason))
                    }
                    return .success(try await Self.store(changes, site: site, on: connection, logger: logger))
                }
            }
            return try outcome.get()
        }

        /// Takes the site's row lock for the rest of the transaction (checks of names come before the
        /// changes are stored, and nobody may take a name in between).
        static func lockSite(_ site: Int64, on connection: PostgresConnection, logger: Logger) async throws {
            for try await _ in try await connection.query("SELECT 1 FROM site WHERE id = \(site) FOR UPDATE", logger: logger) {}
        }

        /// Inserts what the site has not seen, numbered on from the site's counter, in one statement
        /// whose UPDATE takes the site's row lock until the end of its transaction: nobody else numbers
        /// changes of this site meanwhile, so a batch is all or nothing, the numbers have no gaps, and a
        /// change committed later always has a larger number. Returns how many were new.
        ///
        /// Two uploads of the same new change at once fail one of them on the change's key (the one
        /// that waited saw it as new): nothing of that batch is stored, and the kiosk sends it again.
        static func store(_ changes: [SyncChange], site: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Int {
            var seen = Set<UUID>()
            let batch = changes.filter { seen.insert($0.id).inserted }
            guard !batch.isEmpty else { return 0 }
            let ids = batch.map(\.id)
            let hlcs = batch.map(\.hlc.description)
            let bodies = batch.map(\.jsonText)
            var stored = Set<UUID>()
            for try await id in try await connection.query(
                """
                WITH fresh AS (
                    SELECT t.id, t.hlc, t.body, row_number() OVER (ORDER BY t.n) AS k
                    FROM unnest(\(ids)::uuid[], \(hlcs)::text[], \(bodies)::text[]) WITH ORDINALITY AS t(id, hlc, body, n)
                    WHERE NOT EXISTS (SELECT 1 FROM change c WHERE c.site_id = \(site) AND c.id = t.id)),
                s AS (UPDATE site SET counter = counter + (SELECT count(*) FROM fresh) WHERE id = \(site)
                    RETURNING counter - (SELECT count(*) FROM fresh) AS base)
                INSERT INTO change (site_id, id, seq, hlc, body)
                SELECT \(site), fresh.id, s.base + fresh.k, fresh.hlc, fresh.body FROM s, fresh
                RETURNING id
                """, logger: logger
            ).decode(UUID.self) { stored.insert(id) }
            for change in batch where stored.contains(change.id) && tracksName(change) {
                try await trackName(change, site: site, on: connection, logger: logger)
            }
            return stored.count
        }

        /// Whether a change names or removes a profile (what `profile_name` keeps).
        static func tracksName(_ change: SyncChange) -> Bool {
            switch change.body {
            case .profileField(_, "name", _?), .profileRemoved: true
            default: false
            }
        }

        /// Keeps `profile_name` up to date with a stored change: the newest name of each profile (by
        /// clock, as every kiosk will show it), and removals for good.
        static func trackName(_ change: SyncChange, site: Int64, on connection: PostgresConnection, logger: Logger) async throws {
            switch change.body {
            case .profileField(let profile, "name", let name?):
                let key = ChildProfile.nameKey(name)
                let hlc = change.hlc.description
                try await connection.query(
                    """
                    INSERT INTO profile_name (site_id, profile, name_key, hlc) VALUES (\(site), \(profile), \(key), \(hlc))
                    ON CONFLICT (site_id, profile) DO UPDATE SET name_key = EXCLUDED.name_key, hlc = EXCLUDED.hlc
                    WHERE profile_name.hlc < EXCLUDED.hlc
                    """, logger: logger)
            case .profileRemoved(let profile):
                try await connection.query(
                    """
                    INSERT INTO profile_name (site_id, profile, name_key, hlc, removed) VALUES (\(site), \(profile), '', '', true)
                    ON CONFLICT (site_id, profile) DO UPDATE SET removed = true
                    """, logger: logger)
            default:
                break
            }
        }

        /// A stored change, or nil (logged) when its row no longer reads as one: the page goes on
        /// without it, rather than every kiosk's pull failing on it for ever.
        func decodeStored(_ row: (seq: Int64, body: String), with decoder: JSONDecoder) -> SyncChange? {
            do {
                return try decoder.decode(SyncChange.self, from: Data(row.body.utf8))
            } catch {
                logger.warning("change \(row.seq) of the log does not read as a change, skipped: \(String(describing: error).prefix(200))")
                return nil
            }
        }

        /// What a kiosk's pull finds: the page's rows, or why its token may not read the site.
        enum PullPage: Sendable {
            case unknownToken
            case otherSite
            case rows(LogPage)
        }

        /// The aggregates that read a page of `change` rows (named `c`, in order) as one row
        /// (``LogPage``). They take the rows in the order the subquery gives them, as PostgreSQL
        /// does for an ordered subquery; an `ORDER BY` in each would sort the page three times
        /// more. ``LogPage`` refuses numbers that do not rise, and the rows are then read one by one.
        static let pageColumns = "array_agg(c.seq), array_agg(octet_length(c.body)), string_agg(c.body, '')"

        /// The changes of site `name` after `cursor`, oldest first, if `token` is a live token of that
        /// site: the token check and the page are one query (one round trip, a pull's only one).
        func pull(token: String, site name: String, after cursor: Int64, limit: Int) async throws -> PullPage {
            let hash = Self.hash(token)
            enum Found {
                case page(PullPage)
                case rowByRow(site: Int64)
            }
            let found = try await withDeadline(callDeadline, "the download") { [client, logger] () -> Found in
                // One row, or none when the token is not a live one: the page's changes are
                // aggregated (nil when there are none, or the token is another site's).
                let rows = try await client.query(
                    """
                    SELECT s.name = \(name), s.id, p.* FROM kiosk_token t JOIN site s ON s.id = t.site_id
                    LEFT JOIN LATERAL (SELECT \(unescaped: Self.pageColumns)
                    FROM (SELECT seq, body FROM change WHERE site_id = s.id AND seq > \(cursor) ORDER BY seq LIMIT \(limit)) c) p
                    ON s.name = \(name)
                    WHERE t.hash = \(hash) AND t.revoked_at IS NULL
                    """, logger: logger)
                for try await (sameSite, site, seqs, lengths, text) in rows.decode((Bool, Int64, [Int64]?, [Int32]?, String?).self) {
                    guard sameSite else { return .page(.otherSite) }
                    guard let seqs, let lengths, let text else { return .page(.rows(LogPage(rows: []))) }
                    guard let page = LogPage(seqs: seqs, lengths: lengths, text: text) else { return .rowByRow(site: site) }
                    return .page(.rows(page))
                }
                return .page(.unknownToken)
            }
            switch found {
            case .page(let page): return page
            case .rowByRow(let site): return .rows(LogPage(rows: try await pull(site: site, after: cursor, limit: limit)))
            }
        }

        /// The site's changes after `cursor`, oldest first, as one page (see ``LogPage``).
        func pullPage(site: Int64, after cursor: Int64, limit: Int) async throws -> LogPage {
            let page = try await withDeadline(callDeadline, "the download") { [client, logger] () -> LogPage? in
                let rows = try await client.query(
                    """
                    SELECT \(unescaped: Self.pageColumns)
                    FROM (SELECT seq, body FROM change WHERE site_id = \(site) AND seq > \(cursor) ORDER BY seq LIMIT \(limit)) c
                    """, logger: logger)
                for try await (seqs, lengths, text) in rows.decode(([Int64]?, [Int32]?, String?).self) {
                    guard let seqs, let lengths, let text else { return LogPage(rows: []) }
                    return LogPage(seqs: seqs, lengths: lengths, text: text)
                }
                return LogPage(rows: [])
            }
            if let page { return page }
            return LogPage(rows: try await pull(site: site, after: cursor, limit: limit))
        }

        /// The site's changes after `cursor`, oldest first.
        func pull(site: Int64, after cursor: Int64, limit: Int) async throws -> [(seq: Int64, body: String)] {
            try await withDeadline(callDeadline, "the download") { [client, logger] in
                var result: [(seq: Int64, body: String)] = []
                let rows = try await client.query(
                    "SELECT seq, body FROM change WHERE site_id = \(site) AND seq > \(cursor) ORDER BY seq LIMIT \(limit)", logger: logger)
                for try await (seq, body) in rows.decode((Int64, String).self) { result.append((seq, body)) }
                return result
            }
        }
    }
#endif
