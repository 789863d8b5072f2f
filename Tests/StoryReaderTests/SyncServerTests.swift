import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One real PostgreSQL and one real `storyreader serve` for the whole suite (not one per test).
struct SharedSite: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let serve = try ServeProcess.start(database: postgres.url)
        defer { serve.stop() }
        try await SiteFixture.$current.withValue(SiteFixture(postgres: postgres, serve: serve)) { try await function() }
    }
}

struct SiteFixture: Sendable {
    @TaskLocal static var current: SiteFixture?
    let postgres: PostgresServer
    let serve: ServeProcess
}

enum ServerBuild {
    #if Server
        static let isBuilt = true
    #else
        static let isBuilt = false
    #endif
    static let available = isBuilt && PostgresServer.isInstalled
    static let why =
        isBuilt ? PostgresServer.notInstalled : "this build has no sync server: run the tests with 'swift build --build-tests --traits Server' (make test does)"
}

/// Issue 13: kiosks (several data folders on this machine) sharing one site through a real
/// `storyreader serve` and a real PostgreSQL 15 started by the tests.
@Suite(.serialized, .enabled(if: ServerBuild.available, Comment(rawValue: ServerBuild.why)), SharedSite())
struct SyncServerTests {
    var site: SiteFixture { SiteFixture.current! }

