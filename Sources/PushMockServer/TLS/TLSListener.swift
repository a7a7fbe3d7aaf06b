internal import CLibevent
import Glibc
import PushMockCore

/// The TLS port: accepts connections, caps how many are open (`--max-connections`), and
/// gives each a `TLSConnection`. HTTP/2 is served here; HTTP/1.1 is relayed to `http1`, the
/// secure HTTP/1.1 front door, which shares the gateway and its route table.
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

    init(
        base: EventBase, gateway: Gateway, polls: LongPolls, streams: EventStreams, context: TLSContext,
        configuration: Configuration
    ) throws(ServerError) {
        self.base = base
        self.gateway = gateway
        self.polls = polls
        self.streams = streams
        self.context = context
        self.configuration = configuration
        http1 = try HTTPFrontDoor(
            base: base, gateway: gateway, polls: polls, streams: streams, configuration: configuration,
            secure: true)
        http1Address = try http1.bindInternal()
    }

    deinit { close() }

    /// Frees the listener and every connection (without answering them).
    func close() {
        connections.removeAll()
        if let listener { evconnlistener_free(listener) }
        listener = nil
        http1.close()
    }

    var openConnections: Int { connections.count }

    /// Binds and returns the port actually bound (for `--tls-port 0`).
    func bind(host: String, port: Int) throws(ServerError) -> Int {
        let l = try SocketPort.listen(
            base: base, host: host, port: port, callback: tlsAccepted,
            argument: Unmanaged.passUnretained(self).toOpaque())
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
        guard
            let connection = try? TLSConnection(
                listener: self, fd: fd, base: base, context: context,
                handshakeSeconds: Double(configuration.timeoutSeconds))
        else {
            Glibc.close(fd)
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        if connections.count >= configuration.maxConnections, let listener { evconnlistener_disable(listener) }
    }

    func closed(_ connection: TLSConnection) {
        connections[ObjectIdentifier(connection)] = nil
        if !shuttingDown, connections.count < configuration.maxConnections, let listener { evconnlistener_enable(listener) }
    }

    func makeSession(connection: TLSConnection, context: ConnectionContext) throws(ServerError) -> HTTP2Session {
        try HTTP2Session(
            connection: connection, gateway: gateway, polls: polls, streams: streams, context: context,
            maxBodyBytes: configuration.maxBodyBytes)
    }

    func makeBridge(connection: TLSConnection) throws(ServerError) -> HTTP1Bridge {
        try HTTP1Bridge(connection: connection, base: base, address: http1Address)
    }
}

private func tlsAccepted(
    _ listener: OpaquePointer?, _ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>?, _ len: Int32,
    _ arg: UnsafeMutableRawPointer?
) {
    guard let arg else {
        close(fd)
        return
    }
    Unmanaged<TLSListener>.fromOpaque(arg).takeUnretainedValue().accepted(fd)
}
