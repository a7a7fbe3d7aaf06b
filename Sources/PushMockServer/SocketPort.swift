internal import CLibevent
import Glibc

/// Listening TCP sockets.
enum SocketPort {
    /// A listener on `host:port` (a name or address; port 0 picks one) calling `callback`
    /// with each accepted socket.
    static func listen(
        base: EventBase, host: String, port: Int, callback: evconnlistener_cb,
        argument: UnsafeMutableRawPointer
    ) throws(ServerError) -> OpaquePointer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw ServerError(.socket, "cannot resolve \(host)")
        }
        defer { freeaddrinfo(info) }
        let flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC
        guard
            let l = evconnlistener_new_bind(
                base.pointer, callback, argument, UInt32(flags), 1024,
                info.pointee.ai_addr, Int32(info.pointee.ai_addrlen))
        else {
            throw ServerError(.socket, "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        return l
    }

    /// Sends small writes at once (no Nagle delay): answers are written whole.
    static func noDelay(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The port a listening socket is bound to.
    static func bound(_ fd: Int32) throws(ServerError) -> Int {
        var addr = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { throw ServerError(.socket, "getsockname failed") }
        let raw =
            addr.ss_family == sa_family_t(AF_INET6)
            ? withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port } }
            : withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port } }
        return Int(UInt16(bigEndian: raw))
    }
}