    func storyreader(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ExternalProcess.run(TestPaths.binary, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()], input: input)
    }

    func addSite(_ name: String) throws -> String {
        let result = try storyreader(["serve", "site", "add", name, "--database", site.postgres.url])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Kiosk {
        let folder: TemporaryDatabase
        let store: StoryStore
        let client: SyncClient
    }

    /// A kiosk's data folder joined to the site; `ahead`: its clock runs that many seconds ahead of
    /// this machine's from the start (else the test clock's fixed date).
    func kiosk(_ label: String, token: String, url: String? = nil, ahead: TimeInterval? = nil) throws -> Kiosk {
        let folder = try TemporaryDatabase(label)
        if let ahead { folder.clock.advance(by: Date().timeIntervalSince(folder.clock.now) + ahead) }
        let store = try folder.open()
        try store.markJoined()
        let settings = SyncSettings(url: url ?? site.serve.url, site: try SyncClient.site(ofToken: token), token: token)
        let client = SyncClient(settings: settings, callDeadline: 5)
        // What `sync.json` gives a real kiosk: the server asked before profile and PIN changes.
        store.useSiteAuthority(client)
        return Kiosk(folder: folder, store: store, client: client)
    }

    func serverRows(site name: String) throws -> Int {
        Int(try site.postgres.psql("SELECT count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = '\(name)')")) ?? -1
    }

    /// Test 1: two kiosks each do 200 random operations offline (one removes a child the other keeps
    /// using), then sync: kiosk A, kiosk B and the server agree row for row within two rounds.
    @Test(arguments: [11, 12]) func partitionedKiosksConvergeWithTheServer(seed: Int) async throws {
        let token = try addSite("partition-\(seed)")
        let a = try kiosk("a", token: token)
        let b = try kiosk("b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        _ = try a.store.addProfile(ChildProfile(name: "Leo", age: 6), authorization: a.store.authorize(pin: nil))
        try await a.client.round(a.store)
        try await b.client.round(b.store)
        try await a.client.round(a.store)
        let leo = try #require(a.store.syncSnapshot().profiles.first { $0.value["name"] == "Leo" }?.key)

        var random = SeededGenerator(seed: UInt64(seed))
        var reads = try KioskActivity.randomOperations(on: a.store, count: 200, using: &random, spare: "Leo", removeAt: 100, removing: "Leo")
        reads += try KioskActivity.randomOperations(on: b.store, count: 200, using: &random, spare: "Leo")
        var rounds = 0
        var snapshots: (SyncSnapshot, SyncSnapshot, SyncSnapshot)
        repeat {
            rounds += 1
            try await a.client.round(a.store)
            try await b.client.round(b.store)
            snapshots = (try a.store.syncSnapshot(), try b.store.syncSnapshot(), try await a.client.siteSnapshot())
        } while (snapshots.0 != snapshots.1 || snapshots.1 != snapshots.2) && rounds < 5
        let differing = snapshots.0.differences(from: snapshots.1) + snapshots.1.differences(from: snapshots.2)
        let lost = reads - snapshots.2.reads.count
        let resurrected = snapshots.2.profiles[leo] == nil && snapshots.1.profiles[leo] == nil ? 0 : 1
        print(
            "sync partition (real server) seed \(seed): differing rows \(differing), lost events \(lost), resurrected profiles \(resurrected), rounds \(rounds)"
        )
        #expect(differing == 0)
        #expect(lost == 0)
        #expect(resurrected == 0)
        #expect(rounds <= 2)
    }

    /// Test 2: the same batch sent 1–5 times, as when the kiosk died after the server committed and
    /// before it emptied its outbox: the server keeps each change once, the outbox ends empty.
    @Test func aBatchSentAgainAfterACrashIsStoredOnce() async throws {
        let token = try addSite("duplicate")
        let k = try kiosk("dup", token: token)
        defer { k.folder.remove() }
        let reader = try k.store.profiles()[0].id!
        for i in 0..<40 { try k.store.recordFinishedRead(profileID: reader, storyID: "story\(i % 3)") }
        let pending = try k.store.pendingChanges(limit: 10_000).map(\.change)
        for _ in 0..<Int.random(in: 1...5) {
            let answer: UploadResponse = try await k.client.call(
                "POST", SyncAPI.changesPath(site: "duplicate"), body: UploadRequest(changes: pending, kioskMillis: HybridLogicalClock.millis(Date())))
            #expect(answer.stored <= pending.count)
        }
        #expect(try k.store.syncStatus().outbox == pending.count)  // the "crash": nothing confirmed
        let round = try await k.client.round(k.store)
        #expect(round.storedNew == 0)
        #expect(try serverRows(site: "duplicate") == Set(pending.map(\.id)).count)
        #expect(try k.store.syncStatus().outbox == 0)
    }

    /// Issue 32: an upload that names its cursor gets the page a pull after it would give in the
    /// same answer (the kiosk's own change in it, as stored, and "more" when the limit cut it); one
    /// that does not gets no page, as from a server before it.
    @Test func anUploadThatNamesItsCursorBringsThePageAfterIt() async throws {
        let token = try addSite("one-exchange")
        let a = try kiosk("a", token: token)
        let b = try kiosk("b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        try a.store.recordFinishedRead(profileID: try a.store.profiles()[0].id!, storyID: "from-a")
        try await a.client.round(a.store)
        let path = SyncAPI.changesPath(site: "one-exchange")
        let change = SyncChange(hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "b"), body: .failedPIN(kiosk: "b", at: Date()))
        let upload = UploadRequest(changes: [change], kioskMillis: HybridLogicalClock.millis(Date()))
        let plain: UploadResponse = try await b.client.call("POST", path, body: upload)
        #expect(plain.page == nil)
        let whole: UploadResponse = try await b.client.call("POST", path + "?after=0&limit=1000", body: upload)
        let page = try #require(whole.page)
        #expect(page.changes.contains { $0.id == change.id })
        #expect(page.changes.count == (try serverRows(site: "one-exchange")))
        #expect(!page.more)
        let pulled: PullResponse = try await b.client.call("GET", path + "?after=0&limit=1000", body: Optional<UploadRequest>.none)
        #expect(pulled.changes == page.changes)
        #expect(pulled.cursor == page.cursor)
        let cut: UploadResponse = try await b.client.call("POST", path + "?after=0&limit=1", body: upload)
        #expect(cut.page?.changes.count == 1)
        #expect(cut.page?.more == true)
        // And a round, which asks for it: b has a's read.
        try b.store.recordFinishedRead(profileID: try b.store.profiles()[0].id!, storyID: "from-b")
        try await b.client.round(b.store)
        #expect(try b.store.history().contains { $0.storyID == "from-a" })
    }

    /// Test 5 (server side): a kiosk an hour ahead is told so, and its times are not trusted.
    @Test func aKioskAnHourAheadIsWarnedAndItsClockReplaced() async throws {
        let token = try addSite("skew")
        let k = try kiosk("skew", token: token)
        defer { k.folder.remove() }
        let now = HybridLogicalClock.millis(Date())
        let ahead = SyncChange(
            hlc: HLCTimestamp(millis: now + 3_600_000, node: "fast"), body: .position(profile: UUID(), story: "fox", sentence: 3))
        let answer: UploadResponse = try await k.client.call(
            "POST", SyncAPI.changesPath(site: "skew"), body: UploadRequest(changes: [ahead], kioskMillis: now + 3_600_000))
        #expect(answer.clockWarning?.contains("ahead") == true)
        let page: PullResponse = try await k.client.call("GET", SyncAPI.changesPath(site: "skew") + "?after=0", body: Optional<UploadRequest>.none)
        let stored = try #require(page.changes.first { $0.id == ahead.id })
        #expect(stored.hlc.millis <= HybridLogicalClock.millis(Date()) + ClockSkew.toleranceMillis)
    }

    /// Test 6: a token reaches its own site only; a revoked token is refused; a kiosk's token file is
    /// 0600; plain http:// to another machine is refused without --insecure.
    @Test func tokensReachTheirOwnSiteOnlyAndRevokedOnesNothing() async throws {
        let tokenA = try addSite("library-a")
        let tokenB = try addSite("library-b")
        let b = try kiosk("b", token: tokenB)
        defer { b.folder.remove() }
        try b.store.recordFinishedRead(profileID: try b.store.profiles()[0].id!, storyID: "secret-of-b")
        try await b.client.round(b.store)

        // A's token on B's path: 403, nothing read, nothing written.
        let intruder = SyncClient(settings: SyncSettings(url: site.serve.url, site: "library-b", token: tokenA))
        await #expect(throws: SyncFailure.self) {
            let _: PullResponse = try await intruder.call("GET", SyncAPI.changesPath(site: "library-b"), body: Optional<UploadRequest>.none)
        }
        do {
            let _: PullResponse = try await intruder.call("GET", SyncAPI.changesPath(site: "library-b"), body: Optional<UploadRequest>.none)
        } catch SyncFailure.refused(let status, _) {
            #expect(status == 403)
        }
        let before = try serverRows(site: "library-b")
        do {
            let _: UploadResponse = try await intruder.call(
                "POST", SyncAPI.changesPath(site: "library-b"),
                body: UploadRequest(changes: [SyncChange(hlc: HLCTimestamp(millis: 1, node: "x"), body: .profileRemoved(profile: UUID()))], kioskMillis: 0))
            Issue.record("a write to another site was accepted")
        } catch SyncFailure.refused(let status, _) {
            #expect(status == 403)
        }
        #expect(try serverRows(site: "library-b") == before)
        // A's own pull never shows B's data.
        let a = try kiosk("a", token: tokenA)
        defer { a.folder.remove() }
        try await a.client.round(a.store)
        #expect(try a.store.history().allSatisfy { $0.storyID != "secret-of-b" })

        // Revoked: refused.
        let revoke = try storyreader(["serve", "site", "revoke", "library-b", "--database", site.postgres.url])
        #expect(revoke.status == 0)
        do {
            try await b.client.round(b.store)
            Issue.record("a revoked token was accepted")
        } catch SyncFailure.refused(let status, _) {
            #expect(status == 401)
        }
        #expect(try b.store.syncStatus().lastError?.contains("revoked") == true)

        // Joining through the command: the token from stdin, saved 0600.
        let folder = try TemporaryFolder("join")
        defer { folder.remove() }
        let join = try storyreader(["sync", "join", site.serve.url, "--data-dir", folder.url.path], input: tokenA + "\n")
        #expect(join.status == 0, "\(join.standardError)")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(SyncSettings.fileName).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let status = try storyreader(["sync", "--status", "--json", "--data-dir", folder.url.path])
        #expect(status.standardOutput.contains("\"outbox\" : 0"))
        let insecure = try storyreader(["sync", "join", "http://192.0.2.10:8750", "--token", tokenA, "--data-dir", folder.url.path])
        #expect(insecure.status == 1)
        #expect(insecure.standardError.contains("--insecure"))
    }

    /// Test 4: PostgreSQL restarted with `-m immediate`, or `serve` killed, at random moments during
    /// sync rounds: the server ends with exactly the uploaded changes, no partial batch, and no
    /// failing call takes longer than its deadline.
    @Test func restartsMidSyncLoseAndDoubleNothing() async throws {
        let token = try addSite("restart")
        let port = try PostgresServer.freePort()
        var serve = try ServeProcess.start(database: site.postgres.url, deadline: 2, port: port)
        defer { serve.stop() }
        let k = try kiosk("restart", token: token, url: serve.url)
        defer { k.folder.remove() }
        let reader = try k.store.profiles()[0].id!
        var worstStall = 0.0
        var random = SeededGenerator(seed: 4)
        for seed in 0..<20 {
            for i in 0..<25 { try k.store.recordFinishedRead(profileID: reader, storyID: "s\(seed)-\(i)") }
            let delay = UInt64.random(in: 0...40, using: &random)
            let killServe = seed.isMultiple(of: 2)
            let sync = Task { () -> Double in
                let start = Date()
                do { try await k.client.round(k.store) } catch {}
                return Date().timeIntervalSince(start)
            }
            try await Task.sleep(nanoseconds: delay * 1_000_000)
            if killServe {
                serve.kill()
                serve = try ServeProcess.start(database: site.postgres.url, deadline: 2, port: port)
            } else {
                try site.postgres.restartImmediately()
            }
            worstStall = max(worstStall, await sync.value)
            // Retry with backoff until the round goes through.
            var backoff = 0.05
            while true {
                do {
                    try await k.client.round(k.store)
                    break
                } catch {
                    try await Task.sleep(nanoseconds: UInt64(backoff * 1e9))
                    backoff = min(backoff * 2, 1)
                }
            }
        }
        let uploaded = try k.store.syncSnapshot().reads.count
        print(
            "sync restarts: 20 seeds, server rows \(try serverRows(site: "restart")), kiosk reads \(uploaded), worst stall of one sync call \(String(format: "%.2f", worstStall)) s (deadline \(Int(k.client.callDeadline)) s per call)"
        )
        #expect(try k.store.syncStatus().outbox == 0)
        #expect(
            try site.postgres.psql(
                "SELECT count(*) FROM change c WHERE site_id = (SELECT id FROM site WHERE name = 'restart') AND body LIKE '%\"read\"%'") == String(uploaded))
        #expect(
            try site.postgres.psql(
                "SELECT max(seq) = count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = 'restart')") == "t")
        #expect(worstStall <= k.client.callDeadline)
    }

    /// The REPL and kiosk sync in the background: a finished read reaches the server without
    /// anyone running `sync`, and a folder that never joined starts nothing.
    @Test func aJoinedKioskSyncsAFinishedReadInTheBackground() async throws {
        let token = try addSite("background")
        let k = try kiosk("background", token: token)
        defer { k.folder.remove() }
        #expect(BackgroundSync.start(dataDirectory: k.folder.url, store: k.store) == nil)
        try SyncClient.save(k.client.settings, in: k.folder.url)
        let syncing = try #require(BackgroundSync.start(dataDirectory: k.folder.url, store: k.store, poll: 0.1))
        defer { syncing.stop() }
        try k.store.recordFinishedRead(profileID: try k.store.profiles()[0].id!, storyID: "fox")
        for _ in 0..<200 where try k.store.syncStatus().outbox > 0 || serverRows(site: "background") < 14 {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(try k.store.syncStatus().outbox == 0)
        #expect(
            try site.postgres.psql(
                "SELECT count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = 'background') AND body LIKE '%fox%' AND body LIKE '%finishedAt%'"
            ) == "1")
    }

    /// Issue 46: a bookmark (with its note) made on one kiosk reaches another after `storyreader
    /// sync` on each, and its deletion comes back the same way.
    @Test func aBookmarkMadeOnOneKioskReachesAnotherAfterSync() async throws {
        let token = try addSite("bookmarks")
        let a = try kiosk("bookmarks-a", token: token)
        let b = try kiosk("bookmarks-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        for k in [a, b] { try SyncClient.save(k.client.settings, in: k.folder.url) }
        func sync(_ k: Kiosk) throws {
            let result = try storyreader(["sync", "--data-dir", k.folder.url.path])
            #expect(result.status == 0, "\(result.standardError)")
        }
        // Both kiosks' first child is the same child of the site (its id comes from its name).
        let childA = try #require(try a.store.profiles().first?.id)
        let childB = try #require(try b.store.profiles().first?.id)
        let bookmark = Bookmark(story: "fox", word: 17, sentence: 2, text: "fox", note: "the fox is funny", createdAt: .distantPast)
        try a.store.saveBookmark(bookmark, profileID: childA)
        try sync(a)
        try sync(b)
        let arrived = try b.store.bookmarks(profileID: childB)
        #expect(arrived.map(\.id) == [bookmark.id])
        #expect(arrived.first?.word == 17 && arrived.first?.note == "the fox is funny" && arrived.first?.text == "fox")
        try b.store.removeBookmark(id: bookmark.id, profileID: childB)
        try sync(b)
        try sync(a)
        #expect(try a.store.bookmarks(profileID: childA).isEmpty)
    }

    /// Issue 13: two kiosks of one site cannot both create "Mia" — the server checks the name in
    /// the upload's transaction (folded as the kiosk's nameKey) — nor rename a child to it, nor edit
    /// a child removed elsewhere; with the server down, adding, renaming and removing are refused
    /// with a clear message (also from `storyreader profile`) and nothing changes.
    @Test func profilesAreCreatedRenamedAndRemovedOnlyWithTheServer() async throws {
        let token = try addSite("names")
        let a = try kiosk("names-a", token: token)
        let b = try kiosk("names-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        let mia = try a.store.addProfile(ChildProfile(name: "Mia", age: 5), authorization: a.store.authorize(pin: nil))
        // Only b's local copy is missing Mia: the server already refuses her name.
        var refusal = ""
        do {
            _ = try b.store.addProfile(ChildProfile(name: "MIA", age: 8), authorization: b.store.authorize(pin: nil))
        } catch { refusal = error.description }
        #expect(refusal.contains("already a profile called MIA on this site"))
        #expect(try b.store.profile(named: "Mia") == nil)
        var leo = try b.store.addProfile(ChildProfile(name: "Leo", age: 6), authorization: b.store.authorize(pin: nil))
        leo.name = "mia"
        #expect(throws: StoreError.self) { try b.store.updateProfile(leo, authorization: b.store.authorize(pin: nil)) }
        leo.name = "Leon"
        try b.store.updateProfile(leo, authorization: b.store.authorize(pin: nil))
        // A removal is on the server at once: an edit of her from another kiosk is refused there.
        try await b.client.round(b.store)
        let miaOnB = try #require(try b.store.profile(named: "Mia"))
        try a.store.removeProfile(mia, authorization: a.store.authorize(pin: nil))
        var renamed = miaOnB
        renamed.name = "Maya"
        #expect(throws: StoreError.self) { try b.store.updateProfile(renamed, authorization: b.store.authorize(pin: nil)) }
        try await b.client.round(b.store)
        #expect(try b.store.profile(named: "Mia") == nil)
        #expect(try b.store.profile(named: "Leon") != nil)
        // The name of a removed child is free again.
        _ = try b.store.addProfile(ChildProfile(name: "Mia", age: 4), authorization: b.store.authorize(pin: nil))
        #expect(
            try site.postgres.psql(
                "SELECT count(*) FROM profile_name WHERE site_id = (SELECT id FROM site WHERE name = 'names') AND name_key = 'mia' AND NOT removed") == "1")

        // The server away: nothing changes, and the grown-up is told why.
        let down = "http://127.0.0.1:\(try PostgresServer.freePort())"
        let c = try kiosk("names-c", token: token, url: down)
        defer { c.folder.remove() }
        let before = try c.store.syncStatus().outbox
        var offline = ""
        do {
            _ = try c.store.addProfile(ChildProfile(name: "Zoe", age: 7), authorization: c.store.authorize(pin: nil))
        } catch { offline = error.description }
        #expect(offline.contains("joined to a site: adding a profile needs the server, which cannot be reached now"))
        #expect(try c.store.profile(named: "Zoe") == nil)
        #expect(try c.store.syncStatus().outbox == before)
        try SyncClient.save(c.client.settings, in: c.folder.url)
        let cli = try storyreader(["profile", "add", "--name", "Zoe", "--age", "7", "--data-dir", c.folder.url.path])
        #expect(cli.status == 1)
        #expect(cli.standardError.contains("adding a profile needs the server, which cannot be reached now"), "\(cli.standardError)")
        #expect(try c.store.profile(named: "Zoe") == nil)
        let rename = try storyreader(["profile", "edit", "Reader", "--name", "Rita", "--data-dir", c.folder.url.path])
        #expect(rename.status == 1)
        #expect(rename.standardError.contains("renaming a profile needs the server"), "\(rename.standardError)")
        #expect(try c.store.profile(named: "Reader") != nil)
    }

    /// Issue 13: the parental PIN is the site's. It is set, changed and cleared only with the server
    /// (refused offline); kiosks of the site take it at their next sync, kiosks of another site never
    /// see it; a PIN hash in a kiosk's ordinary upload is dropped; wrong tries lock only the kiosk
    /// they were typed on and show in `sync --status` on the others.
    @Test func theParentalPINIsPerSiteAndChangesOnlyOnline() async throws {
        let tokenA = try addSite("pin-a")
        let tokenB = try addSite("pin-b")
        let a1 = try kiosk("pin-a1", token: tokenA)
        let a2 = try kiosk("pin-a2", token: tokenA)
        let b = try kiosk("pin-b", token: tokenB)
        defer {
            a1.folder.remove()
            a2.folder.remove()
            b.folder.remove()
        }
        try a1.store.setPIN("4321")
        try await a2.client.round(a2.store)
        try await b.client.round(b.store)
        #expect(try a2.store.isPINSet())
        try a2.store.verifyPIN("4321")
        #expect(try b.store.isPINSet() == false)
        #expect(try serverRows(site: "pin-b") > 0)
        #expect(
            try site.postgres.psql(
                "SELECT count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = 'pin-b') AND body LIKE '%pinHash%'") == "0")
        let page: PullResponse = try await b.client.call("GET", SyncAPI.changesPath(site: "pin-b") + "?after=0", body: Optional<UploadRequest>.none)
        #expect(!page.changes.contains { $0.isPIN })

        // Wrong tries on a2 lock a2 only; a1 sees them in its status.
        for _ in 0..<5 { #expect(throws: StoreError.self) { try a2.store.verifyPIN("0000") } }
        #expect(try a2.store.pinLockout().failedAttempts == 5)
        try await a2.client.round(a2.store)
        try await a1.client.round(a1.store)
        #expect(try a1.store.pinLockout().failedAttempts == 0)
        try a1.store.verifyPIN("4321")
        #expect(try a1.store.syncStatus().pinFailures.count == 5)
        try SyncClient.save(a1.client.settings, in: a1.folder.url)
        let status = try storyreader(["sync", "--status", "--data-dir", a1.folder.url.path])
        #expect(status.standardOutput.contains("Wrong PIN tries on the site: 5"), "\(status.standardOutput)")

        // A PIN hash slipped into an ordinary upload (an offline outbox) is not taken.
        let forged = SyncChange(hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "forger"), body: .pinHash(record: nil))
        let _: UploadResponse = try await a1.client.call(
            "POST", SyncAPI.changesPath(site: "pin-a"), body: UploadRequest(changes: [forged], kioskMillis: HybridLogicalClock.millis(Date())))
        try await a2.client.round(a2.store)
        #expect(try a2.store.isPINSet())

        // Offline: refused, nothing changes.
        let down = try kiosk("pin-down", token: tokenA, url: "http://127.0.0.1:\(try PostgresServer.freePort())")
        defer { down.folder.remove() }
        #expect(throws: StoreError.self) { try down.store.setPIN("1111") }
        #expect(try down.store.isPINSet() == false)

        // Cleared on a1: a2 follows.
        try a1.store.clearPIN(current: "4321")
        try await a2.client.round(a2.store)
        #expect(try a2.store.isPINSet() == false)
    }

    /// Bug A with the real server: a kiosk an hour ahead edits one field twice in one batch; the
    /// server re-stamps both. Every machine must keep the later edit (equal stamps kept the older
    /// one on the server and on every other kiosk, the newer on the kiosk that made them).
    /// `history --kiosk` on one kiosk shows the sessions of every kiosk of the site, each with the
    /// kiosk it ran on, and its own as this kiosk's.
    @Test func historyOfKioskSessionsSaysWhichKioskEachRanOn() async throws {
        let token = try addSite("log")
        let a = try kiosk("log-a", token: token)
        let b = try kiosk("log-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        let there = try a.store.beginKioskSession(profile: "Reader")
        try a.store.updateKioskSession(id: there, profiles: ["Reader"], storiesRead: ["fox"], blockedKeys: 2, endReason: "pin")
        let here = try b.store.beginKioskSession(profile: "Reader")
        try b.store.updateKioskSession(id: here, profiles: ["Reader"], storiesRead: [], blockedKeys: 0, endReason: "pin")
        try await a.client.round(a.store)
        try await b.client.round(b.store)
        let history = try storyreader(["history", "--kiosk", "--data-dir", b.folder.url.path])
        let lines = history.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "Kiosk sessions:", "\(history.standardOutput)")
        #expect(lines.filter { $0.contains("  this kiosk  ") }.count == 1, "\(history.standardOutput)")
        #expect(lines.contains { $0.contains(try! Regex("  kiosk [0-9a-f]{8}  Reader  fox  2 blocked key presses")) }, "\(history.standardOutput)")
        let json = try storyreader(["history", "--kiosk", "--json", "--data-dir", b.folder.url.path])
        #expect(json.standardOutput.contains("\"kiosk\""), "\(json.standardOutput)")
    }

    @Test func twoEditsFromAKioskAheadReachEveryMachineInOrder() async throws {
        let token = try addSite("ahead")
        // b's clock is right (it joins with its own default profile, stamped now: older than a's edits).
        let a = try kiosk("ahead-a", token: token, ahead: 3600)
        let b = try kiosk("ahead-b", token: token, ahead: 0)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        var reader = try a.store.profiles()[0]
        reader.age = 7
        try a.store.updateProfile(reader, authorization: a.store.authorize(pin: nil))
        a.folder.clock.advance(by: 1)
        reader.age = 8
        try a.store.updateProfile(reader, authorization: a.store.authorize(pin: nil))
        let round = try await a.client.round(a.store)
        #expect(round.clockWarning != nil)
        try await b.client.round(b.store)
        let server = try await a.client.siteSnapshot()
        let ages = [
            try a.store.profile(named: "Reader")?.age, try b.store.profile(named: "Reader")?.age,
            server.profiles.values.first { $0["name"] == "Reader" }?["age"].flatMap { $0 }.flatMap(Int.init),
        ]
        print("sync clock ahead, two edits in one batch: ages on kiosk A, kiosk B, server \(ages.map { $0.map(String.init) ?? "none" })")
        #expect(ages == [8, 8, 8])
        #expect(try a.store.syncStatus().clockWarning?.contains("ahead") == true)
        // `sync --status` shows the warning too, not only the `sync` that got it.
        try SyncClient.save(a.client.settings, in: a.folder.url)
        let status = try storyreader(["sync", "--status", "--data-dir", a.folder.url.path])
        let warning = status.standardOutput.split(separator: "\n").first { $0.hasPrefix("Warning: this machine's clock is ") }
        #expect(warning?.contains("minutes ahead of the server's") == true, "\(status.standardOutput)")
        // An hour, less the moments the test took: 59 or 60 whole minutes.
        let minutes = warning.flatMap { Int($0.split(separator: " ")[5]) }
        #expect((59...60).contains(minutes ?? 0))
    }

    /// The server reads a page of its log as one row, cut by each body's length in the database's
    /// bytes. A site whose database is LATIN1 (sending UTF-8 to its clients) counts "ë" as one
    /// byte, not UTF-8's two: that page does not cut, and the server reads its rows one by one
    /// instead, so a kiosk still gets every change, names with accents included. (Cutting it
    /// anyway loses the profile on kiosk B.)
    @Test func aSiteWhoseDatabaseIsNotUTF8StillServesEveryChange() async throws {
        _ = try site.postgres.psql("CREATE DATABASE latin ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        _ = try site.postgres.psql("ALTER DATABASE latin SET client_encoding TO 'UTF8'")
        let url = String(site.postgres.url.dropLast("postgres".count)) + "latin"
        let added = try storyreader(["serve", "site", "add", "latin", "--database", url])
        #expect(added.status == 0, "\(added.standardError)")
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try ServeProcess.start(database: url)
        defer { serve.stop() }
        let a = try kiosk("latin-a", token: token, url: serve.url)
        let b = try kiosk("latin-b", token: token, url: serve.url)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        let zoe = try a.store.addProfile(ChildProfile(name: "Zoë", age: 6), authorization: a.store.authorize(pin: nil))
        for story in ["lighthouse", "fox", "lighthouse"] { try a.store.recordFinishedRead(profileID: zoe.id!, storyID: story) }
        try await a.client.round(a.store)
        try await b.client.round(b.store)
        let onB = try #require(b.store.profiles().first { $0.name == "Zoë" }, "the name with its accent reached kiosk B")
        #expect(try b.store.readCount(profileID: onB.id!, storyID: "lighthouse") == 2)
        #expect(try b.store.syncSnapshot() == a.store.syncSnapshot())
        #expect(try b.store.setAsideCount() == 0)
    }
}
