import Foundation
import StoryKit
import StoryReader

/// Many kiosks of one site, each doing what a kiosk's background sync does after a finished read:
/// upload the read (and the position it forgets) with the first page of its pull in one exchange,
/// then pull until it has every change of the site. Each kiosk is a thread with its own kept-alive
/// connection and cursor, and syncs on a schedule of its own (`every` seconds, the kiosks spread
/// evenly over it): the load is the site's, not as fast as the load generator can go, so the figure
/// is the round a kiosk waits for when hundreds share the server.
///
/// A round is timed from when it was due, not from when its thread got to it: a server that falls
/// behind makes rounds late, and that lateness is the kiosks' wait too.
struct SiteLoad {
    struct Figures {
        /// Milliseconds of each round, from when it was due to its last page.
        var rounds: [Double]
        var failures: Int
        var reads: Int
        /// Changes the kiosks pulled in the timed rounds, all kiosks together.
        var pulled: Int
        var seconds: Double
        /// Kiosks that had not every change of the site once all of them had caught up.
        var incomplete: Int
        /// Changes the server stored (every kiosk must have pulled all of them).
        var stored: Int
        /// Connections made again after the server closed an idle one.
        var reconnections: Int

        func lines(kiosks: Int, every: Double) -> [String] {
            [
                String(
                    format: "  %d kiosks, a round each every %.1f s (%.0f rounds/s, %.0f reads/s): round p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d failed",
                    kiosks, every, Double(rounds.count) / seconds, Double(reads) / seconds, Percentile.median(rounds), Percentile.of(rounds, 0.99),
                    rounds.max() ?? 0, failures),
                String(
                    format:
                        "    pulled %.0f changes/s in all (%.0f a round), %d connections made again; every kiosk then caught up: %d of %d have all %d changes",
                    Double(pulled) / seconds, Double(pulled) / Double(max(rounds.count, 1)), reconnections, kiosks - incomplete, kiosks, stored),
            ]
        }
    }

    /// One simulated kiosk: its connection, its cursor and what it pulled. Used by its own thread,
    /// then read once all threads are done.
    final class Kiosk: @unchecked Sendable {
        let port: UInt16
        /// Kept alive between rounds; made again when the server closed it (idle for 30 s, as a
        /// kiosk syncing once a minute is).
        var connection: HTTPConnection?
        var cursor: Int64 = 0
        var pulled = 0
        var stored = 0
        var rounds: [Double] = []
        var failures = 0
        var reads = 0
        var reconnections = 0
        init(port: UInt16) throws {
            self.port = port
            connection = try HTTPConnection(port: port)
        }

        /// `request`'s answer, on a new connection if the kept one was closed.
        func answer(_ request: Data) -> (status: Int?, body: [UInt8])? {
            if let answer = connection?.answer(request) { return answer }
            reconnections += 1
            connection = try? HTTPConnection(port: port)
            return connection?.answer(request)
        }
    }

    var address: String
    var site: (name: String, token: String)
    var kiosks: Int
    var every: Double
    var seconds: Double
    var pageSize = 500

