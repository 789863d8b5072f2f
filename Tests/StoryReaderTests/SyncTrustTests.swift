import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Raw HTTP to a server, as an attacker (or a broken kiosk) would send it: any bytes, any status.
enum RawHTTP {
    static func send(_ method: String, _ url: String, token: String? = nil, body: Data? = nil, deadline: Double = 10) async throws -> (status: Int, body: Data) {
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

    /// The site helpers of the sync server suite (they read the same task-local site).
    var shared: SyncServerTests { SyncServerTests() }

    func addSite(_ name: String) throws -> String { try shared.addSite(name) }

    func changesURL(_ name: String, server: String? = nil) -> String { (server ?? site.serve.url) + SyncAPI.changesPath(site: name) }

    func health(_ server: String? = nil, deadline: Double = 10) async -> String? {
        guard let answer = try? await RawHTTP.send("GET", (server ?? site.serve.url) + "/v1/health", deadline: deadline), answer.status == 200 else {
            return nil
        }
        return String(decoding: answer.body, as: UTF8.self)
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
}
