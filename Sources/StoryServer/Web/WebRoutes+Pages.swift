#if Server
    import Foundation
    import HTTPTypes
    import Hummingbird
    import StoryKit

    extension WebRoutes {
        // MARK: - Signing in

        /// The sign-in form; its CSRF token is a cookie of its own that the form repeats.
        func signInPage(_ request: Request, messages: MessageCatalog, problem: String?, name: String = "", status: HTTPResponse.Status = .ok)
            -> Response
        {
            let csrf = ServerDatabase.secret(24)
            let page = WebPage(messages: messages, session: nil)
            let error = problem.map { "<p class=\"error\" id=\"sign-in-error\" role=\"alert\">\(page.tr("Error:")) \(WebPage.escape($0))</p>" } ?? ""
            let described = problem == nil ? "" : " aria-describedby=\"sign-in-error\""
            let body = """
                <p>\(page.tr("Parents and librarians sign in with the name and passphrase the site's administrator gave them."))</p>
                <p>\(page.tr("After five wrong passphrases, a name is locked for 15 minutes."))</p>
                \(error)
                <form method="post" action="/sign-in"\(described)>
                <input type="hidden" name="csrf" value="\(csrf)">
                \(page.field(id: "name", label: messages.tr("Name"), value: name, autocomplete: "username"))
                \(page.field(id: "passphrase", label: messages.tr("Passphrase"), value: "", type: "password", autocomplete: "current-password"))
                <button type="submit">\(page.tr("Sign in"))</button>
                </form>
                """
            return Self.html(page.document(title: messages.tr("Sign in"), body), status: status, [Self.cookie(Self.signInCookie, csrf, request: request)])
        }

        func signIn(_ request: Request) async -> Response {
            let messages = messages(request)
            do {
                let form = try await Self.form(request)
                let name = String((form["name"] ?? "").trimmingCharacters(in: .whitespaces).prefix(100))
                guard let csrf = form["csrf"], !csrf.isEmpty, csrf == request.cookies[Self.signInCookie]?.value else {
                    return signInPage(
                        request, messages: messages, problem: messages.tr("the form was out of date: type your name and passphrase again"), name: name,
                        status: .forbidden)
                }
                let passphrase = String((form["passphrase"] ?? "").prefix(200))
                guard !name.isEmpty, !passphrase.isEmpty else {
                    return signInPage(
                        request, messages: messages, problem: messages.tr("type both your name and your passphrase"), name: name, status: .badRequest)
                }
                guard hashing.take() else {
                    return signInPage(
                        request, messages: messages, problem: messages.tr("many sign-ins are being tried at once: wait a moment and try again"), name: name,
                        status: .serviceUnavailable)
                }
                defer { hashing.give() }
                switch try await database.signIn(name: name, passphrase: passphrase) {
                case .signedIn(let token, _):
                    return Self.redirect(
                        "/", [Self.cookie(Self.sessionCookie, token, request: request), Self.cookie(Self.signInCookie, "", request: request, maxAge: 0)])
                case .wrong:
                    return signInPage(
                        request, messages: messages, problem: messages.tr("the name or the passphrase is wrong: check both and try again"), name: name,
                        status: .unauthorized)
                case .locked(let seconds):
                    return signInPage(
                        request, messages: messages,
                        problem: messages.trn(
                            "this name is locked after five wrong passphrases: try again in {count} minute",
                            "this name is locked after five wrong passphrases: try again in {count} minutes", (seconds + 59) / 60),
                        name: name, status: .tooManyRequests)
                }
            } catch {
                return unavailable(messages, error)
            }
        }

        // MARK: - Pages

        func childrenPage(_ session: WebSession, _ page: WebPage) async throws -> Response {
            let children = try await states.current(site: session.site).children.filter { session.mayRead(childNamed: $0.name) }
            let list =
                children.isEmpty
                ? "<p>\(page.tr("No children to show yet: a child appears here once a kiosk with their profile syncs."))</p>"
                : "<ul class=\"entries\">"
                    + children.map { "<li><a href=\"/children/\($0.id.uuidString)\">\(WebPage.escape($0.name))</a></li>" }.joined() + "</ul>"
            return Self.html(page.document(title: page.messages.tr("Children"), list))
        }

        func kiosksPage(_ kiosks: [(name: String, lastSync: Date)], _ page: WebPage) -> Response {
            let now = clock.now()
            let body =
                kiosks.isEmpty
                ? "<p>\(page.tr("No kiosk has synced with this site yet."))</p>"
                : """
                <table><caption>\(page.tr("Each kiosk and when it last sent a change"))</caption>
                <thead><tr><th scope="col">\(page.tr("Kiosk"))</th><th scope="col">\(page.tr("Last sync"))</th></tr></thead><tbody>
                """
                    + kiosks.map {
                        "<tr><td>\(WebPage.escape($0.name))</td><td>\(WebPage.escape(page.ago($0.lastSync, now: now))) (\(WebPage.stamp($0.lastSync)))</td></tr>"
                    }.joined() + "</tbody></table>"
            return Self.html(page.document(title: page.messages.tr("Kiosks"), body))
        }

        func privacyPage(_ page: WebPage) -> Response {
            let body = """
                <h2>\(page.tr("What is kept"))</h2>
                <ul>
                <li>\(page.tr("Each child's profile: name, age, interests and reading settings."))</li>
                <li>\(page.tr("Each finished story with its date, each story read aloud with the coach (how many words were read alone and how many the coach helped with; never the voice), the place in each story being read, and favourites."))</li>
                <li>\(page.tr("When each kiosk last synced, and the log of kiosk sessions."))</li>
                <li>\(page.tr("For each grown-up: name, role, the children a parent may see, and a slow salted hash of the passphrase (never the passphrase)."))</li>
                </ul>
                <h2>\(page.tr("Who sees it"))</h2>
                <p>\(page.tr("A librarian sees every child of the site. A parent sees only the children the administrator named for them. Nobody sees another site's children."))</p>
                <h2>\(page.tr("For how long"))</h2>
                <p>\(page.tr("Reading history is kept until the child's profile is removed at a kiosk; then nothing of that child is shown anywhere. A session ends when you sign out or after 8 hours unused."))</p>
                """
            return Self.html(page.document(title: page.messages.tr("Privacy"), body))
        }

        /// The stored fields of a child, as ``ProfileField/formText(stored:)`` reads them.
        static func stored(_ child: WebChild) -> [String: String?] { child.fields.mapValues(\.value) }

        /// One field of the profile form as a kiosk's form offers it: a number with its range, a
        /// picker of its choices with the current one selected, or text.
        func formControl(_ field: ProfileField, value: String, error: String?, _ page: WebPage) -> String {
            let id = field.rawValue
            let label = page.messages.tr(field.label)
            if let range = field.numberRange {
                return page.field(id: id, label: label, value: value, error: error, type: "number", range: range)
            }
            if let choices = field.sharedChoices {
                return page.select(
                    id: id, label: label, value: value, choices: choices.map { ($0, field.choiceLabel($0, messages: page.messages)) }, error: error)
            }
            return page.field(id: id, label: label, value: value, error: error)
        }

        /// The child's reads aloud with the coach, apart from the finished stories (issue 44 item 2):
        /// the words read alone, those the coach said for the child, those passed over. Nothing
        /// when there are none (most children never read to the coach).
        func coachedTable(_ child: WebChild, state entry: SiteStates.Entry, _ page: WebPage) -> String {
            let coached = (entry.coachedReads[child.id] ?? []).compactMap { id in entry.state.coachedReads[id].map { (id: id, read: $0) } }
                .sorted { ($0.read.finishedAt, $0.id.uuidString) > ($1.read.finishedAt, $1.id.uuidString) }
            guard !coached.isEmpty else { return "" }
            return """
                <table><caption>\(page.tr("Read aloud with the coach, newest first"))</caption>
                <thead><tr><th scope="col">\(page.tr("Story"))</th><th scope="col">\(page.tr("Date"))</th>\
                <th scope="col">\(page.tr("Words read alone"))</th><th scope="col">\(page.tr("Words helped with"))</th>\
                <th scope="col">\(page.tr("Words skipped"))</th></tr></thead><tbody>
                """
                    + coached.map { _, read in
                        "<tr><td>\(WebPage.escape(entry.title(of: read.story)))</td><td>\(WebPage.stamp(read.finishedAt))</td>"
                            + "<td>\(read.read)</td><td>\(read.helped)</td><td>\(read.skipped)</td></tr>"
                    }.joined() + "</tbody></table>"
        }

        func childPage(
            _ child: WebChild, state entry: SiteStates.Entry, _ page: WebPage, problems: [String: String], typed: [String: String], notice: String?,
            status: HTTPResponse.Status = .ok
        ) -> Response {
            let state = entry.state
            let prefix = child.id.uuidString + "/"
            let reads = (entry.reads[child.id] ?? []).compactMap { id in state.reads[id].map { (id: id, read: $0) } }
                .sorted { ($0.read.finishedAt, $0.id.uuidString) > ($1.read.finishedAt, $1.id.uuidString) }
            let places = state.positions.filter { $0.key.hasPrefix(prefix) && $0.value.value != nil }.sorted { $0.key < $1.key }
            let favourites = state.favourites.filter { $0.key.hasPrefix(prefix) && $0.value.value }.sorted { $0.key < $1.key }
            let action = "/children/\(child.id.uuidString)"
            /// A button that corrects one entry; `shown`, when given, is its short visible text (in a
            /// table's narrow column), which the full `label` a screen reader says begins with.
            func correction(_ kind: String, _ value: String, _ label: String, shown: String? = nil) -> String {
                let named = shown.map { " aria-label=\"\(WebPage.escape(label))\">\(WebPage.escape($0))" } ?? ">\(WebPage.escape(label))"
                return """
                    <form method="post" action="\(action)/correct">\(page.csrfField)<input type="hidden" name="\(kind)" value="\(WebPage.escape(value))">\
                    <button type="submit"\(named)</button></form>
                    """
            }
            var body = ""
            if let notice { body += "<p class=\"notice\" role=\"status\">\(WebPage.escape(notice))</p>" }
            body += "<h2>\(page.tr("Reading log"))</h2>"
            body +=
                reads.isEmpty
                ? "<p>\(page.tr("No finished stories yet."))</p>"
                : """
                <table><caption>\(page.tr("Finished stories, newest first"))</caption>
                <thead><tr><th scope="col">\(page.tr("Story"))</th><th scope="col">\(page.tr("Finished"))</th>\
                <th scope="col">\(page.tr("Correction"))</th></tr></thead><tbody>
                """
                    + reads.map { id, read in
                        let title = entry.title(of: read.story)
                        let stamp = WebPage.stamp(read.finishedAt)
                        return "<tr><td>\(WebPage.escape(title))</td><td>\(stamp)</td><td>"
                            + correction(
                                "read", id.uuidString, page.messages.tr("Delete the read of {story} on {date}", ["story": title, "date": stamp]),
                                shown: page.messages.tr("Delete the read"))
                            + "</td></tr>"
                    }.joined() + "</tbody></table>"
            body += coachedTable(child, state: entry, page)
            body += "<h2>\(page.tr("Reading now"))</h2>"
            body +=
                places.isEmpty
                ? "<p>\(page.tr("No story is being read."))</p>"
                : "<ul class=\"entries\">"
                    + places.map { key, register in
                        let story = String(key.dropFirst(prefix.count))
                        let title = entry.title(of: story)
                        let sentence = register.value.map { String($0 + 1) } ?? ""
                        return "<li>\(page.tr("{story}, at sentence {sentence}", ["story": title, "sentence": sentence])) "
                            + correction("place", story, page.messages.tr("Forget the place in {story}", ["story": title])) + "</li>"
                    }.joined() + "</ul>"
            body += "<h2>\(page.tr("Favourites"))</h2>"
            body +=
                favourites.isEmpty
                ? "<p>\(page.tr("No favourites yet."))</p>"
                : "<ul class=\"entries\">"
                    + favourites.map { key, _ in
                        let story = String(key.dropFirst(prefix.count))
                        let title = entry.title(of: story)
                        return "<li>\(WebPage.escape(title)) "
                            + correction("favourite", story, page.messages.tr("Remove {story} from favourites", ["story": title])) + "</li>"
                    }.joined() + "</ul>"
            // Read-only: a bookmark is the child's own, made and deleted on a kiosk.
            let bookmarks = state.bookmarks.filter { $0.key.hasPrefix(prefix) }.compactMap(\.value.value).sorted(by: Bookmark.inOrder)
            body += "<h2>\(page.tr("Bookmarks"))</h2>"
            body +=
                bookmarks.isEmpty
                ? "<p>\(page.tr("No bookmarks yet."))</p>"
                : "<ul class=\"entries\">"
                    + bookmarks.map { bookmark in
                        let place = page.tr(
                            "‘{word}’, sentence {sentence}, {title}",
                            ["word": bookmark.text, "sentence": String(bookmark.sentence + 1), "title": entry.title(of: bookmark.story)])
                        return "<li>\(place)" + (bookmark.note.map { ": " + WebPage.escape($0) } ?? "") + "</li>"
                    }.joined() + "</ul>"
            body += "<h2>\(page.tr("Profile"))</h2>"
            body += "<p>\(page.tr("Changes reach every kiosk of the site at its next sync."))</p>"
            if !problems.isEmpty {
                body +=
                    "<p class=\"error\" role=\"alert\">\(page.messages.trn("Nothing was saved: {count} field needs a change.", "Nothing was saved: {count} fields need a change.", problems.count).htmlEscaped)</p>"
            }
            // The server's own messages, next to each field, in the page's language (not the
            // browser's, which a blind user may not hear the same way).
            body += "<form method=\"post\" action=\"\(action)/profile\" novalidate>\(page.csrfField)"
            let stored = Self.stored(child)
            for field in ProfileField.shared {
                body += formControl(
                    field, value: typed[field.rawValue] ?? field.formText(stored: stored), error: problems[field.rawValue], page)
            }
            body += "<button type=\"submit\">\(page.tr("Save"))</button></form>"
            return Self.html(page.document(title: child.name, body), status: status)
        }

        /// Saves the fields that changed, as changes of the site's log checked like a kiosk's; nothing
        /// is saved while any field is wrong, and each error is said next to its field.
        func saveProfile(_ child: WebChild, state: SiteStates.Entry, form: [String: String], session: WebSession, _ page: WebPage) async throws -> Response {
            let now = clock.now()
            var problems: [String: String] = [:]
            var typed: [String: String] = [:]
            var changes: [SyncChange] = []
            let stored = Self.stored(child)
            for field in ProfileField.shared {
                guard let text = form[field.rawValue].map({ String($0.prefix(500)).trimmingCharacters(in: .whitespaces) }) else { continue }
                typed[field.rawValue] = text
                if text == field.formText(stored: stored) { continue }
                let values: [String: String?]
                do throws(ProfileProblem) { values = try field.storedValues(text) } catch {
                    problems[field.rawValue] = error.message(in: page.messages)
                    continue
                }
                for (name, value) in values.sorted(by: { $0.key < $1.key }) where value != (stored[name] ?? nil) {
                    let change = editor.change(
                        .profileField(profile: child.id, field: name, value: value), after: child.fields[name]?.hlc, now: now)
                    if let problem = SyncValidation.problem(with: change, nowMillis: HybridLogicalClock.millis(now)) {
                        problems[field.rawValue] = problem
                    } else {
                        changes.append(change)
                    }
                }
            }
            if !problems.isEmpty {
                return childPage(child, state: state, page, problems: problems, typed: typed, notice: nil, status: .badRequest)
            }
            if !changes.isEmpty { _ = try await database.upload(site: session.site, changes: changes) }
            let fresh = try await states.current(site: session.site)
            let updated = WebChild.one(child.id, in: fresh.state) ?? child
            let notice = changes.isEmpty ? page.messages.tr("Nothing had changed.") : page.messages.tr("Saved. Kiosks get it at their next sync.")
            return childPage(updated, state: fresh, page, problems: [:], typed: [:], notice: notice)
        }

        /// Deletes a finished read made by mistake, forgets a wrong place in a story, or takes a story
        /// off the favourites: a change of the log, which every kiosk applies at its next sync.
        func correct(_ child: WebChild, state entry: SiteStates.Entry, form: [String: String], session: WebSession, _ page: WebPage) async throws -> Response {
            let now = clock.now()
            let state = entry.state
            let change: SyncChange
            if let text = form["read"], let id = UUID(uuidString: text), state.reads[id]?.profile == child.id {
                change = editor.change(.readRemoved(profile: child.id, read: id), after: nil, now: now)
            } else if let story = form["place"], let register = state.positions[child.id.uuidString + "/" + story], register.value != nil {
                change = editor.change(.position(profile: child.id, story: story, sentence: nil), after: register.hlc, now: now)
            } else if let story = form["favourite"], let register = state.favourites[child.id.uuidString + "/" + story], register.value {
                change = editor.change(.favourite(profile: child.id, story: story, isFavourite: false), after: register.hlc, now: now)
            } else {
                return notFound(page)
            }
            if let problem = SyncValidation.problem(with: change, nowMillis: HybridLogicalClock.millis(now)) {
                return childPage(child, state: entry, page, problems: [:], typed: [:], notice: problem, status: .badRequest)
            }
            _ = try await database.upload(site: session.site, changes: [change])
            let fresh = try await states.current(site: session.site)
            return childPage(child, state: fresh, page, problems: [:], typed: [:], notice: page.messages.tr("Corrected. Kiosks get it at their next sync."))
        }
    }

    extension String {
        fileprivate var htmlEscaped: String { WebPage.escape(self) }
    }
#endif
