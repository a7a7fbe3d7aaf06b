internal import CLibevent
import Glibc
import PushMockCore

/// The TLS port: accepts connections, caps how many are open (`--max-connections`), and
/// gives each a `TLSConnection`. HTTP/2 is served here; HTTP/1.1 is relayed to `http1`, the
/// secure evhttp front door, which shares the gateway and its route table.
final class TLSListener {
    private let base: EventBase
    private let gateway: Gateway
    private let polls: LongPolls
    private let streams: EventStreams
    private let context: TLSContext
    private let configuration: Configuration
    private let http1: HTTPFrontDoor
    private let http1Address: [UInt8]
    /// Freed in deinit (closing the socket).
    private var listener: OpaquePointer?
    /// Every open connection; loop thread only. The table keeps each alive until it closes.
    private var connections: [ObjectIdentifier: TLSConnection] = [:]
    private(set) var shuttingDown = false

    init(base: EventBase, gateway: Gateway, polls: LongPolls, streams: EventStreams, context: TLSContext,
         configuration: Configuration) throws(ServerError) {
        self.base = base
        self.gateway = gateway
        self.polls = polls
        self.streams = streams
        self.context = context
        self.configuration = configuration
        http1 = try HTTPFrontDoor(base: base, gateway: gateway, polls: polls, streams: streams, configuration: configuration,
                                  secure: true)
        http1Address = try http1.bindInternal()
    }

    deinit {
        connections.removeAll()
        if let listener { evconnlistener_free(listener) }
    }

    var openConnections: Int { connections.count }

    /// Binds and returns the port actually bound (for `--tls-port 0`).
    func bind(host: String, port: Int) throws(ServerError) -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw ServerError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(info) }
        let flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC
        guard let l = evconnlistener_new_bind(base.pointer, tlsAccepted, Unmanaged.passUnretained(self).toOpaque(),
                                              UInt32(flags), 1024, info.pointee.ai_addr, Int32(info.pointee.ai_addrlen)) else {
            throw ServerError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        listener = l
        return try SocketPort.bound(evconnlistener_get_fd(l))
    }

    func stopAccepting() {
        shuttingDown = true
        if let listener { evconnlistener_disable(listener) }
        http1.stopAccepting()
    }

    /// Shutdown: GOAWAY on every HTTP/2 connection.
    func goAwayAll() {
        for connection in Array(connections.values) { connection.goAway() }
    }

    fileprivate func accepted(_ fd: Int32) {
        guard let connection = try? TLSConnection(listener: self, fd: fd, base: base, context: context,
                                                  handshakeSeconds: Double(configuration.timeoutSeconds)) else {
            close(fd)
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        if connections.count >= configuration.maxConnections, let listener { evconnlistener_disable(listener) }
    }

    func closed(_ connection: TLSConnection) {
        connections[ObjectIdentifier(connection)] = nil
        if !shuttingDown, connections.count < configuration.maxConnections, let listener { evconnlistener_enable(listener) }
    }

    func makeSession(bev: OpaquePointer, context: ConnectionContext) throws(ServerError) -> HTTP2Session {
        try HTTP2Session(bev: bev, gateway: gateway, polls: polls, streams: streams, context: context,
                         maxBodyBytes: configuration.maxBodyBytes)
    }

    func makeBridge(outer: OpaquePointer, connection: TLSConnection) throws(ServerError) -> HTTP1Bridge {
        try HTTP1Bridge(outer: outer, connection: connection, base: base, address: http1Address)
    }
}

private func tlsAccepted(_ listener: OpaquePointer?, _ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>?, _ len: Int32,
                         _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { close(fd); return }
    Unmanaged<TLSListener>.fromOpaque(arg).takeUnretainedValue().accepted(fd)
}

/// The port a listening socket is bound to.
enum SocketPort {
    static func bound(_ fd: Int32) throws(ServerError) -> Int {
        var addr = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { throw ServerError("getsockname failed") }
        let raw = addr.ss_family == sa_family_t(AF_INET6)
            ? withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port } }
            : withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port } }
        return Int(UInt16(bigEndian: raw))
    }
}
