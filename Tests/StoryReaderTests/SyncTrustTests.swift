import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Raw HTTP to a server, as an attacker (or a broken kiosk) would send it: any bytes, any status.
enum RawHTTP {
    static func send(_ method: String, _ url: String, token: String? = nil, body: Data? = nil, deadline: Double = 10) async throws -> (status: Int, body: Data)
    {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: deadline)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await SyncClient.exchange(request, deadline: deadline)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    static func batch(_ changes: [SyncChange], kioskMillis: Int64 = HybridLogicalClock.millis(Date())) throws -> Data {
        try JSONEncoder.sync.encode(UploadRequest(changes: changes, kioskMillis: kioskMillis))
    }
}

/// Issue 33, items 1–5: the site server's trust boundary, against a real `storyreader serve` and
/// a real PostgreSQL: nothing one kiosk sends can stop the server or poison the site's other
/// kiosks, and a hostile or broken server cannot hang or stop a kiosk.
@Suite(.serialized, .enabled(if: ServerBuild.available, Comment(rawValue: ServerBuild.why)), SharedSite())
struct SyncTrustTests {
    var site: SiteFixture { SiteFixture.current! }

    func storyreader(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, input: input)
    }

    /// The site helpers of the sync server suite (they read the same task-local site).
    var shared: SyncServerTests { SyncServerTests() }

    func addSite(_ name: String) throws -> String { try shared.addSite(name) }

    /// A kiosk joined to the site, with its `sync.json` (for the commands run on its folder).
    func kiosk(_ label: String, token: String) throws -> SyncServerTests.Kiosk {
        let kiosk = try shared.kiosk(label, token: token)
        try SyncClient.save(kiosk.client.settings, in: kiosk.folder.url)
        return kiosk
    }

    func serverRows(_ name: String) throws -> Int {
        Int(try site.postgres.psql("SELECT count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = '\(name)')")) ?? -1
    }

    func changesURL(_ name: String, server: String? = nil) -> String { (server ?? site.serve.url) + SyncAPI.changesPath(site: name) }

    func health(_ server: String? = nil, deadline: Double = 10) async -> String? {
        guard let answer = try? await RawHTTP.send("GET", (server ?? site.serve.url) + "/v1/health", deadline: deadline), answer.status == 200 else {
            return nil
        }
        return String(decoding: answer.body, as: UTF8.self)
    }

    /// Puts a change in the site's log as a server before this fix (or one whose database was
    /// written by hand) would have stored it, bypassing the server's checks.
    func plant(_ change: SyncChange, site name: String) throws {
        try plant(body: String(decoding: try JSONEncoder.sync.encode(change), as: UTF8.self), id: change.id, hlc: change.hlc.description, site: name)
    }

    /// Puts any text in the site's log as a change's body.
    func plant(body text: String, id: UUID = UUID(), hlc: String = "0000000000000:000000:x", site name: String) throws {
        let body = text.replacingOccurrences(of: "'", with: "''")
        _ = try site.postgres.psql(
            """
            WITH s AS (UPDATE site SET counter = counter + 1 WHERE name = '\(name)' RETURNING id, counter)
            INSERT INTO change (site_id, id, seq, hlc, body) SELECT id, '\(id.uuidString)', counter, '\(hlc)', '\(body)' FROM s
            """)
    }

    // MARK: - Item 1

    /// Any site's token stopped the whole server: kioskMillis = Int64.min overflowed the skew check.
    @Test func anUploadWithTheLowestClockLeavesTheServerServing() async throws {
        let token = try addSite("overflow")
        let lowest = Data(#"{"changes":[],"kioskMillis":-9223372036854775808}"#.utf8)
        let answer = try await RawHTTP.send("POST", changesURL("overflow"), token: token, body: lowest)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let highest = Data(#"{"changes":[],"kioskMillis":9223372036854775807}"#.utf8)
        let warned = try await RawHTTP.send("POST", changesURL("overflow"), token: token, body: highest)
        #expect(warned.status == 200)
        #expect(String(decoding: warned.body, as: UTF8.self).contains("ahead"))
        #expect(await health() == "ok")
    }

    // MARK: - Item 2

    /// The server checks every field of every change by the kiosk's rules and refuses a bad one
    /// with 400 and a reason naming it; nothing of the batch is stored.
    @Test func theServerRefusesEachPoisonWith400AndStoresNothing() async throws {
        let token = try addSite("checked")
        let k = try kiosk("checked", token: token)
        defer { k.folder.remove() }
        try await k.client.round(k.store)
        let before = try serverRows("checked")
        let reader = try #require(try k.store.syncSnapshot().profiles.first?.key)
        let now = HybridLogicalClock.millis(Date())
        let stamp = HLCTimestamp(millis: now, node: "evil")
        let poisons: [(SyncChange, String)] = [
            (SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: "abc")), "age"),
            (SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "rate", value: "99999999999999999999999")), "rate"),
            (SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: nil)), "age"),
            (SyncChange(hlc: stamp, body: .profileField(profile: UUID(), field: "name", value: "\u{1B}]0;x\u{7}\u{1B}[2J\u{1B}]52;c;aGk=\u{7}Eve")), "name"),
            (SyncChange(hlc: stamp, body: .read(profile: reader, story: "fox", finishedAt: Date(timeIntervalSince1970: 1e15))), "finishedAt"),
            (
                SyncChange(hlc: HLCTimestamp(millis: now + 240_000, counter: .max, node: "x"), body: .position(profile: reader, story: "fox", sentence: 1)),
                "counter"
            ),
        ]
        let valid = SyncChange(hlc: stamp, body: .favourite(profile: reader, story: "fox", isFavourite: true))
        for (poison, named) in poisons {
            let answer = try await RawHTTP.send("POST", changesURL("checked"), token: token, body: try RawHTTP.batch([valid, poison]))
            #expect(answer.status == 400, "\(named): \(answer.status)")
            let refusal = try JSONDecoder().decode(RefusalResponse.self, from: answer.body)
            #expect(refusal.refused.map(\.id) == [poison.id])
            #expect(refusal.refused.first?.reason.contains(named) == true, "\(refusal.refused)")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("\u{1B}"))
        }
        #expect(try serverRows("checked") == before)
        // The PIN route checks too: a cost no kiosk could afford to verify is refused.
        let pin = SyncChange(
            hlc: stamp,
            body: .pinHash(
                record:
                    #"{"algorithm":"scrypt","salt":"AAAAAAAAAAAAAAAAAAAAAA==","key":"AAAAAAAAAAAAAAAAAAAAAA==","cost":{"rounds":1099511627776,"blockSize":8,"parallelism":1}}"#
            ))
        let refusedPIN = try await RawHTTP.send("POST", site.serve.url + SyncAPI.pinPath(site: "checked"), token: token, body: try RawHTTP.batch([pin]))
        #expect(refusedPIN.status == 400)
        #expect(try serverRows("checked") == before)
        #expect(await health() == "ok")
    }

    /// Two kiosks of a site: changes that reached the log before the server checked them (planted
    /// in PostgreSQL) are set aside by the kiosk that pulls them, counted in `sync --status`; its
    /// `profile list`, `history`, `read --profile` and later syncs keep working (they exited 132,
    /// or failed every sync with "NOT NULL constraint failed").
    @Test func aPoisonedLogIsSetAsideByTheKiosksThatPullIt() async throws {
        let token = try addSite("poisoned")
        let a = try kiosk("poisoned-a", token: token)
        let b = try kiosk("poisoned-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        try await a.client.round(a.store)
        try await b.client.round(b.store)
        let reader = try #require(try a.store.syncSnapshot().profiles.first { $0.value["name"] == "Reader" }?.key)
        let now = HybridLogicalClock.millis(Date())
        let stamp = HLCTimestamp(millis: now + 60_000, node: "evil")
        let poisons: [SyncChange] = [
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: "abc")),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "rate", value: "99999999999999999999999")),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "age", value: nil)),
            SyncChange(hlc: stamp, body: .profileField(profile: reader, field: "name", value: "\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}]52;c;aGk=\u{7}Reader")),
            SyncChange(hlc: stamp, body: .read(profile: reader, story: "lighthouse", finishedAt: Date(timeIntervalSince1970: 1e15))),
            SyncChange(hlc: HLCTimestamp(millis: now + 240_000, counter: .max, node: "x"), body: .position(profile: reader, story: "lighthouse", sentence: 2)),
        ]
        for poison in poisons { try plant(poison, site: "poisoned") }
        try a.store.recordFinishedRead(profileID: try a.store.profiles()[0].id!, storyID: "lighthouse")
        try await a.client.round(a.store)

        let sync = try storyreader(["sync", "--data-dir", b.folder.url.path])
        #expect(sync.status == 0, "\(sync.standardError)")
        #expect(sync.standardOutput.contains("\(poisons.count) invalid changes were set aside"), "\(sync.standardOutput)")
        let status = try storyreader(["sync", "--status", "--data-dir", b.folder.url.path])
        #expect(status.standardOutput.contains("Set aside as invalid: \(poisons.count) changes"), "\(status.standardOutput)")
        for command in [["profile", "list"], ["history"], ["read", "lighthouse", "--profile", "Reader", "--no-audio"]] {
            let result = try storyreader(command + ["--data-dir", b.folder.url.path])
            #expect(result.status == 0, "\(command): \(result.status) \(result.standardError)")
            #expect(!result.standardOutput.contains("\u{1B}"), "\(command)")
        }
        #expect(try b.store.profiles().map(\.age) == [ChildProfile.defaultProfile.age])
        // A's valid read arrived beside the poisons, and later syncs go on.
        #expect(try b.store.history().contains { $0.storyID == "lighthouse" })
        try a.store.recordFinishedRead(profileID: try a.store.profiles()[0].id!, storyID: "later")
        try await a.client.round(a.store)
        try await b.client.round(b.store)
        #expect(try b.store.history().contains { $0.storyID == "later" })
        #expect(try b.store.syncStatus().lastError == nil)
    }

    /// The server hands out its log's bodies as stored (issue 32): a row that is not JSON at all (a
    /// log written by hand) is left out of the page, one that is JSON but no change is set aside by
    /// the kiosk, and the valid changes around them arrive in order, page after page.
    @Test func aLogRowThatIsNotJSONIsLeftOutOfThePage() async throws {
        let token = try addSite("not-json")
        let a = try kiosk("not-json-a", token: token)
        let b = try kiosk("not-json-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        try await a.client.round(a.store)
        let reader = try a.store.profiles()[0].id!
        try a.store.recordFinishedRead(profileID: reader, storyID: "before")
        try await a.client.round(a.store)
        for text in ["not json", #"{"id":"#, #"{"a":1}}"#, "[1 2]", "\u{1B}[2J"] { try plant(body: text, site: "not-json") }
        try plant(body: #"{"neither":"a change"}"#, site: "not-json")
        try a.store.recordFinishedRead(profileID: reader, storyID: "after")
        try await a.client.round(a.store)

        // Pages of two: the rows left out do not stop the cursor.
        let small = SyncClient(settings: b.client.settings, batchSize: 2)
        let round = try await small.round(b.store)
        #expect(Set(try b.store.history().map(\.storyID)).isSuperset(of: ["before", "after"]))
        #expect(round.setAside == 1, "\(round)")
        #expect(try b.store.syncStatus().lastError == nil)
        // The raw page: JSON, the cursor past every row, the bad ones not in it.
        let answer = try await RawHTTP.send("GET", changesURL("not-json") + "?after=0&limit=1000", token: token)
        #expect(answer.status == 200)
        let page = try JSONDecoder.sync.decode(PullResponse.self, from: answer.body)
        #expect(page.cursor == Int64(try serverRows("not-json")))
        #expect(page.unreadable.count == 1)
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("not json"))
    }

    // MARK: - Item 3

    /// A name with terminal controls already in a kiosk's database (pulled before names were
    /// checked) never reaches the terminal raw; `/changes` refuses a name another child of the
    /// site has, as `/profiles` does.
    @Test func namesFromAnySourceAreSanitizedAndUniqueOnTheSite() async throws {
        let token = try addSite("names-raw")
        let a = try kiosk("names-raw-a", token: token)
        defer { a.folder.remove() }
        _ = try a.store.addProfile(ChildProfile(name: "Mia", age: 5), authorization: a.store.authorize(pin: nil))
        try await a.client.round(a.store)
        let stamp = HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "evil")
        let twin = SyncChange(hlc: stamp, body: .profileField(profile: UUID(), field: "name", value: "MIA"))
        let before = try serverRows("names-raw")
        let answer = try await RawHTTP.send("POST", changesURL("names-raw"), token: token, body: try RawHTTP.batch([twin]))
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("already a profile called MIA on this site"))
        #expect(try serverRows("names-raw") == before)

        let queue = try DatabaseQueue(path: a.folder.databaseURL.path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE profile SET name = ? WHERE nameKey = 'mia'", arguments: ["\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}]52;c;aGk=\u{7}Mia"])
        }
        try queue.close()
        for command in [
            ["profile", "list"], ["profile", "list", "--json"], ["profile", "show", "Mia"], ["history"],
            ["read", "lighthouse", "--profile", "Mia", "--no-audio"],
        ] {
            let result = try storyreader(command + ["--data-dir", a.folder.url.path])
            #expect(result.status == 0, "\(command): \(result.standardError)")
            #expect(!result.standardOutput.contains("\u{1B}") && !result.standardError.contains("\u{1B}"), "\(command)")
        }
        #expect(try storyreader(["profile", "list", "--data-dir", a.folder.url.path]).standardOutput.contains("Mia, age 5"))
    }

    // MARK: - Fuzz

    /// Random and mutated changes of the wire format, sent through the real server (each alone:
    /// a bad one refuses its batch) and, when the server refuses them, planted in its log as an
    /// unchecked server would have stored them; then a second kiosk pulls everything. No answer
    /// but 200 or 400, no crash of either side, no invalid row stored by the kiosk, no valid read
    /// lost. A few seconds in CI; `STORYREADER_FUZZ_SECONDS` runs it longer.
    @Test func fuzzedChangesNeverCrashPoisonOrLoseReads() async throws {
        let seconds = ProcessInfo.processInfo.environment["STORYREADER_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        let token = try addSite("fuzz")
        let a = try kiosk("fuzz-a", token: token)
        let b = try kiosk("fuzz-b", token: token)
        defer {
            a.folder.remove()
            b.folder.remove()
        }
        try await a.client.round(a.store)
        let reader = try #require(try a.store.syncSnapshot().profiles.first?.key)
        var random = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
        let hostile: [Any] = [
            Int64.min, Int64.max, 1e308, -1, 0, 1.5, "", "abc", NSNull(), true, [Any](), [String: Any](), "99999999999999999999999",
            "\u{1B}]0;x\u{7}\u{1B}[2J", String(repeating: "z", count: 70_000), "0000000000000:999999999999999999:x", "-5:0:x",
            "00000000-0000-0000-0000-000000000000", 9_999_999_999_999, -9_999_999_999_999,
        ]
        func template() -> SyncChange {
            let stamp = HLCTimestamp(millis: HybridLogicalClock.millis(Date()), counter: Int.random(in: 0...5, using: &random), node: "fuzz")
            let story = "story\(Int.random(in: 0..<5, using: &random))"
            let bodies: [SyncChange.Body] = [
                .read(profile: reader, story: story, finishedAt: Date()),
                .position(profile: reader, story: story, sentence: Int.random(in: 0..<50, using: &random)),
                .favourite(profile: reader, story: story, isFavourite: Bool.random(using: &random)),
                .profileField(profile: reader, field: StoryStore.syncedProfileFields.randomElement(using: &random)!, value: "6"),
                .profileRemoved(profile: UUID()),
                .kioskSession(
                    session: UUID(), kiosk: "fuzz", record: #"{"id":1,"profiles":["Reader"],"startedAt":1800000000000,"storiesRead":[],"blockedKeys":0}"#),
                .failedPIN(kiosk: "fuzz", at: Date()),
            ]
            return SyncChange(hlc: stamp, body: bodies.randomElement(using: &random)!)
        }
        /// Every path to a leaf of a JSON object.
        func paths(_ value: Any, _ prefix: [String] = []) -> [[String]] {
            guard let object = value as? [String: Any] else { return [prefix] }
            return [prefix] + object.flatMap { paths($0.value, prefix + [$0.key]) }
        }
        func setting(_ value: Any, at path: [String], in object: Any) -> Any {
            guard let key = path.first else { return value }
            var dictionary = object as? [String: Any] ?? [:]
            dictionary[key] = setting(value, at: Array(path.dropFirst()), in: dictionary[key] ?? [String: Any]())
            return dictionary
        }
        var validReads: Set<UUID> = []
        var accepted = 0
        var refused = 0
        var planted = 0
        var sent = 0
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            sent += 1
            if Int.random(in: 0..<3, using: &random) == 0 {
                let read = SyncChange(
                    hlc: HLCTimestamp(millis: HybridLogicalClock.millis(Date()), node: "fuzz"),
                    body: .read(profile: reader, story: "valid", finishedAt: Date()))
                let answer = try await RawHTTP.send("POST", changesURL("fuzz"), token: token, body: try RawHTTP.batch([read]))
                #expect(answer.status == 200, "a valid read was refused: \(String(decoding: answer.body, as: UTF8.self))")
                if answer.status == 200 { validReads.insert(read.id) }
                continue
            }
            var json = try JSONSerialization.jsonObject(with: try JSONEncoder.sync.encode(template()))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                // Any leaf or object inside the change (the change itself stays an object).
                let path = paths(json).filter { !$0.isEmpty }.randomElement(using: &random)!
                json = setting(hostile.randomElement(using: &random)!, at: path, in: json)
            }
            let change = try JSONSerialization.data(withJSONObject: json)
            var body = Data(#"{"kioskMillis":0,"changes":["#.utf8) + change + Data("]}".utf8)
            if Int.random(in: 0..<10, using: &random) == 0 { body = body.prefix(Int.random(in: 0..<body.count, using: &random)) }
            let answer = try await RawHTTP.send("POST", changesURL("fuzz"), token: token, body: body)
            #expect([200, 400].contains(answer.status), "\(answer.status) for \(String(decoding: body.prefix(300), as: UTF8.self))")
            if answer.status == 200 {
                accepted += 1
            } else {
                refused += 1
                // As a server without these checks would have stored it.
                if let text = String(data: change, encoding: .utf8), !text.contains("\u{0}"), text.utf8.count < 100_000 {
                    let escaped = text.replacingOccurrences(of: "'", with: "''")
                    _ = try site.postgres.psql(
                        """
                        WITH s AS (UPDATE site SET counter = counter + 1 WHERE name = 'fuzz' RETURNING id, counter)
                        INSERT INTO change (site_id, id, seq, hlc, body) SELECT id, '\(UUID().uuidString)', counter, '0000000000000:000000:x', '\(escaped)' FROM s
                        """)
                    planted += 1
                }
            }
        }
        #expect(await health() == "ok")
        try await b.client.round(b.store)
        let snapshot = try b.store.syncSnapshot()
        let lost = validReads.subtracting(snapshot.reads.keys).count
        _ = try b.store.profiles()
        _ = try b.store.history()
        _ = try b.store.kioskSessions()
        let status = try b.store.syncStatus()
        var invalid = 0
        for (_, fields) in snapshot.profiles {
            for (field, value) in fields where SyncValidation.profileFieldProblem(field, value) != nil { invalid += 1 }
        }
        invalid += snapshot.positions.values.filter { !SyncValidation.sentenceRange.contains($0) }.count
        print(
            "sync fuzz: \(sent) batches in \(Int(seconds)) s, \(validReads.count) valid reads, \(accepted) mutated accepted, \(refused) refused (\(planted) planted in the log), \(status.setAside) set aside by the pulling kiosk, \(invalid) invalid rows stored, \(lost) valid reads lost"
        )
        #expect(lost == 0)
        #expect(invalid == 0)
        #expect(b.store.damagedRowsFound.isEmpty, "\(b.store.damagedRowsFound)")
        #expect(status.lastError == nil)
    }

    // MARK: - Item 5

    /// A body over the limit is 413, not 503; a kiosk whose outbox holds a change too large alone
    /// sets it aside and sends the rest, instead of retrying for ever.
    @Test func aBodyOverTheLimitIs413AndTheKioskGoesOn() async throws {
        let token = try addSite("large")
        let k = try kiosk("large", token: token)
        defer { k.folder.remove() }
        let huge = Data(("{\"changes\":[],\"kioskMillis\":0,\"pad\":\"" + String(repeating: "x", count: 17 * 1024 * 1024) + "\"}").utf8)
        let answer = try await RawHTTP.send("POST", changesURL("large"), token: token, body: huge, deadline: 30)
        #expect(answer.status == 413)

        let reader = try k.store.profiles()[0].id!
        try k.store.recordFinishedRead(profileID: reader, storyID: "before")
        let giant = SyncChange(
            hlc: HLCTimestamp(millis: HybridLogicalClock.millis(k.store.now), node: "k"),
            body: .kioskSession(session: UUID(), kiosk: "k", record: String(repeating: "y", count: 17 * 1024 * 1024)))
        try k.store.write { db in
            try db.execute(sql: "INSERT INTO syncOutbox (change) VALUES (?)", arguments: [String(decoding: try JSONEncoder.sync.encode(giant), as: UTF8.self)])
        }
        try k.store.recordFinishedRead(profileID: reader, storyID: "after")
        let round = try await k.client.round(k.store)
        #expect(round.setAside == 1)
        #expect(try k.store.syncStatus().outbox == 0)
        #expect(
            try site.postgres.psql(
                "SELECT count(*) FROM change WHERE site_id = (SELECT id FROM site WHERE name = 'large') AND body LIKE '%finishedAt%'") == "2")
    }

    /// The issue's attack: 1,100 idle connections under a 1,024 open-file limit, and headers and a
    /// body sent a byte at a time. The slow ones are cut, and `/v1/health` still answers.
    @Test func idleAndSlowConnectionsAreCutAndHealthStillAnswers() async throws {
        let serve = try ServeProcess.start(database: site.postgres.url, arguments: ["--idle-timeout", "1"], openFiles: 1024)
        defer { serve.stop() }
        let port = UInt16(serve.url.split(separator: ":").last!)!
        var idle: [Int32] = []
        defer { for socket in idle { close(socket) } }
        for _ in 0..<1100 {
            if let socket = TCP.connect(port: port) { idle.append(socket) }
        }
        #expect(idle.count > 1000)
        #expect(await health(serve.url, deadline: 30) == "ok")

        // Headers that never end, and a body that never ends: each is cut.
        let headers = try #require(TCP.connect(port: port))
        let body = try #require(TCP.connect(port: port))
        defer {
            close(headers)
            close(body)
        }
        TCP.send(body, "POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        var headersCut = false
        var bodyCut = false
        for _ in 0..<200 where !(headersCut && bodyCut) {
            if !headersCut { headersCut = !TCP.send(headers, "X") }
            if !bodyCut { bodyCut = !TCP.send(body, "y") }
            usleep(100_000)
        }
        #expect(headersCut)
        #expect(bodyCut)
        #expect(await health(serve.url) == "ok")
    }

    /// SIGTERM stops the server cleanly: exit 0, after saying so.
    @Test func sigtermStopsTheServerCleanly() async throws {
        let serve = try ServeProcess.start(database: site.postgres.url)
        defer { serve.stop() }
        #expect(await health(serve.url) == "ok")
        let status = serve.stop(with: SIGTERM, within: 15)
        #expect(status == 0, "\(serve.printed)")
        #expect(serve.printed.contains("storyreader serve: stopped"), "\(serve.printed)")
    }
}

/// Plain TCP for the connection tests.
enum TCP {
    static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether the bytes went out (false once the peer closed the connection).
    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Bool {
        text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } > 0
    }
}
