import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on a free loopback port for the tests' own scripted servers: once `acceptEach`
/// is called, each connection is handed to `serve` on a thread of its own until `close`.
public enum LoopbackListener {
    /// Opens the listener; returns its descriptor and port.
    public static func open(backlog: Int32 = 64) throws -> (descriptor: Int32, port: UInt16) {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, backlog) == 0 else {
            close(socketFD)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        return (socketFD, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on `descriptor` until it is closed, each served on its own thread.
    public static func acceptEach(on descriptor: Int32, serve: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            while true {
                let client = accept(descriptor, nil, nil)
                if client < 0 { return }
                Thread.detachNewThread { serve(client) }
            }
        }
    }

    /// Stops accepting.
    public static func close(_ descriptor: Int32) {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}
