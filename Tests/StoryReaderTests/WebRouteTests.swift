#if Server
    import Foundation
    import HTTPTypes
    import Hummingbird
    import HummingbirdTesting
    import Logging
    import NIOCore
    import StoryKit
    import StoryKitTestSupport
    import Testing

    @testable import StoryServer

    /// Issue 44: the web page's routes driven in process with HummingbirdTesting (no socket), on the
    /// same router `storyreader serve` builds and a real PostgreSQL (the suite's). The real server
    /// and real browser are WebPageTests and Tests/Browser.
    @Suite(.serialized, .enabled(if: ServerBuild.available, Comment(rawValue: ServerBuild.why)), SharedSite())
    struct WebRouteTests {
        /// One answer, read whole.
        struct Answer {
            var status: HTTPResponse.Status
            var headers: HTTPFields
            var body: String
            var cookies: [String] { headers[values: .setCookie] }

            /// The value a `Set-Cookie` gives `name`, if any.
            func cookie(_ name: String) -> String? {
                cookies.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) }
            }

            /// The form's hidden CSRF token.
            var csrf: String {
                guard let range = body.range(of: "name=\"csrf\" value=\"") else { return "" }
                return String(body[range.upperBound...].prefix { $0 != "\"" })
            }
        }

        /// A browser's side of the router: the cookies it holds, the forms it posts.
        struct Visitor {
            let client: any TestClientProtocol
            var cookies: [String: String] = [:]

            mutating func send(_ method: HTTPRequest.Method, _ path: String, form: [(String, String)]? = nil, bearer: String? = nil, json: Data? = nil)
                async throws -> Answer
            {
                var headers = HTTPFields()
                if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
                var body: ByteBuffer?
                if let form {
                    headers[.contentType] = "application/x-www-form-urlencoded"
                    var allowed = CharacterSet.alphanumerics
                    allowed.insert(charactersIn: "-._~")
                    body = ByteBuffer(
                        string: form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&"))
                }
                if let bearer { headers[.authorization] = "Bearer \(bearer)" }
                if let json {
                    headers[.contentType] = "application/json"
                    body = ByteBuffer(bytes: json)
                }
                let answer = try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
                    Answer(status: response.status, headers: response.headers, body: String(buffer: response.body))
                }
                for cookie in answer.cookies {
                    let pair = cookie.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2 else { continue }
                    cookies[String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1])
                }
                return answer
            }

            mutating func signIn(_ name: String, _ passphrase: String) async throws -> Answer {
                let page = try await send(.get, "/")
                return try await send(.post, "/sign-in", form: [("csrf", page.csrf), ("name", name), ("passphrase", passphrase)])
            }
        }

        /// The router `storyreader serve` runs (the kiosks' API and the page), tested in process.
        func withRoutes(_ body: @Sendable (any TestClientProtocol, ServerDatabase) async throws -> Void) async throws {
            let client = SyncServer.client(try DatabaseAddress(url: SiteFixture.current!.postgres.url))
            // Not a test of deadlines: a loaded machine (CI) may take more than the server's 5 s to migrate and answer first.
            let database = ServerDatabase(client: client, logger: Logger(label: "web-route-tests"), callDeadline: 60)
            let router = Router()
            SyncServer.routes(router, database: database)
            WebRoutes(database: database, languages: .englishOnly).install(router)
            var app = Application(router: router, services: [client])
            app.beforeServerStarts { try await database.migrate() }
            try await app.test(.router) { test in try await body(test, database) }
        }

        /// A site with one child (named through the kiosks' API) and a librarian; its token, the
        /// child's id and the librarian's passphrase.
        func site(_ name: String, child: String, _ visitor: inout Visitor, _ database: ServerDatabase) async throws -> (String, UUID, String) {
            let token = try await database.addSite(name)
            let id = UUID()
            let now = HybridLogicalClock.millis(Date())
            let upload = UploadRequest(
                changes: [SyncChange(hlc: HLCTimestamp(millis: now, node: "kiosk-\(name)"), body: .profileField(profile: id, field: "name", value: child))],
                kioskMillis: now)
            // A 503 is the server's "try again later" (the kiosks retry it): on a loaded machine the
            // suite's PostgreSQL, shared with the hostile-server tests' thousands of sockets, may not
            // give a connection in time. This test is of the routes, not of that wait.
            var stored = try await visitor.send(.post, "/v1/sites/\(name)/changes", bearer: token, json: upload.json)
            for _ in 0..<4 where stored.status == .serviceUnavailable {
                try await Task.sleep(for: .seconds(2))
                stored = try await visitor.send(.post, "/v1/sites/\(name)/changes", bearer: token, json: upload.json)
            }
            #expect(stored.status == .ok, "\(stored.body)")
            let passphrase = try await database.addStaff(site: name, name: "Librarian of \(name)", role: .librarian, children: [], cost: .testing)
            return (token, id, passphrase)
        }

        @Test func signingInGivesAStrictCookieAndEveryPageItsHeaders() async throws {
            try await withRoutes { client, database in
                var visitor = Visitor(client: client)
                let (_, mia, passphrase) = try await site("route-one", child: "Mia", &visitor, database)
                let signInPage = try await visitor.send(.get, "/")
                #expect(signInPage.status == .ok && signInPage.body.contains(#"<label for="passphrase">Passphrase</label>"#))
                #expect(signInPage.cookie(WebRoutes.signInCookie)?.isEmpty == false)
                let signedIn = try await visitor.send(
                    .post, "/sign-in", form: [("csrf", signInPage.csrf), ("name", "librarian of route-one"), ("passphrase", passphrase)])
                #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/")
                let session = try #require(signedIn.cookies.first { $0.hasPrefix(WebRoutes.sessionCookie + "=") })
                #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict") && session.contains("Path=/") && !session.contains("Secure"))
                let children = try await visitor.send(.get, "/")
                #expect(children.status == .ok && children.body.contains(#"<a href="/children/\#(mia.uuidString)">Mia</a>"#))
                for path in ["/", "/children/\(mia.uuidString)", "/kiosks", "/privacy"] {
                    let page = try await visitor.send(.get, path)
                    #expect(page.status == .ok, "\(path)")
                    #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.hasPrefix("default-src 'none'") == true, "\(path)")
                    #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                    #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                    #expect(page.headers[.cacheControl] == "no-store" && page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                }
                let style = try await visitor.send(.get, "/style.css")
                #expect(style.headers[.contentType] == "text/css; charset=utf-8" && style.body.contains("focus-visible"))
            }
        }

        @Test func behindTheTLSProxyTheSessionCookieIsSecure() async throws {
            try await withRoutes { client, database in
                var visitor = Visitor(client: client)
                let (_, _, passphrase) = try await site("route-tls", child: "Ada", &visitor, database)
                let page = try await visitor.send(.get, "/")
                var headers = HTTPFields()
                headers[.cookie] = "\(WebRoutes.signInCookie)=\(visitor.cookies[WebRoutes.signInCookie] ?? "")"
                headers[.contentType] = "application/x-www-form-urlencoded"
                headers[HTTPField.Name("X-Forwarded-Proto")!] = "https"
                let cookies = try await client.execute(
                    uri: "/sign-in", method: .post, headers: headers,
                    body: ByteBuffer(string: "csrf=\(page.csrf)&name=Librarian+of+route-tls&passphrase=\(passphrase)")
                ) { $0.headers[values: .setCookie] }
                #expect(cookies.contains { $0.hasPrefix(WebRoutes.sessionCookie + "=") && $0.contains("; Secure") })
            }
        }

        @Test func aFormWithoutItsTokenChangesNothing() async throws {
            try await withRoutes { client, database in
                var visitor = Visitor(client: client)
                let (_, mia, passphrase) = try await site("route-csrf", child: "Mia", &visitor, database)
                // Sign-in: the form's token must match its cookie.
                _ = try await visitor.send(.get, "/")
                let forged = try await visitor.send(
                    .post, "/sign-in", form: [("csrf", "forged"), ("name", "Librarian of route-csrf"), ("passphrase", passphrase)])
                #expect(forged.status == .forbidden && forged.cookie(WebRoutes.sessionCookie) == nil)
                #expect(try await visitor.signIn("Librarian of route-csrf", passphrase).status == .seeOther)
                let path = "/children/\(mia.uuidString)"
                for (action, form) in [("/profile", [("age", "9")]), ("/correct", [("place", "fox")])] {
                    let refused = try await visitor.send(.post, path + action, form: form + [("csrf", "not-the-session's")])
                    #expect(refused.status == .forbidden && refused.body.contains("nothing was changed"), "\(action)")
                }
                #expect(try await visitor.send(.get, path).body.contains(#"type="number" value="6""#))
                // Sign-out too: with the wrong token the session lives on.
                #expect(try await visitor.send(.post, "/sign-out", form: [("csrf", "x")]).status == .forbidden)
                #expect(try await visitor.send(.get, "/kiosks").status == .ok)
            }
        }

        @Test func withoutASessionEveryPageIsTheSignInPage() async throws {
            try await withRoutes { client, database in
                var visitor = Visitor(client: client)
                let (_, mia, _) = try await site("route-anon", child: "Mia", &visitor, database)
                for path in ["/kiosks", "/privacy", "/children/\(mia.uuidString)"] {
                    let page = try await visitor.send(.get, path)
                    #expect(page.status == .seeOther && page.headers[.location] == "/" && !page.body.contains("Mia"), "\(path)")
                }
                let posted = try await visitor.send(.post, "/children/\(mia.uuidString)/profile", form: [("age", "9")])
                #expect(posted.status == .seeOther)
                // A made-up session cookie is no session.
                visitor.cookies[WebRoutes.sessionCookie] = String(repeating: "a", count: 43)
                let home = try await visitor.send(.get, "/")
                #expect(home.body.contains(#"<label for="passphrase">"#) && !home.body.contains("Mia"))
            }
        }

        @Test func anotherSitesChildIsNotFound() async throws {
            try await withRoutes { client, database in
                var visitor = Visitor(client: client)
                let (_, _, passphrase) = try await site("route-here", child: "Leo", &visitor, database)
                let (_, ivy, _) = try await site("route-there", child: "Ivy", &visitor, database)
                #expect(try await visitor.signIn("Librarian of route-here", passphrase).status == .seeOther)
                let page = try await visitor.send(.get, "/")
                #expect(page.body.contains(">Leo</a>") && !page.body.contains("Ivy"))
                for path in ["/children/\(ivy.uuidString)", "/children/\(UUID().uuidString)", "/children/nonsense"] {
                    let missing = try await visitor.send(.get, path)
                    #expect(missing.status == .notFound && !missing.body.contains("Ivy"), "\(path)")
                }
                let posted = try await visitor.send(.post, "/children/\(ivy.uuidString)/profile", form: [("csrf", page.csrf), ("age", "9")])
                #expect(posted.status == .notFound)
            }
        }
    }
#endif
