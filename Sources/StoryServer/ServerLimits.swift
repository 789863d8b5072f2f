#if Server
    import Foundation
    import Hummingbird
    import NIOCore
    import NIOHTTPTypes

    /// Closes a connection whose request has not fully arrived `limit` after its headers: a body sent
    /// a byte at a time keeps Hummingbird's idle timer from firing (each byte is activity), and would
    /// otherwise hold a connection and a task for ever.
    final class RequestBodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart

        let limit: TimeAmount
        private var timer: Scheduled<Void>?

        init(limit: TimeAmount) { self.limit = limit }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head:
                timer?.cancel()
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                timer = context.eventLoop.scheduleTask(in: limit) { bound.value.close(promise: nil) }
            case .end:
                timer?.cancel()
                timer = nil
            case .body:
                break
            }
            context.fireChannelRead(data)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            timer?.cancel()
        }
    }

    /// How many connections the server takes at once.
    enum ConnectionLimit {
        /// File descriptors kept for the database client, the log and the process itself.
        static let reserved = 100
        static let most = 4096
        /// Seconds a connection without a kiosk token may take to send a complete request (after it
        /// opens, or after its last answer): a kiosk sends its request at once.
        static let requestTimeout = 5.0

        /// How many of `maximum` connections may be without a kiosk token at once (see
        /// ``ConnectionBudget``): a quarter, so three quarters stay for kiosks whatever others send.
        static func withoutToken(of maximum: Int) -> Int { max(8, maximum / 4) }

        /// Raises the open-file limit to its hard limit, and returns how many connections fit under
        /// it with ``reserved`` to spare (at most ``most``): past the limit `accept` fails, and no
        /// health check nor kiosk gets in until something closes.
        static func fromOpenFiles() -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
            if limit.rlim_cur < limit.rlim_max {
                var raised = limit
                raised.rlim_cur = limit.rlim_max
                if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
            }
            let available = limit.rlim_cur == rlim_t.max ? UInt64(most + reserved) : UInt64(limit.rlim_cur)
            return Int(max(16, min(UInt64(most), available > UInt64(reserved) ? available - UInt64(reserved) : 16)))
        }
    }
#endif
