#if Server
import Crypto
import Foundation
import Logging
import PostgresNIO
import StoryKit

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
final class DeadlineGate<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let waiting: CheckedContinuation<T, any Error>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
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
        ]
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
    /// the same transaction; returns how many were new.
    func upload(site: Int64, changes: [(id: UUID, hlc: String, body: String)]) async throws -> Int {
        try await withDeadline(callDeadline, "the upload") { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                var counter: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT counter FROM site WHERE id = \(site) FOR UPDATE", logger: logger
                ).decode(Int64.self) { counter = value }
                // Under the site's row lock nobody else inserts for this site: what is not here yet
                // is new, and gets the next numbers in one statement (a batch is all or nothing).
                var known = Set<UUID>()
                let ids = changes.map(\.id)
                for try await id in try await connection.query(
                    "SELECT id FROM change WHERE site_id = \(site) AND id = ANY(\(ids))", logger: logger
                ).decode(UUID.self) { known.insert(id) }
                var seen = Set<UUID>()
                let fresh = changes.filter { !known.contains($0.id) && seen.insert($0.id).inserted }
                let stored = fresh.count
                if stored > 0 {
                    let freshIDs = fresh.map(\.id), hlcs = fresh.map(\.hlc), bodies = fresh.map(\.body)
                    try await connection.query(
                        """
                        INSERT INTO change (site_id, id, seq, hlc, body)
                        SELECT \(site), id, \(counter) + n, hlc, body
                        FROM unnest(\(freshIDs)::uuid[], \(hlcs)::text[], \(bodies)::text[]) WITH ORDINALITY AS t(id, hlc, body, n)
                        """, logger: logger)
                }
                if stored > 0 {
                    try await connection.query("UPDATE site SET counter = counter + \(Int64(stored)) WHERE id = \(site)", logger: logger)
                }
                return stored
            }
        }
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
