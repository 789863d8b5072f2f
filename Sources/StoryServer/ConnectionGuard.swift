#if Server
    import Foundation
    import Hummingbird
    import Logging
    import NIOCore
    import NIOHTTPTypes
    import StoryKit
    import Synchronization

    /// The connections that have not yet shown a kiosk token the server took (issue 43, item 4).
    ///
    /// Without it, sockets that send nothing filled the server's whole connection cap and its
    /// kiosks and health checks waited 75 s. Such connections now share a smaller budget: when one
    /// more arrives past it, the oldest of them that is between requests is closed (else the oldest
    /// of them), so a new one (a kiosk's first request, a health check) always gets in, and an
    /// attacker must open connections faster than a kiosk sends its request to keep one out. A
    /// connection leaves the budget once a request with a token gets a 2xx answer from a site's route.
    final class ConnectionBudget: Sendable {
        struct Entry {
            var channel: any Channel
            var busy: Bool
        }

        struct State {
            var next: UInt64 = 0
            var unproven: [UInt64: Entry] = [:]
            var closed = 0
        }

        let limit: Int
        let logger: Logger
        private let state = Mutex(State())

        init(limit: Int, logger: Logger) {
            self.limit = limit
            self.logger = logger
        }

        /// Counts a new connection (without a token yet); closes the one that makes room, if any.
        func opened(_ channel: any Channel) -> UInt64 {
            let (id, victim, closed) = state.withLock { state -> (UInt64, (any Channel)?, Int) in
                state.next += 1
                state.unproven[state.next] = Entry(channel: channel, busy: false)
                guard state.unproven.count > limit else { return (state.next, nil, 0) }
                let idle = state.unproven.filter { !$0.value.busy }.keys.min()
                guard let oldest = idle ?? state.unproven.keys.min(), let entry = state.unproven.removeValue(forKey: oldest) else {
                    return (state.next, nil, 0)
                }
                state.closed += 1
                return (state.next, entry.channel, state.closed)
            }
            if let victim {
                victim.close(promise: nil)
                // Said once, then every 1,000th: a flood must not flood the log too.
                if closed % 1000 == 1 {
                    logger.warning(
                        "\(closed) connections without a kiosk token closed to keep room for kiosks (at most \(limit) at once): many connections that send nothing"
                    )
                }
            }
            return id
        }

        func busy(_ id: UInt64, _ busy: Bool) {
            state.withLock { state in state.unproven[id]?.busy = busy }
        }

        /// The connection showed a token the server took: it no longer counts against the budget.
        func proven(_ id: UInt64) {
            _ = state.withLock { state in state.unproven.removeValue(forKey: id) }
        }

        func closed(_ id: UInt64) { proven(id) }

        /// How many connections without a token are open.
        var unprovenCount: Int { state.withLock { $0.unproven.count } }
    }

    /// Each connection's guard: closes a connection without a kiosk token that has not sent a
    /// complete request within `requestTimeout` of opening (or of its last answer), keeps it in the
    /// ``ConnectionBudget``, and logs and slows wrong-token guesses per address (``WrongTokenGuesses``).
    final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        /// What the answer to a request in flight is checked against.
        struct Asked {
            var token: Bool
            var site: String?
        }

        let budget: ConnectionBudget
        let guesses: WrongTokenGuesses
        let requestTimeout: TimeAmount
        private var id: UInt64?
        private var proven = false
        private var refused = false
        private var asked: [Asked] = []
        private var timer: Scheduled<Void>?

        init(budget: ConnectionBudget, guesses: WrongTokenGuesses, requestTimeout: TimeAmount) {
            self.budget = budget
            self.guesses = guesses
            self.requestTimeout = requestTimeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            id = budget.opened(context.channel)
            arm(context)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            timer?.cancel()
            timer = nil
            if let id { budget.closed(id) }
        }

        private func arm(_ context: ChannelHandlerContext) {
            timer?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: requestTimeout) { bound.value.close(promise: nil) }
        }

        /// The site a path names (`/v1/sites/NAME/…`), or nil.
        static func site(_ path: String) -> String? {
            let parts = path.split(separator: "?", maxSplits: 1).first?.split(separator: "/") ?? []
            guard parts.count >= 3, parts[0] == "v1", parts[1] == "sites" else { return nil }
            return String(parts[2])
        }

        /// The address guesses are counted by: an IPv4 address, or an IPv6 address's /64 network
        /// (one machine is given a whole /64).
        static func guesser(_ address: SocketAddress?) -> String {
            switch address {
            case .v6(let v6):
                var raw = v6.address.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0.prefix(8)) }
                return stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", bytes[$0], bytes[$0 + 1]) }.joined(separator: ":") + "::/64"
            default:
                return address?.ipAddress ?? "unknown"
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if refused { return }
            guard case .head(let request) = unwrapInboundIn(data) else {
                context.fireChannelRead(data)
                return
            }
            timer?.cancel()
            timer = nil
            if let id, !proven { budget.busy(id, true) }
            let token = request.headerFields[.authorization]?.hasPrefix("Bearer ") == true
            if token, let wait = guesses.retryAfter(Self.guesser(context.channel.remoteAddress), now: Self.now()) {
                refuse(context, wait: wait)
                return
            }
            asked.append(Asked(token: token, site: Self.site(request.path ?? "")))
            context.fireChannelRead(data)
        }

        /// 429 without checking the token, then the connection is closed (an answer of its own
        /// cannot be put in order with requests already in flight on it).
        private func refuse(_ context: ChannelHandlerContext, wait: Int) {
            refused = true
            guard asked.isEmpty else {
                context.close(promise: nil)
                return
            }
            let body = ByteBuffer(
                string: #"{"error":"too many wrong kiosk tokens from this address: try again in \#(wait) s, with the token from storyreader site add"}"#)
            var fields = HTTPFields()
            fields[.retryAfter] = String(wait)
            fields[.contentType] = "application/json"
            fields[.contentLength] = String(body.readableBytes)
            fields[.connection] = "close"
            context.write(wrapOutboundOut(.head(HTTPResponse(status: .tooManyRequests, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(let response) where !asked.isEmpty && response.status.kind != .informational:
                let request = asked.removeFirst()
                if request.token, let site = request.site {
                    if response.status == .unauthorized {
                        let address = Self.guesser(context.channel.remoteAddress)
                        let count = guesses.failed(address, now: Self.now())
                        // The token itself is never logged: it may be a real one mistyped.
                        budget.logger.warning(
                            "wrong kiosk token from \(address) for site \(Sanitizer.quote(site)) (\(count) in \(Int(guesses.windowSeconds)) s\(count >= guesses.limit ? "; its tokens are refused until then" : ""))"
                        )
                    } else if response.status.kind == .successful, !proven, let id {
                        proven = true
                        budget.proven(id)
                    }
                }
            case .end:
                if asked.isEmpty, !proven {
                    if let id { budget.busy(id, false) }
                    arm(context)
                }
            default:
                break
            }
            context.write(data, promise: promise)
        }

        static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    }
#endif
