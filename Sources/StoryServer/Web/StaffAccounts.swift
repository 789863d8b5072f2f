#if Server
    import Crypto
    import Foundation
    import PostgresNIO
    public import StoryKit

    /// A grown-up who may sign in to the web page: a librarian sees every child of the site, a
    /// parent only the children named with `--child`.
    public struct StaffMember: Sendable, Hashable {
        public enum Role: String, Sendable, CaseIterable { case librarian, parent }
        public var name: String
        public var site: String
        public var role: Role
        public var children: [String]
    }

    /// What a sign-in found.
    enum SignInOutcome: Sendable {
        /// The session's token (for the cookie) and its CSRF token.
        case signedIn(token: String, csrf: String)
        case wrong
        /// Locked after five wrong passphrases: the seconds left.
        case locked(seconds: Int)
    }

    /// The signed-in grown-up behind a live session.
    struct WebSession: Sendable {
        var staff: Int64
        var site: Int64
        var siteName: String
        var name: String
        var role: StaffMember.Role
        /// The children a parent may see, as ``ChildProfile/nameKey(_:)`` folds their names.
        var children: Set<String>
        var csrf: String
        var token: String

        func mayRead(childNamed name: String) -> Bool {
            role == .librarian || children.contains(ChildProfile.nameKey(name))
        }
    }

    /// Staff accounts and web sessions (tables `staff`, `staff_child`, `web_session`).
    extension ServerDatabase {
        /// The web page's tables (the server's third migration).
        static let webMigration = [
            """
            CREATE TABLE staff (
                id bigserial PRIMARY KEY,
                site_id bigint NOT NULL REFERENCES site ON DELETE CASCADE,
                name text NOT NULL,
                -- Names are unique on the server, not per site: the sign-in form asks only for a name.
                name_key text NOT NULL UNIQUE,
                role text NOT NULL CHECK (role IN ('librarian', 'parent')),
                -- scrypt of the passphrase, as a kiosk keeps its PIN (PINHash), never the passphrase.
                salt bytea NOT NULL,
                key bytea NOT NULL,
                rounds int NOT NULL,
                block_size int NOT NULL,
                parallelism int NOT NULL,
                failures int NOT NULL DEFAULT 0,
                locked_until timestamptz,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE staff_child (
                staff_id bigint NOT NULL REFERENCES staff ON DELETE CASCADE,
                name_key text NOT NULL,
                PRIMARY KEY (staff_id, name_key)
            )
            """,
            """
            CREATE TABLE web_session (
                hash text PRIMARY KEY,   -- SHA-256 of the cookie's token, which itself is never stored
                staff_id bigint NOT NULL REFERENCES staff ON DELETE CASCADE,
                csrf text NOT NULL,
                last_seen timestamptz NOT NULL DEFAULT now()
            )
            """,
        ]

        /// Wrong passphrases that lock a name, and for how long.
        static let freeSignInTries = 5
        static let signInLockout = 15 * 60
        /// A session unused this long is over.
        static let sessionIdleHours = 8

        /// A random secret of `bytes` bytes as URL-safe base64 (tokens, passphrases, CSRF tokens).
        static func secret(_ bytes: Int) -> String {
            var generator = SystemRandomNumberGenerator()
            let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }

        /// A passphrase to type: 20 letters and digits in groups of five (about 100 bits), without
        /// the look-alikes 0, o, 1, l and i.
        static func passphrase() -> String {
            let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
            var generator = SystemRandomNumberGenerator()
            let letters = (0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            return stride(from: 0, to: 20, by: 5).map { String(letters[$0..<$0 + 5]) }.joined(separator: "-")
        }

        /// Adds a grown-up to a site that exists; returns the passphrase (shown once, stored as scrypt).
        public func addStaff(
            site: String, name: String, role: StaffMember.Role, children: [String], cost: PINHashCost = .standard
        ) async throws -> String {
            let passphrase = Self.passphrase()
            let hash = try PINHash.make(pin: passphrase, cost: cost)
            let key = ChildProfile.nameKey(name)
            let childKeys = Array(Set(children.map(ChildProfile.nameKey)))
            let outcome = try await client.withTransaction(logger: logger) { connection -> String? in
                var siteID: Int64?
                for try await id in try await connection.query("SELECT id FROM site WHERE name = \(site)", logger: logger).decode(Int64.self) {
                    siteID = id
                }
                guard let siteID else { return "there is no site called \(site): add it first with 'storyreader serve site add \(site)'" }
                for try await _ in try await connection.query("SELECT 1 FROM staff WHERE name_key = \(key)", logger: logger) {
                    return "there is already a grown-up called \(name) on this server: choose another name, or remove that one first"
                }
                var staffID: Int64 = 0
                for try await id in try await connection.query(
                    """
                    INSERT INTO staff (site_id, name, name_key, role, salt, key, rounds, block_size, parallelism)
                    VALUES (\(siteID), \(name), \(key), \(role.rawValue), \(hash.salt), \(hash.key), \(hash.cost.rounds),
                    \(hash.cost.blockSize), \(hash.cost.parallelism)) RETURNING id
                    """, logger: logger
                ).decode(Int64.self) { staffID = id }
                try await connection.query(
                    "INSERT INTO staff_child (staff_id, name_key) SELECT \(staffID), unnest(\(childKeys)::text[])", logger: logger)
                return nil
            }
            if let outcome { throw ServerDatabase.Disagreement(description: outcome) }
            return passphrase
        }

        /// Every grown-up of the server, by site and name.
        public func listStaff() async throws -> [StaffMember] {
            var result: [StaffMember] = []
            let rows = try await client.query(
                """
                SELECT s.name, site.name, s.role, coalesce((SELECT array_agg(c.name_key ORDER BY c.name_key) FROM staff_child c
                WHERE c.staff_id = s.id), '{}') FROM staff s JOIN site ON site.id = s.site_id ORDER BY site.name, s.name_key
                """, logger: logger)
            for try await (name, site, role, children) in rows.decode((String, String, String, [String]).self) {
                result.append(StaffMember(name: name, site: site, role: StaffMember.Role(rawValue: role) ?? .parent, children: children))
            }
            return result
        }

        /// Removes a grown-up (and ends their sessions); false when there is none by that name.
        public func removeStaff(name: String) async throws -> Bool {
            var removed = false
            for try await _ in try await client.query("DELETE FROM staff WHERE name_key = \(ChildProfile.nameKey(name)) RETURNING 1", logger: logger) {
                removed = true
            }
            return removed
        }

        /// A hash of no passphrase anybody has, at the cost `staff add` gives every passphrase.
        static let unknownNameHash: PINHash? = try? PINHash.make(pin: secret(24), cost: .standard)

        /// Checks a passphrase: five wrong ones lock the name for 15 minutes (no hash is computed
        /// while locked). A right one starts a session; an unknown name is checked against
        /// ``unknownNameHash``, so that it takes as long as a known one.
        func signIn(name: String, passphrase: String) async throws -> SignInOutcome {
            // No grown-up's name holds controls (`staff add` refuses them), and PostgreSQL refuses NUL.
            guard !name.unicodeScalars.contains("\0"), Sanitizer.sanitizeLine(name) == name else { return .wrong }
            let key = ChildProfile.nameKey(name)
            let found = try await withDeadline(callDeadline, "the sign-in") { [client, logger] () -> (Int64, PINHash, Int)? in
                let rows = try await client.query(
                    """
                    SELECT id, salt, key, rounds, block_size, parallelism,
                    greatest(0, ceil(extract(epoch FROM locked_until - now())))::int FROM staff WHERE name_key = \(key)
                    """, logger: logger)
                for try await (id, salt, hashKey, rounds, block, parallelism, locked) in rows.decode((Int64, Data, Data, Int, Int, Int, Int?).self) {
                    return (id, PINHash(salt: salt, key: hashKey, cost: PINHashCost(rounds: rounds, blockSize: block, parallelism: parallelism)), locked ?? 0)
                }
                return nil
            }
            guard let (staff, hash, locked) = found else {
                // An unknown name costs the scrypt a known one costs: how long the answer takes
                // does not tell whether a name exists.
                _ = try? Self.unknownNameHash?.matches(passphrase)
                return .wrong
            }
            if locked > 0 { return .locked(seconds: locked) }
            guard hash.cost.isSane, try hash.matches(passphrase) else {
                let seconds = try await withDeadline(callDeadline, "the sign-in") { [client, logger] () -> Int in
                    var seconds = 0
                    for try await locked in try await client.query(
                        """
                        UPDATE staff SET failures = CASE WHEN failures + 1 >= \(unescaped: String(Self.freeSignInTries)) THEN 0 ELSE failures + 1 END,
                        locked_until = CASE WHEN failures + 1 >= \(unescaped: String(Self.freeSignInTries)) THEN now() + make_interval(secs => \(unescaped: String(Self.signInLockout)))
                        ELSE locked_until END WHERE id = \(staff) RETURNING locked_until IS NOT NULL AND locked_until > now()
                        """, logger: logger
                    ).decode(Bool.self) where locked { seconds = Self.signInLockout }
                    return seconds
                }
                return seconds > 0 ? .locked(seconds: seconds) : .wrong
            }
            let token = Self.secret(32)
            let csrf = Self.secret(24)
            _ = try await withDeadline(callDeadline, "the sign-in") { [client, logger] in
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("UPDATE staff SET failures = 0, locked_until = NULL WHERE id = \(staff)", logger: logger)
                    try await connection.query(
                        "INSERT INTO web_session (hash, staff_id, csrf) VALUES (\(Self.hash(token)), \(staff), \(csrf))", logger: logger)
                    // Sessions of anybody left idle too long go with each sign-in.
                    try await connection.query(
                        "DELETE FROM web_session WHERE last_seen < now() - make_interval(hours => \(unescaped: String(Self.sessionIdleHours)))", logger: logger)
                }
            }
            return .signedIn(token: token, csrf: csrf)
        }

        /// The live session of a cookie's token (its idle clock restarted), or nil.
        func session(token: String) async throws -> WebSession? {
            let hash = Self.hash(token)
            return try await withDeadline(callDeadline, "the session check") { [client, logger] () -> WebSession? in
                let rows = try await client.query(
                    """
                    WITH s AS (UPDATE web_session SET last_seen = now()
                        WHERE hash = \(hash) AND last_seen > now() - make_interval(hours => \(unescaped: String(Self.sessionIdleHours))) RETURNING staff_id, csrf)
                    SELECT st.id, st.site_id, site.name, st.name, st.role, s.csrf,
                    coalesce((SELECT array_agg(c.name_key) FROM staff_child c WHERE c.staff_id = st.id), '{}')
                    FROM s JOIN staff st ON st.id = s.staff_id JOIN site ON site.id = st.site_id
                    """, logger: logger)
                for try await (staff, site, siteName, name, role, csrf, children) in rows.decode((Int64, Int64, String, String, String, String, [String]).self)
                {
                    return WebSession(
                        staff: staff, site: site, siteName: siteName, name: name, role: StaffMember.Role(rawValue: role) ?? .parent,
                        children: Set(children), csrf: csrf, token: token)
                }
                return nil
            }
        }

        func signOut(token: String) async throws {
            _ = try await withDeadline(callDeadline, "the sign-out") { [client, logger] in
                try await client.query("DELETE FROM web_session WHERE hash = \(Self.hash(token))", logger: logger)
            }
        }

        /// Each kiosk of the site (the node of its changes' clocks) and when the server last took a
        /// change from it. The web page's own changes (node `web`) are not a kiosk.
        func kiosks(site: Int64) async throws -> [(name: String, lastSync: Date)] {
            try await withDeadline(callDeadline, "the kiosks") { [client, logger] in
                var result: [(name: String, lastSync: Date)] = []
                let rows = try await client.query(
                    """
                    SELECT substr(hlc, 22) AS node, max(received_at) FROM change WHERE site_id = \(site)
                    GROUP BY 1 HAVING substr(hlc, 22) <> \(WebEditor.node) ORDER BY 2 DESC
                    """, logger: logger)
                for try await (name, last) in rows.decode((String, Date).self) { result.append((name, last)) }
                return result
            }
        }
    }
#endif
