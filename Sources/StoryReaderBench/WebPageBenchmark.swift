import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import StoryServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storyreader bench web-page`: how fast the server's web page answers a librarian on a big site
/// (issue 44: within 50 ms at the p99 for 1,000 children). `serve` runs as its own process, as a
/// site runs it; the site's log is filled through the kiosks' API, then the pages are asked for one
/// after another on one kept-alive connection, signed in.
struct WebPageBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-page",
        abstract: helpMessages.tr(
            "Measure the server's web page: the children page and a child's page, p50 and p99, for a site of many children (needs PostgreSQL)."))

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("The PostgreSQL database: postgres://USER@HOST:PORT/DATABASE (no password here); without it a temporary PostgreSQL is started.")))
    var database: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Children of the site."))) var children = 1000
    @Option(help: ArgumentHelp(helpMessages.tr("Finished reads of each child."))) var reads = 20
    @Option(help: ArgumentHelp(helpMessages.tr("Pages asked for, of each kind."))) var requests = 500

    func validate() throws {
        guard (1...20000).contains(children) else { throw ValidationError("--children: 1 to 20000") }
        guard (0...500).contains(reads) else { throw ValidationError("--reads: 0 to 500") }
        guard (10...100_000).contains(requests) else { throw ValidationError("--requests: 10 to 100000") }
    }

    func run() throws {
        try requireServerBuild()
        #if Server
            let (url, address, temporary) = try TemporaryPostgres.orGiven(database, passwordFile: nil)
            defer { temporary?.stop() }
            let site = "bench-web-\(UUID().uuidString.prefix(6).lowercased())"
            let token = try SyncServerBenchmark.blocking { try await SyncServer.withDatabase(address) { try await $0.addSite(site) } }
            let librarian = "librarian-\(site)"
            let passphrase = try SyncServerBenchmark.blocking {
                try await SyncServer.withDatabase(address) { try await $0.addStaff(site: site, name: librarian, role: .librarian, children: []) }
            }
            let server = try ServerProcess(database: url)
            defer { server.stop() }
            let base = "http://\(server.address)"
            let heading = "bench web-page: serve (pid \(server.pid)) on \(server.address)"
            let (children, reads, requests) = (children, reads, requests)
            let figures = try SyncServerBenchmark.blocking { () -> [String] in
                let configuration = URLSessionConfiguration.ephemeral
                configuration.httpShouldSetCookies = false
                let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
                // The site's log, as kiosks would send it: each child's name, age and reads.
                let now = HybridLogicalClock.millis(Date())
                var changes: [SyncChange] = []
                var ids: [UUID] = []
                for child in 0..<children {
                    let id = UUID()
                    ids.append(id)
                    let node = "kiosk\(child % 20)"
                    changes.append(
                        SyncChange(
                            hlc: HLCTimestamp(millis: now, counter: 0, node: node), body: .profileField(profile: id, field: "name", value: "Child \(child)")))
                    changes.append(
                        SyncChange(hlc: HLCTimestamp(millis: now, counter: 1, node: node), body: .profileField(profile: id, field: "age", value: "7")))
                    for read in 0..<reads {
                        changes.append(
                            SyncChange(
                                hlc: HLCTimestamp(millis: now, counter: 2 + read, node: node),
                                body: .read(
                                    profile: id, story: "story-\(read % 40)", finishedAt: Date(timeIntervalSince1970: Double(now / 1000 - Int64(read) * 3600))))
                        )
                    }
                }
                for start in stride(from: 0, to: changes.count, by: 2000) {
                    var request = URLRequest(url: URL(string: base + SyncAPI.changesPath(site: site))!)
                    request.httpMethod = "POST"
                    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                    request.httpBody = try JSONEncoder.sync.encode(
                        UploadRequest(changes: Array(changes[start..<min(start + 2000, changes.count)]), kioskMillis: now))
                    let (_, response) = try await session.data(for: request)
                    guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw StoreCommandSupport.fail("the upload of the site's log failed") }
                }
                // Signed in as a librarian, as a browser does (the sign-in form's cookie, then the session's).
                let (signInPage, signInResponse) = try await session.data(from: URL(string: base + "/")!)
                let formCookie = Self.cookie(signInResponse, "storyreader_sign_in") ?? ""
                let csrf =
                    String(decoding: signInPage, as: UTF8.self).components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
                var signIn = URLRequest(url: URL(string: base + "/sign-in")!)
                signIn.httpMethod = "POST"
                signIn.setValue("storyreader_sign_in=\(formCookie)", forHTTPHeaderField: "Cookie")
                signIn.httpBody = Data("csrf=\(csrf)&name=\(librarian)&passphrase=\(passphrase)".utf8)
                let (_, signedIn) = try await session.data(for: signIn)
                guard let cookie = Self.cookie(signedIn, "storyreader_session") else { throw StoreCommandSupport.fail("the benchmark could not sign in") }
                var lines = ["\(heading); a site of \(children) children, \(reads) reads each; \(requests) pages of each kind, one after another"]
                for (label, path) in [("the children page", "/"), ("a child's page", "/children/\(ids[ids.count / 2].uuidString)")] {
                    var request = URLRequest(url: URL(string: base + path)!)
                    request.setValue("storyreader_session=\(cookie)", forHTTPHeaderField: "Cookie")
                    var samples: [Double] = []
                    var bytes = 0
                    for _ in 0..<requests {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let (data, response) = try await session.data(for: request)
                        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw StoreCommandSupport.fail("\(label) answered \(response)") }
                        bytes = data.count
                    }
                    samples.sort()
                    lines.append(
                        String(
                            format: "  %@: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d bytes)", label, Percentile.ofSorted(samples, 0.5),
                            Percentile.ofSorted(samples, 0.99),
                            samples.last ?? 0, bytes))
                }
                return lines
            }
            for line in figures { print(line) }
        #endif
    }

    static func cookie(_ response: URLResponse, _ name: String) -> String? {
        guard let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") else { return nil }
        for part in header.components(separatedBy: ", ") where part.hasPrefix(name + "=") {
            return String(part.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }

    /// Keeps the sign-in's answer (and its cookie) instead of following it.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) { completionHandler(nil) }
    }
}