    func run() throws -> Figures {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw StoreCommandSupport.fail("bad server address \(address)") }
        let all = try (0..<kiosks).map { _ in try Kiosk(port: port) }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        // Timed rounds, then (every upload in) each kiosk pulls the rest, untimed: it must then hold
        // every change of the site.
        let uploading = DispatchGroup()
        let group = DispatchGroup()
        let incomplete = LockedValue(0)
        let stored = LockedValue(0)
        for (index, kiosk) in all.enumerated() {
            group.enter()
            uploading.enter()
            let thread = Thread {
                defer { group.leave() }
                // The children who use this kiosk.
                let children = (0..<4).map { _ in UUID() }
                var due = start + UInt64(every * 1e9 * Double(index) / Double(kiosks))
                var round = 0
                while due < deadline {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if due > now { usleep(UInt32((due - now) / 1000)) }
                    let read = self.upload(kiosk: index, child: children[round % children.count], story: "story-\(round % 40)", round: round)
                    if self.sync(kiosk, upload: read) {
                        kiosk.rounds.append(Double(DispatchTime.now().uptimeNanoseconds - due) / 1e6)
                        kiosk.reads += 1
                    } else {
                        kiosk.failures += 1
                    }
                    round += 1
                    due += UInt64(every * 1e9)
                }
                let pulled = kiosk.pulled
                stored.withLock { $0 += kiosk.stored }
                uploading.leave()
                uploading.wait()
                let all = stored.withLock { $0 }
                if !self.sync(kiosk, upload: nil) || kiosk.pulled != all { incomplete.withLock { $0 += 1 } }
                kiosk.pulled = pulled
            }
            // Threads mostly asleep or waiting on a socket: a small stack lets a thousand of them start.
            thread.stackSize = 256 * 1024
            thread.start()
        }
        uploading.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        group.wait()
        return Figures(
            rounds: all.flatMap(\.rounds), failures: all.reduce(0) { $0 + $1.failures }, reads: all.reduce(0) { $0 + $1.reads },
            pulled: all.reduce(0) { $0 + $1.pulled }, seconds: elapsed, incomplete: incomplete.withLock { $0 }, stored: stored.withLock { $0 },
            reconnections: all.reduce(0) { $0 + $1.reconnections })
    }

    /// A finished read and its position forgotten, as `recordFinishedRead` queues them.
    func upload(kiosk: Int, child: UUID, story: String, round: Int) -> Data {
        let now = HybridLogicalClock.millis(Date())
        let hlc = { (counter: Int) in HLCTimestamp(millis: now, counter: counter, node: "site-kiosk-\(kiosk)") }
        let changes = [
            SyncChange(hlc: hlc(0), body: .read(profile: child, story: story, finishedAt: Date(timeIntervalSince1970: Double(now / 1000)))),
            SyncChange(hlc: hlc(1), body: .position(profile: child, story: story, sentence: nil)),
        ]
        return (try? JSONEncoder.sync.encode(UploadRequest(changes: changes, kioskMillis: now))) ?? Data()
    }

    /// One round: the upload (if any) asking for the first page, then pages until the last.
    func sync(_ kiosk: Kiosk, upload body: Data?) -> Bool {
        let path = SyncAPI.changesPath(site: site.name) + "?after=\(kiosk.cursor)&limit=\(pageSize)"
        var head = "\(body == nil ? "GET" : "POST") \(path) HTTP/1.1\r\nHost: \(address)\r\nAuthorization: Bearer \(site.token)\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        guard let answer = kiosk.answer(Data((head + "\r\n").utf8) + (body ?? Data())), answer.status == 200 else { return false }
        var page = answer.body
        if body != nil {
            guard let stored = JSONBytes.lastInteger(named: "stored", in: page) else { return false }
            kiosk.stored += Int(stored)
        }
        while true {
            // The page is the answer's last object, so its cursor and `more` are the last of their names.
            guard let cursor = JSONBytes.lastInteger(named: "cursor", in: page) else { return false }
            kiosk.pulled += JSONBytes.count(of: #""hlc":"#, in: page)
            kiosk.cursor = cursor
            guard JSONBytes.lastTrue(named: "more", in: page) else { return true }
            let next =
                "GET \(SyncAPI.changesPath(site: site.name))?after=\(cursor)&limit=\(pageSize) HTTP/1.1\r\nHost: \(address)\r\nAuthorization: Bearer \(site.token)\r\n\r\n"
            guard let more = kiosk.answer(Data(next.utf8)), more.status == 200 else { return false }
            page = more.body
        }
    }
}

/// What the load generator reads of an answer, found in its bytes: it must stay light beside the
/// server it measures, so it never decodes a page.
enum JSONBytes {
    static func lastIndex(of name: String, in bytes: [UInt8]) -> Int? {
        let key = Array("\"\(name)\":".utf8)
        guard bytes.count >= key.count else { return nil }
        var start = bytes.count - key.count
        while start >= 0 {
            if bytes[start] == key[0], bytes[start..<(start + key.count)].elementsEqual(key) { return start + key.count }
            start -= 1
        }
        return nil
    }

    static func lastInteger(named name: String, in bytes: [UInt8]) -> Int64? {
        guard var index = lastIndex(of: name, in: bytes) else { return nil }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    static func lastTrue(named name: String, in bytes: [UInt8]) -> Bool {
        guard let index = lastIndex(of: name, in: bytes) else { return false }
        return bytes[index...].starts(with: "true".utf8)
    }

    static func count(of text: String, in bytes: [UInt8]) -> Int {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return 0 }
        var found = 0
        var start = 0
        while start <= bytes.count - needle.count {
            if bytes[start] == needle[0], bytes[start..<(start + needle.count)].elementsEqual(needle) {
                found += 1
                start += needle.count
            } else {
                start += 1
            }
        }
        return found
    }
}
