#if Server
    import Foundation
    import Hummingbird
    import HummingbirdCore
    import Logging
    public import PostgresNIO
    public import StoryKit

    /// `storyreader serve`: the `/v1/` JSON API in front of PostgreSQL (see ``SyncAPI``).
    public struct SyncServer: Sendable {
        public struct Options: Sendable {
            public var database: DatabaseAddress
            public var host: String
            public var port: Int
            public var callDeadline: Double
            /// Seconds a connection may stay silent, or take to send a request's headers, before it is
            /// closed (slowloris); a request's body gets four times as long.
            public var idleTimeout: Double
            /// The most connections served at once (nil: as many as the open-file limit allows, less
            /// what the database and the process need); more wait to be accepted.
            public var maximumConnections: Int?
            /// The web page's languages (en/es/fr/de from `po/`), chosen by each browser's Accept-Language.
            public var languages: InterfaceLanguages = .englishOnly
            public init(
                database: DatabaseAddress, host: String, port: Int, callDeadline: Double = 5, idleTimeout: Double = 30, maximumConnections: Int? = nil
            ) {
                self.database = database
                self.host = host
                self.port = port
                self.callDeadline = callDeadline
                self.idleTimeout = idleTimeout
                self.maximumConnections = maximumConnections
            }
        }

        public static func client(_ address: DatabaseAddress) -> PostgresClient {
            var configuration = PostgresClient.Configuration(
                host: address.host, port: address.port, username: address.user, password: address.password,
                database: address.database, tls: .disable)
            // Fail fast when the database is away: the kiosk retries later anyway.
            configuration.options.connectTimeout = .seconds(3)
            return PostgresClient(configuration: configuration)
        }

        /// Runs a database task (migrations, `site add`) with a client that lives only for it.
        public static func withDatabase<T: Sendable>(
            _ address: DatabaseAddress, _ body: @escaping @Sendable (ServerDatabase) async throws -> T
        ) async throws -> T {
            let client = client(address)
            let database = ServerDatabase(client: client, logger: Logger(label: "storyreader.serve"))
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                defer { group.cancelAll() }
                let result = try await withDeadline(30, "the set-up") {
                    try await database.migrate()
                    return try await body(database)
                }
                return result
            }
        }

        /// Serves until SIGTERM or SIGINT, then stops cleanly: no new connection is taken, requests
        /// under way are answered, the database client closes. `ready` is called once the port is open.
        public static func run(_ options: Options, ready: @escaping @Sendable (String) -> Void = { _ in }) async throws {
            let logger = Logger(label: "storyreader.serve")
            let client = client(options.database)
            let database = ServerDatabase(client: client, logger: logger, callDeadline: options.callDeadline)
            let router = Router()
            routes(router, database: database)
            WebRoutes(database: database, languages: options.languages).install(router)
            let bodyDeadline = TimeAmount.milliseconds(Int64(options.idleTimeout * 4000))
            let maximum = options.maximumConnections ?? ConnectionLimit.fromOpenFiles()
            let budget = ConnectionBudget(limit: ConnectionLimit.withoutToken(of: maximum), logger: logger)
            let guesses = WrongTokenGuesses()
            let requestTimeout = TimeAmount.milliseconds(Int64(min(options.idleTimeout, ConnectionLimit.requestTimeout) * 1000))
            var app = Application(
                router: router,
                server: .http1(
                    configuration: .init(
                        additionalChannelHandlers: [
                            RequestBodyDeadline(limit: bodyDeadline), ConnectionGuard(budget: budget, guesses: guesses, requestTimeout: requestTimeout),
                        ],
                        idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)))),
                configuration: .init(
                    address: .hostname(options.host, port: options.port),
                    availableConnectionsDelegate: MaximumAvailableConnections(maximum, logger: logger)),
                // The database client runs beside the server and stops after it (ServiceGroup's order).
                services: [client],
                onServerRunning: { channel in ready("\(options.host):\(channel.localAddress?.port ?? options.port)") },
                logger: logger)
            app.beforeServerStarts { try await withDeadline(30, "the schema migration") { try await database.migrate() } }
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        }

        static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
            let data = try JSONEncoder.sync.encode(value)
            return Response(
                status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }

        static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
            let data = (try? JSONEncoder.sync.encode(["error": message])) ?? Data()
            return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }

        /// The site the request may use: 401 without a live token, 403 for another site's path.
        static func authorize(_ request: Request, context: BasicRequestContext, database: ServerDatabase) async throws -> Int64 {
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
                throw Denied(status: .unauthorized, message: tokenNeeded)
            }
            guard let site = try await database.site(ofToken: String(header.dropFirst(7))) else {
                throw Denied(status: .unauthorized, message: tokenUnknown)
            }
            guard context.parameters.get("site") == site.name else {
                throw Denied(status: .forbidden, message: tokenOfAnotherSite)
            }
            return site.id
        }

        static let tokenNeeded = "a kiosk token is needed (Authorization: Bearer TOKEN)"
        static let tokenUnknown = "this token is unknown or was revoked"
        static let tokenOfAnotherSite = "this token belongs to another site"

        struct Denied: Error {
            var status: HTTPResponse.Status
            var message: String
        }

        /// Database trouble becomes 503, so the kiosk keeps its outbox and tries again later.
        static func guarded(_ body: () async throws -> Response) async -> Response {
            do {
                return try await body()
            } catch let denied as Denied {
                return error(denied.status, denied.message)
            } catch let disagreement as ServerDatabase.Disagreement {
                return error(.conflict, disagreement.description)
            } catch let invalid as ServerDatabase.InvalidChanges {
                let answer = RefusalResponse(error: "nothing was stored: " + invalid.description, refused: invalid.refused)
                return (try? json(answer, status: .badRequest)) ?? error(.badRequest, answer.error)
            } catch let deadline as DeadlineExceeded {
                return error(.serviceUnavailable, deadline.description)
            } catch let http as any HTTPResponseError {
                // A body over the limit is 413 (the kiosk sends smaller batches), never 503 (try again).
                return error(http.status, http.status == .contentTooLarge ? "the request body is too large" : "\(http.status)")
            } catch let decoding as DecodingError {
                return error(.badRequest, "the request is not a valid batch: \(decoding)")
            } catch {
                return Self.error(.serviceUnavailable, "the database is unavailable: \(String(describing: error).prefix(200))")
            }
        }

        /// Checks every change of a batch by the rules kiosks check what they pull by (``SyncValidation``).
        ///
        /// - Throws: ``ServerDatabase/InvalidChanges`` naming each bad change: the batch is refused whole.
        static func validate(_ upload: UploadRequest, now: Int64) throws {
            let refused = upload.changes.compactMap { change in
                SyncValidation.problem(with: change, nowMillis: now).map { RefusedChange(id: change.id, reason: $0) }
            }
            if !refused.isEmpty { throw ServerDatabase.InvalidChanges(refused: refused) }
        }

        /// The most changes a page holds: the kiosk's `limit`, 1 to 5,000 (1,000 when not given).
        static func pageLimit(_ request: Request) -> Int {
            min(max(request.uri.queryParameters.get("limit", as: Int.self) ?? 1000, 1), 5000)
        }

        /// A pull's page of `rows` (read with a limit of `limit + 1`: one more says more follow).
        static func pageJSON(_ rows: LogPage, after: Int64, limit: Int, database: ServerDatabase, clock: WallClock) -> [UInt8] {
            let count = min(limit, rows.count)
            return PullResponse.json(
                rows, count: count, cursor: count > 0 ? rows.seqs[count - 1] : after, more: rows.count > limit,
                serverMillis: HybridLogicalClock.millis(clock.now())
            ) { seq in database.logger.warning("change \(seq) of the log is not JSON, skipped") }
        }

        /// `clock` is the server's time: what kiosks' stamps are checked against and restamped with.
        static func routes(
            _ router: Router<BasicRequestContext>, database: ServerDatabase, restamp: RestampClock = RestampClock(),
            clock: WallClock = .system
        ) {
            router.get("/v1/health") { _, _ in "ok" }
            router.post("/v1/sites/:site/changes") { request, context in
                await guarded {
                    let site = try await authorize(request, context: context, database: database)
                    let buffer = Data(buffer: try await request.body.collect(upTo: 16 * 1024 * 1024))
                    let read = try readUpload(buffer)
                    var upload = read.upload
                    let unknown = read.unknown
                    let now = HybridLogicalClock.millis(clock.now())
                    // Dates from a clock far ahead are told in the server's time before they are checked.
                    upload.changes = ClockSkew.datesCorrected(upload.changes, kioskMillis: upload.kioskMillis, serverMillis: now)
                    try validate(upload, now: now)
                    // A clock far ahead is not trusted: the server's time replaces it (in the kiosk's order).
                    let stored = try await database.upload(site: site, changes: restamp.restamped(upload.changes, serverMillis: now))
                    try await database.setAside(site: site, changes: unknown)
                    let answer = UploadResponse(
                        stored: stored, serverMillis: now, clockWarning: ClockSkew.warning(kioskMillis: upload.kioskMillis, serverMillis: now),
                        unknownKinds: unknown.isEmpty ? nil : unknown.map { RefusedChange(id: $0.id, reason: $0.reason) })
                    // A kiosk that names its cursor gets its first pull in the same answer (one
                    // exchange a round instead of two).
                    guard let after = request.uri.queryParameters.get("after", as: Int64.self) else { return try json(answer) }
                    let limit = pageLimit(request)
                    let page = pageJSON(
                        try await database.pullPage(site: site, after: after, limit: limit + 1), after: after, limit: limit, database: database, clock: clock)
                    let body = UploadResponse.json(encoded: try JSONEncoder.sync.encode(answer), page: page)
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
                }
            }
            // Changes every kiosk of the site must agree on, asked for at once (never from the outbox):
            // creating, renaming and removing a profile; setting, changing and clearing the PIN.
            for path in ["profiles", "pin"] {
                router.post("/v1/sites/:site/\(path)") { request, context in
                    await guarded {
                        let site = try await authorize(request, context: context, database: database)
                        let buffer = try await request.body.collect(upTo: 1024 * 1024)
                        let upload = try JSONDecoder.sync.decode(UploadRequest.self, from: Data(buffer: buffer))
                        guard !upload.changes.isEmpty, upload.changes.allSatisfy({ path == "pin" ? $0.isPIN : $0.isProfileChange }) else {
                            throw Denied(status: .badRequest, message: "only \(path == "pin" ? "the PIN" : "profile") changes go to /\(path)")
                        }
                        let now = HybridLogicalClock.millis(clock.now())
                        try validate(upload, now: now)
                        let stored = try await database.agree(site: site, changes: restamp.restamped(upload.changes, serverMillis: now))
                        return try json(
                            UploadResponse(
                                stored: stored, serverMillis: now, clockWarning: ClockSkew.warning(kioskMillis: upload.kioskMillis, serverMillis: now)))
                    }
                }
            }
            router.get("/v1/sites/:site/changes") { request, context in
                await guarded {
                    guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
                        throw Denied(status: .unauthorized, message: Self.tokenNeeded)
                    }
                    let after = request.uri.queryParameters.get("after", as: Int64.self) ?? 0
                    let limit = pageLimit(request)
                    // The token check and the page in one query: a pull's only trip to the database.
                    let rows: LogPage
                    switch try await database.pull(
                        token: String(header.dropFirst(7)), site: context.parameters.get("site") ?? "", after: after, limit: limit + 1)
                    {
                    case .unknownToken: throw Denied(status: .unauthorized, message: Self.tokenUnknown)
                    case .otherSite: throw Denied(status: .forbidden, message: Self.tokenOfAnotherSite)
                    case .rows(let found): rows = found
                    }
                    let body = pageJSON(rows, after: after, limit: limit, database: database, clock: clock)
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
                }
            }
            router.get("/v1/sites/:site/state") { request, context in
                await guarded {
                    let site = try await authorize(request, context: context, database: database)
                    var state = SiteState()
                    var cursor: Int64 = 0
                    let decoder = JSONDecoder.sync
                    while true {
                        let rows = try await database.pull(site: site, after: cursor, limit: 5000)
                        for row in rows { if let change = database.decodeStored(row, with: decoder) { state.apply(change) } }
                        guard let last = rows.last else { break }
                        cursor = last.seq
                    }
                    return try json(state.snapshot)
                }
            }
        }
    }
#endif
