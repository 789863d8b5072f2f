import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server of the site a kiosk joined, asked at once (not through the outbox) before a change
/// every kiosk of the site must agree on: creating, renaming or removing a profile (two offline
/// kiosks must not both create "Mia"), and setting, changing or clearing the site's parental PIN.
///
/// Synchronous, with a short deadline: the store calls it from a command or from the shell's
/// effect runner, never from the Session, which stays pure.
public protocol SiteAuthority: Sendable {
    /// Stores `changes` on the site's server, or says why not.
    func agree(_ changes: [SyncChange]) throws(SiteRefusal)
}

/// Why the site's server did not take a change.
public enum SiteRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer (network, server or database down, deadline passed): nothing changed anywhere.
    case unreachable(String)
    /// The site said no (a name taken on another kiosk, a profile removed elsewhere, a revoked token).
    case refused(String)

    public var description: String {
        switch self {
        case .unreachable(let why), .refused(let why): why
        }
    }
}

extension SyncAPI {
    public static func profilesPath(site: String) -> String { "/v1/sites/\(site)/profiles" }
    public static func pinPath(site: String) -> String { "/v1/sites/\(site)/pin" }
}

extension SyncClient: SiteAuthority {
    /// How long a grown-up waits for the server before being told it cannot be reached.
    public static let agreementDeadline = 4.0

    /// Sends the changes to `POST /v1/sites/{site}/profiles` (or `/pin`) and waits for the answer.
    ///
    /// Synchronous, not `async`: the caller is synchronous code (a command, the shell running a
    /// save), and blocking it must not wait on the Swift concurrency pool.
    public func agree(_ changes: [SyncChange]) throws(SiteRefusal) {
        let path = changes.allSatisfy(\.isPIN) ? SyncAPI.pinPath(site: settings.site) : SyncAPI.profilesPath(site: settings.site)
        guard let url = URL(string: settings.url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw .refused(SyncFailure.badURL(settings.url).description)
        }
        let deadline = min(callDeadline, Self.agreementDeadline)
        let body: Data
        do {
            body = try JSONEncoder.sync.encode(UploadRequest(changes: changes, kioskMillis: HybridLogicalClock.millis(clock.now())))
        } catch {
            throw .refused("the change could not be encoded: \(error)")
        }
        let (data, status, error) = try Self.post(url, token: settings.token, body: body, deadline: deadline)
        if let error { throw .unreachable(SyncFailure.unreachable(error.localizedDescription).description) }
        guard let status else { throw .unreachable("the server gave no answer") }
        if status == 200 { return }
        // A batch refused as invalid names each change and why; the first reason says enough.
        let message =
            (try? JSONDecoder().decode(RefusalResponse.self, from: data ?? Data())).flatMap { $0.refused.first?.reason }
            ?? (try? JSONDecoder().decode([String: String].self, from: data ?? Data()))?["error"]
            ?? String(decoding: (data ?? Data()).prefix(200), as: UTF8.self)
        // 5xx: the server is there but its database is not; 4xx: the site said no.
        if status >= 500 { throw .unreachable("the server could not reach its database (\(status))") }
        throw .refused(message)
    }
}

extension SyncClient {
    /// One POST on this thread, ended by `deadline`: by ``PlainHTTP`` on this thread for an
    /// `http://` site, by URLSession for an `https://` one.
    static func post(_ url: URL, token: String, body: Data, deadline: Double) throws(SiteRefusal) -> (Data?, Int?, (any Error)?) {
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        if url.scheme?.lowercased() == "http" {
            do {
                let answer = try PlainHTTP.Exchange(deadline: deadline).run("POST", url, headers: headers, body: body, connections: .shared)
                return (answer.body, answer.status, nil)
            } catch {
                throw .unreachable((error as? SyncFailure ?? .unreachable(String(describing: error))).description)
            }
        }
        var request = URLRequest(url: url, timeoutInterval: deadline)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let answer = AnswerBox()
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            answer.finish(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
        }
        task.resume()
        // The request's own timeout covers a silent server; this one covers everything else.
        guard answer.wait(seconds: deadline + 1) else {
            task.cancel()
            throw .unreachable(SyncFailure.timedOut(seconds: deadline).description)
        }
        return answer.result
    }
}

/// One HTTP answer, handed from URLSession's queue to the waiting caller.
final class AnswerBox: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let stored = Mutex<(Data?, Int?, (any Error)?)>((nil, nil, nil))

    func finish(data: Data?, status: Int?, error: (any Error)?) {
        stored.withLock { $0 = (data, status, error) }
        done.signal()
    }

    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var result: (Data?, Int?, (any Error)?) { stored.withLock { $0 } }
}
