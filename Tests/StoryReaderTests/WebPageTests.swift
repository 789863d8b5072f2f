import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A browser without a browser: keeps cookies, follows no redirect, reads the HTML. The page needs
/// no script, so what it answers is all a browser would show (the real-browser checks are
/// Tests/Browser/web_page_test.py).
final class WebVisitor: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let base: String
    var cookies: [String: String] = [:]
    var language = "en"
    private lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    struct Page {
        var status: Int
        var headers: [String: String]
        var setCookies: [String]
        var body: String
    }

    init(base: String) { self.base = base }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) { completionHandler(nil) }

    func get(_ path: String) async throws -> Page { try await send("GET", path, form: nil) }

    func post(_ path: String, _ form: [(String, String)]) async throws -> Page { try await send("POST", path, form: form) }

    /// The value of the hidden `csrf` field of the page.
    static func csrf(_ page: Page) -> String {
        guard let range = page.body.range(of: "name=\"csrf\" value=\"") else { return "" }
        return String(page.body[range.upperBound...].prefix { $0 != "\"" })
    }

    func send(_ method: String, _ path: String, form: [(String, String)]?) async throws -> Page {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.setValue(language, forHTTPHeaderField: "Accept-Language")
        if !cookies.isEmpty { request.setValue(cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
        if let form {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            request.httpBody = Data(
                form.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
                    .joined(separator: "&").utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        let setCookies = (headers["set-cookie"] ?? "").components(separatedBy: ", storyreader").enumerated().map {
            $0.offset == 0 ? $0.element : "storyreader" + $0.element
        }
        .filter { !$0.isEmpty }
        for cookie in setCookies {
            let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            if pair[1].isEmpty { cookies[String(pair[0])] = nil } else { cookies[String(pair[0])] = String(pair[1]) }
        }
        return Page(status: http.statusCode, headers: headers, setCookies: setCookies, body: String(decoding: data, as: UTF8.self))
    }

    /// Opens the sign-in page and signs in; the answer to the sign-in.
    @discardableResult
    func signIn(_ name: String, _ passphrase: String) async throws -> Page {
        let page = try await get("/")
        return try await post("/sign-in", [("csrf", Self.csrf(page)), ("name", name), ("passphrase", passphrase)])
    }
}

/// Issue 44: the web page for parents and librarians, against a real `storyreader serve` and a
/// real PostgreSQL, with kiosks (data folders on this machine) syncing with the same site.
@Suite(.serialized, .enabled(if: ServerBuild.available, Comment(rawValue: ServerBuild.why)), SharedSite())
struct WebPageTests {
    var site: SiteFixture { SiteFixture.current! }

    func storyreader(_ arguments: [String]) throws -> ProcessResult {
        try ExternalProcess.run(TestPaths.binary, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
    }

    func addSite(_ name: String) throws -> String {
        let result = try storyreader(["serve", "site", "add", name, "--database", site.postgres.url])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds a grown-up; their passphrase.
    func addStaff(_ siteName: String, _ name: String, role: String, children: [String] = []) throws -> String {
        let result = try storyreader(
            ["serve", "staff", "add", siteName, "--name", name, "--role", role, "--database", site.postgres.url] + children.flatMap { ["--child", $0] })
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func kiosk(_ label: String, token: String) throws -> (folder: TemporaryDatabase, store: StoryStore, client: SyncClient) {
        let folder = try TemporaryDatabase(label)
        folder.clock.advance(by: Date().timeIntervalSince(folder.clock.now))
        let store = try folder.open()
        try store.markJoined()
        let client = SyncClient(
            settings: SyncSettings(url: site.serve.url, site: try SyncClient.site(ofToken: token), token: token), callDeadline: 5)
        store.useSiteAuthority(client)
        return (folder, store, client)
    }

    /// The path of a child's page, from the children page's link.
    static func link(to name: String, in page: WebVisitor.Page) -> String? {
        guard let end = page.body.range(of: "\">\(name)</a>") else { return nil }
        guard let start = page.body[..<end.lowerBound].range(of: "href=\"", options: .backwards) else { return nil }
        return String(page.body[start.upperBound..<end.lowerBound])
    }

    @Test func aKioskReadShowsOnThePageAndAnAgeSavedThereReachesTheKiosk() async throws {
        let token = try addSite("web-one")
        let passphrase = try addStaff("web-one", "Ana Librarian", role: "librarian")
        let k = try kiosk("web-one", token: token)
        defer { k.folder.remove() }
        let mia = try k.store.addProfile(ChildProfile(name: "Mia", age: 5), authorization: k.store.authorize(pin: nil))
        // A kiosk that loaded no library sends no title; one that did, the library's.
        _ = try k.store.recordFinishedRead(profileID: mia.id!, storyID: "the-fox-and-the-grapes")
        k.store.storyTitles.know([("the-little-red-hen", "The Little Red Hen")])
        _ = try k.store.recordFinishedRead(profileID: mia.id!, storyID: "the-little-red-hen")
        _ = try await k.client.round(k.store)

        let web = WebVisitor(base: site.serve.url)
        let signedIn = try await web.signIn("ana librarian", passphrase)
        #expect(signedIn.status == 303)
        let sessionCookie = try #require(signedIn.setCookies.first { $0.hasPrefix("storyreader_session=") })
        #expect(sessionCookie.contains("HttpOnly") && sessionCookie.contains("SameSite=Strict"))
        let children = try await web.get("/")
        #expect(children.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(children.headers["x-content-type-options"] == "nosniff")
        #expect(children.headers["referrer-policy"] == "no-referrer")
        let path = try #require(Self.link(to: "Mia", in: children))
        var child = try await web.get(path)
        // Stories by title, else by their id made readable.
        #expect(child.body.contains("<td>The Little Red Hen</td>") && child.body.contains("<td>The fox and the grapes</td>"))
        #expect(!child.body.contains("the-fox-and-the-grapes"))
        #expect(child.body.contains("<label for=\"age\">Age</label>"))

        // A wrong age is refused next to its field, and nothing is stored.
        let wrong = try await web.post(path + "/profile", [("csrf", WebVisitor.csrf(child)), ("age", "forty"), ("rate", "175")])
        #expect(wrong.status == 400)
        #expect(wrong.body.contains("aria-describedby=\"age-error\" aria-invalid=\"true\""))
        #expect(wrong.body.contains("id=\"age-error\"") && wrong.body.contains("is not a number"))
        // Without the form's token, nothing is stored either.
        let forged = try await web.post(path + "/profile", [("age", "11")])
        #expect(forged.status == 403)

        child = try await web.get(path)
        let saved = try await web.post(path + "/profile", [("csrf", WebVisitor.csrf(child)), ("age", "9")])
        #expect(saved.status == 200)
        #expect(saved.body.contains("value=\"9\""))
        _ = try await k.client.round(k.store)
        #expect(try k.store.profile(named: "Mia")?.age == 9)

        // Signed out, the same cookie shows nothing.
        let cookies = web.cookies
        let out = try await web.post("/sign-out", [("csrf", WebVisitor.csrf(saved))])
        #expect(out.status == 303)
        web.cookies = cookies
        let after = try await web.get(path)
        #expect(after.status == 303 && !after.body.contains("Mia"))
        let home = try await web.get("/")
        #expect(home.body.contains("<label for=\"passphrase\">Passphrase</label>") && !home.body.contains("Mia"))
    }

    @Test func theProfileFormOffersTheKiosksPickersWithTheCurrentValueSelected() async throws {
        let token = try addSite("web-form")
        let passphrase = try addStaff("web-form", "Flo", role: "librarian")
        let k = try kiosk("web-form", token: token)
        defer { k.folder.remove() }
        var settings = ReadingSettings.default
        settings.theme = .highContrastDark
        settings.aids.lineFocus = .three
        settings.speech.rate = 210
        let mia = try k.store.addProfile(
            ChildProfile(name: "Mia", age: 7, interests: ["dragons"], settings: settings), authorization: k.store.authorize(pin: nil))
        _ = try await k.client.round(k.store)
        let web = WebVisitor(base: site.serve.url)
        try await web.signIn("Flo", passphrase)
        let path = try #require(Self.link(to: "Mia", in: try await web.get("/")))
        let child = try await web.get(path)
        // Numbers with the form's ranges, pickers with the kiosk's choices and the current one selected.
        #expect(child.body.contains(#"<input id="age" name="age" type="number" value="7" min="2" max="12""#))
        #expect(child.body.contains(#"<input id="rate" name="rate" type="number" value="210" min="\#(SpeechSettings.rateRange.lowerBound)""#))
        #expect(child.body.contains(#"<label for="theme">Theme</label>"#) && child.body.contains(#"<select id="theme" name="theme">"#))
        #expect(child.body.contains(#"<option value="high-contrast-dark" selected>"#))
        #expect(child.body.contains(#"<option value="3" selected>3</option>"#))
        #expect(child.body.contains(#"<select id="hints" name="hints">"#) && child.body.contains(#"<option value="full" selected>"#))
        #expect(child.body.contains(#"<option value="" selected>the story's language</option>"#))
        #expect(child.body.contains(#"<input id="interests" name="interests" type="text" value="dragons""#))
        #expect(!child.body.contains("hintVerbosity"))

        // The picked values reach the kiosk as the kiosk itself would have stored them.
        let saved = try await web.post(
            path + "/profile",
            [("csrf", WebVisitor.csrf(child)), ("age", "7"), ("theme", "dark"), ("hints", "off"), ("interests", "cats, Space"), ("recordingTempo", "1.5")])
        #expect(saved.status == 200)
        #expect(saved.body.contains(#"<option value="off" selected>off</option>"#) && saved.body.contains(#"<option value="1.5" selected>"#))
        // A value outside the choices is said next to its field, and nothing is saved.
        let wrong = try await web.post(path + "/profile", [("csrf", WebVisitor.csrf(saved)), ("theme", "plaid"), ("age", "8")])
        #expect(wrong.status == 400 && wrong.body.contains(#"id="theme-error""#) && wrong.body.contains("is not a theme"))
        _ = try await k.client.round(k.store)
        let profile = try #require(try k.store.profile(named: "Mia"))
        #expect(profile.id == mia.id && profile.age == 7)
        #expect(profile.settings.theme == .dark && profile.settings.hintVerbosity == .off && !profile.settings.hints)
        #expect(profile.interests == ["cats", "space"] && profile.settings.recordingTempo == 1.5)
    }

    @Test func aReadMadeOnAKioskAndDeletedOnThePageIsGoneFromThePageAndTheKiosk() async throws {
        let token = try addSite("web-delete")
        let passphrase = try addStaff("web-delete", "Del", role: "librarian")
        let k = try kiosk("web-delete", token: token)
        let other = try kiosk("web-delete", token: token)
        defer {
            k.folder.remove()
            other.folder.remove()
        }
        let mia = try k.store.addProfile(ChildProfile(name: "Mia", age: 6), authorization: k.store.authorize(pin: nil))
        k.store.storyTitles.know([("the-little-red-hen", "The Little Red Hen")])
        _ = try k.store.recordFinishedRead(profileID: mia.id!, storyID: "the-little-red-hen", at: Date(timeIntervalSinceNow: -3600))
        _ = try k.store.recordFinishedRead(profileID: mia.id!, storyID: "the-little-red-hen")
        _ = try await k.client.round(k.store)
        _ = try await other.client.round(other.store)
        let otherMia = try #require(try other.store.profile(named: "Mia")?.id)
        #expect(try other.store.readCount(profileID: otherMia, storyID: "the-little-red-hen") == 2)

        let web = WebVisitor(base: site.serve.url)
        try await web.signIn("Del", passphrase)
        let path = try #require(Self.link(to: "Mia", in: try await web.get("/")))
        let child = try await web.get(path)
        let buttons = child.body.components(separatedBy: "Delete the read of The Little Red Hen on ").count - 1
        #expect(buttons == 2)
        // The first (newest) read's id, from its form.
        let marker = try #require(child.body.range(of: #"name="read" value=""#))
        let id = String(child.body[marker.upperBound...].prefix { $0 != "\"" })
        // Another child's read, or nonsense, is not found; without the form's token nothing goes.
        #expect(try await web.post(path + "/correct", [("csrf", WebVisitor.csrf(child)), ("read", UUID().uuidString)]).status == 404)
        #expect(try await web.post(path + "/correct", [("read", id)]).status == 403)
        let deleted = try await web.post(path + "/correct", [("csrf", WebVisitor.csrf(child)), ("read", id)])
        #expect(deleted.status == 200 && deleted.body.contains("Corrected. Kiosks get it at their next sync."))
        #expect(deleted.body.components(separatedBy: "Delete the read of The Little Red Hen on ").count - 1 == 1)
        #expect(!deleted.body.contains(id))
        // Deleting it again finds nothing.
        #expect(try await web.post(path + "/correct", [("csrf", WebVisitor.csrf(deleted)), ("read", id)]).status == 404)

        // Both kiosks, the one that made the read and another, count one read after their sync.
        for kiosk in [k, other] {
            let round = try await kiosk.client.round(kiosk.store)
            #expect(round.setAside == 0)
            let child = try #require(try kiosk.store.profile(named: "Mia")?.id)
            #expect(try kiosk.store.readCount(profileID: child, storyID: "the-little-red-hen") == 1)
            #expect(try kiosk.store.history(profileID: child).count == 1)
        }
        #expect(try await web.get(path).body.components(separatedBy: "Delete the read of").count - 1 == 1)
    }

    /// Issue 45: a read aloud with the coach on one kiosk reaches another kiosk's `storyreader
    /// history` after `storyreader sync`, and the child's page shows it apart from the finished
    /// stories, with the words read alone, helped with and skipped.
    @Test func aCoachedReadOnOneKioskShowsApartOnAnotherKiosksHistoryAndOnThePage() async throws {
        let token = try addSite("web-coach")
        let passphrase = try addStaff("web-coach", "Cora", role: "librarian")
        let k = try kiosk("web-coach", token: token)
        let other = try TemporaryFolder("web-coach-other")
        defer {
            k.folder.remove()
            other.remove()
        }
        let mia = try k.store.addProfile(ChildProfile(name: "Mia", age: 6), authorization: k.store.authorize(pin: nil))
        k.store.storyTitles.know([("the-snail", "The Snail")])
        _ = try k.store.recordFinishedRead(profileID: mia.id!, storyID: "the-fox")
        try k.store.recordCoachedRead(profileID: mia.id!, storyID: "the-snail", tally: CoachTally(read: 42, helped: 3, skipped: 1))
        let sent = try await k.client.round(k.store)
        #expect(sent.setAside == 0)

        let join = try storyreader(["sync", "join", site.serve.url, "--token", token, "--data-dir", other.url.path])
        #expect(join.status == 0, "\(join.standardError)")
        let synced = try storyreader(["sync", "--data-dir", other.url.path])
        #expect(synced.status == 0, "\(synced.standardError)")
        let history = try storyreader(["history", "--profile", "Mia", "--data-dir", other.url.path])
        #expect(history.status == 0, "\(history.standardError)")
        let lines = history.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let apart = try #require(lines.firstIndex(of: "Read aloud with the coach:"), "\(history.standardOutput)")
        // The finished read above, the coached one below, each once.
        #expect(lines[..<apart].filter { $0.hasSuffix("  Mia  the-fox") }.count == 1, "\(history.standardOutput)")
        #expect(lines[(apart + 1)...].filter { $0.hasSuffix("  Mia  the-snail  read 42 words alone, helped with 3") }.count == 1, "\(history.standardOutput)")

        let web = WebVisitor(base: site.serve.url)
        try await web.signIn("Cora", passphrase)
        let path = try #require(Self.link(to: "Mia", in: try await web.get("/")))
        let page = try await web.get(path).body
        let finished = try #require(page.range(of: "<caption>Finished stories, newest first</caption>"))
        let coached = try #require(page.range(of: "<caption>Read aloud with the coach, newest first</caption>"), "\(page)")
        #expect(finished.upperBound < coached.lowerBound)
        #expect(page.contains(#"<th scope="col">Words read alone</th><th scope="col">Words helped with</th>"#))
        let row = try #require(page[coached.upperBound...].range(of: "<tr><td>The Snail</td>"))
        #expect(page[row.upperBound...].prefix(100).contains("</td><td>42</td><td>3</td><td>1</td></tr>"), "\(page)")
        // Not one more finished read: the finished stories hold only the fox.
        #expect(page[finished.upperBound..<coached.lowerBound].components(separatedBy: "Delete the read of").count - 1 == 1)
    }

    @Test func aParentSeesOnlyTheirChildAndAnotherSitesChildIsNotFound() async throws {
        let token = try addSite("web-two")
        let otherToken = try addSite("web-three")
        let parent = try addStaff("web-two", "Pat Parent", role: "parent", children: ["leo"])
        let k = try kiosk("web-two", token: token)
        let other = try kiosk("web-three", token: otherToken)
        defer {
            k.folder.remove()
            other.folder.remove()
        }
        _ = try k.store.addProfile(ChildProfile(name: "Leo", age: 6), authorization: k.store.authorize(pin: nil))
        _ = try k.store.addProfile(ChildProfile(name: "Zoe", age: 7), authorization: k.store.authorize(pin: nil))
        _ = try await k.client.round(k.store)
        _ = try other.store.addProfile(ChildProfile(name: "Ivy", age: 8), authorization: other.store.authorize(pin: nil))
        _ = try await other.client.round(other.store)
        let librarian = WebVisitor(base: site.serve.url)
        try await librarian.signIn("Lib Three", try addStaff("web-three", "Lib Three", role: "librarian"))
        let ivy = try #require(Self.link(to: "Ivy", in: try await librarian.get("/")))

        let web = WebVisitor(base: site.serve.url)
        try await web.signIn("Pat Parent", parent)
        let children = try await web.get("/")
        #expect(Self.link(to: "Leo", in: children) != nil)
        #expect(!children.body.contains("Zoe"))
        #expect(try await web.get(ivy).status == 404)
        #expect(try await web.get("/children/not-a-child").status == 404)
        #expect(try await web.get("/kiosks").status == 404)
        // Another site's librarian sees none of this site's children.
        #expect(Self.link(to: "Leo", in: try await librarian.get("/")) == nil)
    }

    @Test func fiveWrongPassphrasesLockTheNameAndTheSignInPageKeepsAnswering() async throws {
        _ = try addSite("web-lock")
        let passphrase = try addStaff("web-lock", "Lou", role: "librarian")
        let web = WebVisitor(base: site.serve.url)
        for _ in 0..<4 { #expect(try await web.signIn("Lou", "wrong-passphrase").status == 401) }
        #expect(try await web.signIn("Lou", "wrong-passphrase").status == 429)
        // Now even the right passphrase is refused.
        let locked = try await web.signIn("Lou", passphrase)
        #expect(locked.status == 429)
        #expect(locked.body.contains("locked after five wrong passphrases"))
        #expect(web.cookies["storyreader_session"] == nil)

        // A flood of wrong tries for other names: the sign-in page answers all along.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<40 { group.addTask { try await WebVisitor(base: self.site.serve.url).signIn("nobody\(i % 3)", "x").status } }
            let page = try await WebVisitor(base: site.serve.url).get("/")
            #expect(page.status == 200 && page.body.contains("Sign in"))
            for try await status in group { #expect(status == 401 || status == 503) }
        }
    }

    @Test func everyFieldFuzzedGetsAnAnswerAndNothingUnescaped() async throws {
        let token = try addSite("web-fuzz")
        let passphrase = try addStaff("web-fuzz", "Fay", role: "librarian")
        let k = try kiosk("web-fuzz", token: token)
        defer { k.folder.remove() }
        _ = try k.store.addProfile(ChildProfile(name: "Ada", age: 5), authorization: k.store.authorize(pin: nil))
        _ = try await k.client.round(k.store)
        let web = WebVisitor(base: site.serve.url)
        try await web.signIn("Fay", passphrase)
        let path = try #require(Self.link(to: "Ada", in: try await web.get("/")))
        var generator = SystemRandomNumberGenerator()
        let nasty = ["<script>alert(1)</script>", "\u{1B}[31m", "\u{202E}evil", String(repeating: "9", count: 5000), "", " ", "-1", "1e9", "\"'><b>", "\0"]
        let fields = ["age", "interests", "voice", "rate", "pitch", "volume", "textSize", "motion", "theme", "hints", "stepMode", "lineFocus", "syllables"]
        for round in 0..<30 {
            let page = try await web.get(path)
            var form = [("csrf", WebVisitor.csrf(page))]
            for field in fields where Bool.random(using: &generator) {
                let random = String(
                    (0..<Int.random(in: 0...20, using: &generator)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 1...126, using: &generator))) })
                form.append((field, round % 2 == 0 ? nasty.randomElement(using: &generator)! : random))
            }
            let answer = try await web.post(path + "/profile", form)
            #expect([200, 400].contains(answer.status), "\(form)")
            #expect(!answer.body.contains("<script>") && !answer.body.contains("<b>") && !answer.body.contains("\u{1B}"))
        }
        for nastyName in nasty {
            let answer = try await WebVisitor(base: site.serve.url).signIn(nastyName, nastyName)
            #expect([400, 401].contains(answer.status))
            #expect(!answer.body.contains("<script>") && !answer.body.contains("<b>"))
        }
        // The kiosk still syncs: whatever the page stored, a kiosk takes.
        let round = try await k.client.round(k.store)
        #expect(round.setAside == 0)
    }
}
