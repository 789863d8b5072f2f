import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The kiosk's HTTP/1.1 client for a site's `http://` address (the server on this machine, or on a
/// trusted network with `--insecure`): one POSIX socket per exchange, kept alive for the next.
///
/// URLSession on Linux is libcurl behind FoundationNetworking: a multi handle, its own threads and
/// a fresh connection set-up for every request. With many kiosks syncing at once on a small machine
/// that was most of the work (`bench sync`: 86 % of the samples in those threads, for requests of a
/// few kilobytes). `https://` addresses keep URLSession (TLS is its part).
///
/// Everything a hostile or broken server can do ends by the deadline or with an error: the
/// deadline holds for the whole exchange (connecting, sending, every byte of the answer), the
/// answer's head and body are bounded, and a connection is only used again when its answer ended
/// exactly where its framing said.
enum PlainHTTP {
    struct Answer: Sendable {
        var status: Int
        var body: Data
    }

    /// The largest answer body taken (a pull page of 5,000 changes is a few megabytes).
    static let maximumBodyBytes = 64 * 1024 * 1024
    /// The largest status line and headers taken.
    static let maximumHeadBytes = 64 * 1024

    static let closedEarly = N_("the server closed the connection before its answer was complete")
    static let notHTTP = N_("the server's answer is not HTTP/1.1")

    /// One exchange, run on a thread of its own (its socket calls block; the Swift concurrency pool
    /// must not), ended by `deadline` seconds whatever the server does, and by the task's
    /// cancellation.
    static func exchange(
        _ method: String, _ url: URL, headers: [(String, String)], body: Data?, deadline: Double,
        connections: IdleConnections = .shared
    ) async throws -> Answer {
        let exchange = Exchange(deadline: deadline)
        let once = OneAnswer<Answer>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
                once.start(continuation) { exchange.cancel() }
                Thread.detachNewThread {
                    once.finish(Result { try exchange.run(method, url, headers: headers, body: body, connections: connections) })
                }
                // The socket's own waits end by the deadline; this covers what they do not (a
                // name lookup that hangs).
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline + 0.25) {
                    once.finish(.failure(SyncFailure.timedOut(seconds: deadline)))
                }
            }
        } onCancel: {
            once.finish(.failure(CancellationError()))
        }
    }

    /// Where an `http://` URL points, and the request target sent for it.
    struct Target: Hashable {
        var host: String
        var port: UInt16
        var requestTarget: String
        var key: String { "\(host):\(port)" }

        init(_ url: URL) throws(SyncFailure) {
            guard url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty,
                let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { throw .badURL(url.absoluteString) }
            let port = url.port ?? 80
            guard let port = UInt16(exactly: port), port > 0 else { throw .badURL(url.absoluteString) }
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = port
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }

        /// The Host header: the name as written, the port when not 80.
        var hostHeader: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == 80 ? name : "\(name):\(port)"
        }
    }

    /// One exchange's socket, which a cancellation (or the outer deadline) shuts down to wake its waits.
    final class Exchange: Sendable {
        private struct State {
            var socket: Int32?
            var cancelled = false
        }
        private let state = Mutex(State())
        let seconds: Double
        let ends: UInt64

        init(deadline: Double) {
            seconds = deadline
            ends = monotonicNanoseconds() &+ UInt64(max(0, deadline) * 1e9)
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                if let socket = state.socket { shutdown(socket, Int32(SHUT_RDWR)) }
            }
        }

        /// Milliseconds left before the deadline; throws once it has passed.
        func remainingMillis() throws(SyncFailure) -> Int32 {
            let now = monotonicNanoseconds()
            guard now < ends else { throw .timedOut(seconds: seconds) }
            return Int32(clamping: (ends - now + 999_999) / 1_000_000)
        }

        /// Makes `socket` the one a cancellation shuts down; false when cancelled already.
        private func adopt(_ socket: Int32?) -> Bool {
            state.withLock { state in
                state.socket = socket
                return !state.cancelled
            }
        }

        func run(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, connections: IdleConnections) throws -> Answer {
            let target = try Target(url)
            var head = "\(method) \(target.requestTarget) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nAccept: application/json\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let body { head += "Content-Length: \(body.count)\r\n" }
            var request = Array((head + "\r\n").utf8)
            if let body { request.append(contentsOf: body) }
            // A kept-alive connection the server closed meanwhile fails before any answer: the
            // request goes again once on a new one (every request of the API may be repeated:
            // an upload is stored once by its changes' ids).
            while true {
                let reused = connections.take(target.key)
                let socket = try reused ?? Self.connect(target, exchange: self)
                guard adopt(socket) else {
                    close(socket)
                    throw CancellationError()
                }
                var connection = Connection(socket: socket, exchange: self)
                do throws(SyncFailure) {
                    // A server may answer before it read the whole request (413) and close: its
                    // answer is read even when sending failed.
                    var sendFailure: SyncFailure?
                    do { try connection.send(request) } catch { sendFailure = error }
                    let answer: Received
                    do { answer = try connection.receive(isHead: method == "HEAD") } catch { throw sendFailure ?? error }
                    _ = adopt(nil)
                    if answer.reusable && sendFailure == nil { connections.put(socket, target.key) } else { close(socket) }
                    return Answer(status: answer.status, body: answer.body)
                } catch {
                    _ = adopt(nil)
                    close(socket)
                    if state.withLock({ $0.cancelled }) { throw CancellationError() }
                    if reused != nil, !connection.receivedAny, case .unreachable = error { continue }
                    throw error
                }
            }
        }

        /// A new connection to `target`, made by the deadline (each address the name has, in turn).
        static func connect(_ target: Target, exchange: Exchange) throws -> Int32 {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_NUMERICSERV
            var found: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(target.host, String(target.port), &hints, &found)
            guard status == 0, let first = found else {
                throw SyncFailure.unreachable("\(target.host): \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(first) }
            var why = ECONNREFUSED
            var address: UnsafeMutablePointer<addrinfo>? = first
            while let candidate = address {
                address = candidate.pointee.ai_next
                let socket = Glibc.socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
                guard socket >= 0 else {
                    why = errno
                    continue
                }
                guard exchange.adopt(socket) else {
                    close(socket)
                    throw CancellationError()
                }
                if Glibc.connect(socket, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 || errno == EINPROGRESS,
                    (try? Connection.wait(socket, for: Int16(POLLOUT), exchange: exchange)) != nil
                {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 {
                        var one: Int32 = 1
                        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                        return socket
                    }
                    why = error
                } else {
                    why = errno
                }
                _ = exchange.adopt(nil)
                close(socket)
                // The deadline passed while connecting: say so, not "refused".
                _ = try exchange.remainingMillis()
            }
            throw SyncFailure.unreachable(String(cString: strerror(why)))
        }
    }

    /// An answer as read, and whether its connection can carry the next request.
    struct Received {
        var status: Int
        var body: Data
        var reusable: Bool
    }

    /// Reading and writing one socket by the exchange's deadline.
    struct Connection {
        let socket: Int32
        let exchange: Exchange
        private var buffer: [UInt8] = []
        private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        /// Whether any byte of an answer arrived (a connection that failed before cannot have
        /// been answered, so its request may go again).
        private(set) var receivedAny = false

        init(socket: Int32, exchange: Exchange) {
            self.socket = socket
            self.exchange = exchange
        }

        /// Waits until `socket` is ready for `events`, by the deadline.
        static func wait(_ socket: Int32, for events: Int16, exchange: Exchange) throws(SyncFailure) {
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            while true {
                let ready = poll(&descriptor, 1, try exchange.remainingMillis())
                if ready > 0 { return }
                if ready < 0, errno != EINTR { throw .unreachable(String(cString: strerror(errno))) }
            }
        }

        func send(_ bytes: [UInt8]) throws(SyncFailure) {
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes { raw in Glibc.send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    offset += count
                } else if count < 0, errno == EAGAIN || errno == EINTR {
                    try Self.wait(socket, for: Int16(POLLOUT), exchange: exchange)
                } else {
                    throw .unreachable(String(cString: strerror(count < 0 ? errno : EPIPE)))
                }
            }
        }

        /// Reads more of the answer; false at the end of the stream.
        private mutating func fill() throws(SyncFailure) -> Bool {
            while true {
                let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    receivedAny = true
                    buffer.append(contentsOf: scratch[..<count])
                    return true
                }
                if count == 0 { return false }
                guard errno == EAGAIN || errno == EINTR else {
                    // A reset before the answer began is the server gone; after, an answer cut short.
                    if receivedAny { throw .unreachable(PlainHTTP.closedEarly) }
                    throw .unreachable(String(cString: strerror(errno)))
                }
                try Self.wait(socket, for: Int16(POLLIN), exchange: exchange)
            }
        }

        /// Reads until `buffer` holds `count` bytes from `start`.
        private mutating func need(_ count: Int, from start: Int) throws(SyncFailure) {
            while buffer.count - start < count {
                guard try fill() else { throw .unreachable(PlainHTTP.closedEarly) }
            }
        }

        /// Reads through the next CRLF at or after `start` (at most `limit` bytes); the line's end.
        private mutating func line(from start: Int, limit: Int) throws(SyncFailure) -> Int {
            var searched = start
            while true {
                if let end = Self.find(13, 10, in: buffer, from: searched) { return end }
                searched = max(start, buffer.count - 1)
                guard buffer.count - start <= limit else { throw .unreachable(PlainHTTP.notHTTP) }
                guard try fill() else { throw .unreachable(PlainHTTP.closedEarly) }
            }
        }

        /// Where `first` followed by `second` begins in `bytes`, from `start`.
        static func find(_ first: UInt8, _ second: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
            var index = start
            while index + 1 < bytes.count {
                if bytes[index] == first && bytes[index + 1] == second { return index }
                index += 1
            }
            return nil
        }

        /// The answer's head: status, headers (names lowercased), and where its body begins.
        private mutating func head() throws(SyncFailure) -> (status: Int, version: String, headers: [(String, String)], bodyStart: Int) {
            var lines: [String] = []
            var start = 0
            while true {
                let end = try line(from: start, limit: PlainHTTP.maximumHeadBytes - start)
                if end == start { break }
                lines.append(String(decoding: buffer[start..<end], as: UTF8.self))
                start = end + 2
            }
            let bodyStart = start + 2
            guard let statusLine = lines.first else { throw .unreachable(PlainHTTP.notHTTP) }
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3, let status = Int(parts[1]), status >= 100
            else { throw .unreachable(PlainHTTP.notHTTP) }
            var headers: [(String, String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { throw .unreachable(PlainHTTP.notHTTP) }
                headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            return (status, String(parts[0]), headers, bodyStart)
        }

        /// Reads one whole answer (skipping interim 1xx ones).
        mutating func receive(isHead: Bool) throws(SyncFailure) -> Received {
            while true {
                let (status, version, headers, bodyStart) = try head()
                let values = { (name: String) in headers.filter { $0.0 == name }.map(\.1) }
                let connection = values("connection").joined(separator: ",").lowercased()
                var reusable = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
                if (100..<200).contains(status) {
                    guard status != 101 else { throw .unreachable(PlainHTTP.notHTTP) }
                    buffer.removeFirst(bodyStart)
                    continue
                }
                let body: [UInt8]
                let end: Int
                if isHead || status == 204 || status == 304 {
                    (body, end) = ([], bodyStart)
                } else if values("transfer-encoding").joined(separator: ",").lowercased().contains("chunked") {
                    (body, end) = try chunked(from: bodyStart)
                } else if case let lengths = values("content-length"), !lengths.isEmpty {
                    guard Set(lengths).count == 1, let length = Int(lengths[0]), length >= 0 else { throw .unreachable(PlainHTTP.notHTTP) }
                    guard length <= PlainHTTP.maximumBodyBytes else { throw .answerTooLarge(limit: PlainHTTP.maximumBodyBytes) }
                    try need(length, from: bodyStart)
                    (body, end) = (Array(buffer[bodyStart..<(bodyStart + length)]), bodyStart + length)
                } else {
                    // No framing: the body runs to the end of the connection.
                    while try fill() {
                        if buffer.count - bodyStart > PlainHTTP.maximumBodyBytes { throw .answerTooLarge(limit: PlainHTTP.maximumBodyBytes) }
                    }
                    (body, end) = (Array(buffer[bodyStart...]), buffer.count)
                    reusable = false
                }
                // Bytes past the answer were never asked for: the connection is not trusted again.
                if end != buffer.count { reusable = false }
                return Received(status: status, body: Data(body), reusable: reusable)
            }
        }

        /// A chunked body from `start`: its bytes and where it ends (after the trailers).
        private mutating func chunked(from start: Int) throws(SyncFailure) -> ([UInt8], Int) {
            var body: [UInt8] = []
            var position = start
            while true {
                let end = try line(from: position, limit: 1024)
                let sizeText = String(decoding: buffer[position..<end], as: UTF8.self).split(separator: ";", maxSplits: 1).first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { throw .unreachable(PlainHTTP.notHTTP) }
                position = end + 2
                if size == 0 { break }
                guard size <= PlainHTTP.maximumBodyBytes - body.count else { throw .answerTooLarge(limit: PlainHTTP.maximumBodyBytes) }
                try need(size + 2, from: position)
                body.append(contentsOf: buffer[position..<(position + size)])
                guard buffer[position + size] == 13, buffer[position + size + 1] == 10 else { throw .unreachable(PlainHTTP.notHTTP) }
                position += size + 2
            }
            // Trailers, to the empty line.
            while true {
                let end = try line(from: position, limit: PlainHTTP.maximumHeadBytes)
                defer { position = end + 2 }
                if end == position { break }
            }
            return (body, position)
        }
    }
}

/// Connections whose answer ended cleanly, kept for the next request to the same server.
final class IdleConnections: Sendable {
    static let shared = IdleConnections()
    /// A kiosk syncs one round at a time; a few spare connections cover a status check beside it.
    static let mostPerServer = 4
    private let idle = Mutex<[String: [Int32]]>([:])

    /// A kept connection to `key` the server has not closed meanwhile, if there is one.
    func take(_ key: String) -> Int32? {
        while let socket = idle.withLock({ $0[key]?.popLast() }) {
            // Readable while idle means closed by the server (or sending what nobody asked for).
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) == 0 { return socket }
            close(socket)
        }
        return nil
    }

    func put(_ socket: Int32, _ key: String) {
        let kept = idle.withLock { idle in
            guard idle[key, default: []].count < Self.mostPerServer else { return false }
            idle[key, default: []].append(socket)
            return true
        }
        if !kept { close(socket) }
    }
}
