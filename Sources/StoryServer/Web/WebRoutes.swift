#if Server
    import Foundation
    import HTTPTypes
    import Hummingbird
    import Synchronization
    import StoryKit

    /// The web page for parents and librarians at `/` (the kiosks' API stays under `/v1/`).
    struct WebRoutes: Sendable {
        let database: ServerDatabase
        let languages: InterfaceLanguages
        let states: SiteStates
        let editor = WebEditor()
        let clock: WallClock
        /// Passphrase checks under way: scrypt takes 32 MiB and a tenth of a second each, so a
        /// flood of tries is answered "busy" beyond these, and every other page keeps answering.
        let hashing = HashingSlots(2)

        static let sessionCookie = "storyreader_session"
        static let signInCookie = "storyreader_sign_in"

        /// How many passphrase checks may run at once.
        final class HashingSlots: Sendable {
            private let taken = Mutex(0)
            let count: Int
            init(_ count: Int) { self.count = count }

            /// Takes a slot, or says none is free.
            func take() -> Bool {
                taken.withLock { taken in
                    guard taken < count else { return false }
                    taken += 1
                    return true
                }
            }

            func give() { taken.withLock { $0 -= 1 } }
        }

        init(database: ServerDatabase, languages: InterfaceLanguages, clock: WallClock = .system) {
            self.database = database
            self.languages = languages
            self.states = SiteStates(database: database)
            self.clock = clock
        }

        // MARK: - Answers

        /// The catalog the browser asks for (Accept-Language, by weight), else English.
        func messages(_ request: Request) -> MessageCatalog {
            let header = request.headers[.acceptLanguage] ?? ""
            let asked = header.split(separator: ",").enumerated().compactMap { index, part -> (String, Double, Int)? in
                let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let tag = pieces.first, !tag.isEmpty else { return nil }
                let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                return (String(tag.prefix { $0 != "-" && $0 != "_" }).lowercased(), weight, index)
            }.sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }
            for (language, weight, _) in asked where weight > 0 && InterfaceLanguage.supported.contains(language) {
                // A catalog that does not yet translate the page would give English text marked as
                // another language (read aloud with the wrong voice): English then, marked English.
                let catalog = languages.catalog(language)
                return catalog.translates("Passphrase") ? catalog : .english
            }
            return .english
        }

        /// Headers every page carries: no script, no framing, nothing sniffed, no referrer, no cache.
        static func headers(_ extra: [(HTTPField.Name, String)] = []) -> HTTPFields {
            var fields = HTTPFields()
            fields[.contentType] = "text/html; charset=utf-8"
            fields[HTTPField.Name("Content-Security-Policy")!] =
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
            fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            fields[.cacheControl] = "no-store"
            for (name, value) in extra { fields.append(HTTPField(name: name, value: value)) }
            return fields
        }

        static func html(_ text: String, status: HTTPResponse.Status = .ok, _ extra: [(HTTPField.Name, String)] = []) -> Response {
            Response(status: status, headers: headers(extra), body: .init(byteBuffer: ByteBuffer(string: text)))
        }

        static func redirect(_ location: String, _ extra: [(HTTPField.Name, String)] = []) -> Response {
            Response(status: .seeOther, headers: headers([(.location, location)] + extra))
        }

        /// A cookie the page script cannot read, sent only to this site, and only over TLS when the
        /// proxy says the browser came over TLS (docs/sites.md sets X-Forwarded-Proto).
        static func cookie(_ name: String, _ value: String, request: Request, maxAge: Int? = nil) -> (HTTPField.Name, String) {
            let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "; Secure" : ""
            let age = maxAge.map { "; Max-Age=\($0)" } ?? ""
            return (.setCookie, "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict\(secure)\(age)")
        }

        /// The fields of a posted form (application/x-www-form-urlencoded, at most 64 KiB).
        static func form(_ request: Request) async throws -> [String: String] {
            let buffer = try await request.body.collect(upTo: 64 * 1024)
            var fields: [String: String] = [:]
            for pair in String(buffer: buffer).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ part: Substring) -> String {
                    String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                guard let key = parts.first else { continue }
                fields[decode(key)] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return fields
        }

        func session(_ request: Request) async throws -> WebSession? {
            guard let token = request.cookies[Self.sessionCookie]?.value, !token.isEmpty, token.count <= 100 else { return nil }
            return try await database.session(token: token)
        }

        /// Runs a page that needs a session: without one, the sign-in page; on database trouble, a
        /// page that says so (503).
        func signedIn(_ request: Request, _ body: (WebSession, WebPage) async throws -> Response) async -> Response {
            let messages = messages(request)
            do {
                guard let session = try await session(request) else { return Self.redirect("/") }
                return try await body(session, WebPage(messages: messages, session: session))
            } catch {
                return unavailable(messages, error)
            }
        }

        func unavailable(_ messages: MessageCatalog, _ error: any Error) -> Response {
            database.logger.warning("web page: \(String(describing: error).prefix(200))")
            let page = WebPage(messages: messages, session: nil)
            return Self.html(
                page.document(
                    title: messages.tr("Not available"),
                    "<p>\(page.tr("The server could not reach its database. Wait a minute, then reload the page."))</p>"), status: .serviceUnavailable)
        }

        func notFound(_ page: WebPage) -> Response {
            Self.html(
                page.document(
                    title: page.messages.tr("Not found"),
                    "<p>\(page.tr("There is no such page for you here.")) <a href=\"/\">\(page.tr("Back to the children"))</a></p>"),
                status: .notFound)
        }

        func expired(_ page: WebPage) -> Response {
            Self.html(
                page.document(
                    title: page.messages.tr("Form expired"),
                    "<p>\(page.tr("This form is out of date or came from elsewhere, so nothing was changed. Go back, reload the page and try again.")) <a href=\"/\">\(page.tr("Back to the children"))</a></p>"
                ),
                status: .forbidden)
        }

        // MARK: - Routes

        func install(_ router: Router<BasicRequestContext>) {
            router.get("/style.css") { _, _ in
                var fields = Self.headers()
                fields[.contentType] = "text/css; charset=utf-8"
                fields[.cacheControl] = "max-age=3600"
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: WebPage.stylesheet)))
            }
            router.get("/") { request, _ in
                let messages = messages(request)
                do {
                    guard let session = try await session(request) else { return signInPage(request, messages: messages, problem: nil) }
                    return try await childrenPage(session, WebPage(messages: messages, session: session))
                } catch {
                    return unavailable(messages, error)
                }
            }
            router.post("/sign-in") { request, _ in await signIn(request) }
            router.post("/sign-out") { request, _ in
                await signedIn(request) { session, page in
                    guard try await Self.form(request)["csrf"] == session.csrf else { return expired(page) }
                    try await database.signOut(token: session.token)
                    return Self.redirect("/", [Self.cookie(Self.sessionCookie, "", request: request, maxAge: 0)])
                }
            }
            router.get("/kiosks") { request, _ in
                await signedIn(request) { session, page in
                    guard session.role == .librarian else { return notFound(page) }
                    return kiosksPage(try await database.kiosks(site: session.site), page)
                }
            }
            router.get("/privacy") { request, _ in
                await signedIn(request) { _, page in privacyPage(page) }
            }
            router.get("/children/:child") { request, context in
                await signedIn(request) { session, page in
                    guard let (child, state) = try await child(context, session) else { return notFound(page) }
                    return childPage(child, state: state, page, problems: [:], typed: [:], notice: nil)
                }
            }
            router.post("/children/:child/profile") { request, context in
                await signedIn(request) { session, page in
                    let form = try await Self.form(request)
                    guard form["csrf"] == session.csrf else { return expired(page) }
                    guard let (child, state) = try await child(context, session) else { return notFound(page) }
                    return try await saveProfile(child, state: state, form: form, session: session, page)
                }
            }
            router.post("/children/:child/correct") { request, context in
                await signedIn(request) { session, page in
                    let form = try await Self.form(request)
                    guard form["csrf"] == session.csrf else { return expired(page) }
                    guard let (child, state) = try await child(context, session) else { return notFound(page) }
                    return try await correct(child, state: state, form: form, session: session, page)
                }
            }
        }

        /// The child the path names, if the signed-in grown-up may see it (else nil: 404, the same
        /// answer for another site's child, a removed one, another parent's, and nonsense).
        func child(_ context: BasicRequestContext, _ session: WebSession) async throws -> (WebChild, SiteStates.Entry)? {
            guard let text = context.parameters.get("child"), let id = UUID(uuidString: text) else { return nil }
            let entry = try await states.current(site: session.site)
            guard let child = WebChild.one(id, in: entry.state), session.mayRead(childNamed: child.name) else { return nil }
            return (child, entry)
        }
    }
#endif
