internal import CLibevent
import Glibc
import PushMockCore

/// The HTTP/1.1 listener: accepts connections (libevent's evconnlistener), reads requests
/// on each (`HTTP1Connection`), asks the gateway, writes the `Reply` back: exactly one reply
/// per request.
///
/// Bounds, in number: `--max-connections` (at the cap the listener pauses; a close resumes
/// it). In time: each connection gets `--timeout` seconds to deliver a whole request, counted
/// from its opening or from its previous answer (as Go's `ReadTimeout`), so a client that
/// trickles a byte a second (slowloris) cannot hold it; a request waiting for its answer (a
/// long-poll, a stream) has no deadline, but a client that leaves `--timeout` seconds of
/// output unread is cut off. A sweep each second closes the late ones.
final class HTTPFrontDoor {
    private let base: EventBase
    private let gateway: Gateway
    private let polls: LongPolls
    private let streams: EventStreams
    /// Whether requests arrive over TLS (through `TLSConnection`'s HTTP/1.1 bridge).
    private let secure: Bool
    private let cap: Int
    let timeoutNanos: UInt64
    /// How long a closing connection waits for its client to close first.
    let lingerNanos: UInt64 = 2_000_000_000
    /// How much a closing connection reads and drops before it closes regardless.
    let maxLingerBytes = 256 * 1024
    let maxBodyBytes: Int
    /// Loop thread only, like everything here.
    var parser = HTTP1HeadParser(maxHeadBytes: 64 * 1024)
    var encoder = HTTP1Encoder()
    private(set) var draining = false
    private var listener: OpaquePointer?
    private var tcp = true
    private var sweep: LoopEvent?
    private var connections: [ObjectIdentifier: HTTP1Connection] = [:]

    init(
        base: EventBase, gateway: Gateway, polls: LongPolls, streams: EventStreams, configuration: Configuration,
        secure: Bool = false
    ) throws(ServerError) {
        self.base = base
        self.gateway = gateway
        self.polls = polls
        self.streams = streams
        self.secure = secure
        cap = secure ? Int.max : configuration.maxConnections
        timeoutNanos = UInt64(configuration.timeoutSeconds) * 1_000_000_000
        maxBodyBytes = configuration.maxBodyBytes
        sweep = try LoopEvent(
            base: base, fd: -1, what: Int16(EV_PERSIST), callback: frontDoorSweep,
            argument: Unmanaged.passUnretained(self).toOpaque())
        sweep?.add(seconds: 1)
    }

    deinit { close() }

    /// Frees the listener and every connection (without answering them).
    func close() {
        for c in connections.values { c.release() }
        connections.removeAll()
        if let listener { evconnlistener_free(listener) }
        listener = nil
        sweep = nil
    }

    var openConnections: Int { connections.count }

    /// Binds and returns the port actually bound (for `--port 0`).
    func bind(host: String, port: Int) throws(ServerError) -> Int {
        let l = try SocketPort.listen(
            base: base, host: host, port: port, callback: frontDoorAccepted,
            argument: Unmanaged.passUnretained(self).toOpaque())
        listener = l
        return try SocketPort.bound(evconnlistener_get_fd(l))
    }

    /// Listens on a fresh abstract Unix socket that only `HTTP1Bridge` connects to, and
    /// returns its address (name bytes after the leading NUL).
    func bindInternal() throws(ServerError) -> [UInt8] {
        var random = [UInt8](repeating: 0, count: 8)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        let name = Array("pushmock-\(getpid())-".utf8) + random.map { UInt8(ascii: "a") + $0 % 26 }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket(AF_UNIX) failed") }
        var addr = HTTP1Bridge.address(name)
        let rc = withUnsafePointer(to: &addr.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, addr.length) }
        }
        guard rc == 0,
            let l = evconnlistener_new(
                base.pointer, frontDoorAccepted, Unmanaged.passUnretained(self).toOpaque(),
                UInt32(LEV_OPT_CLOSE_ON_FREE), 128, fd)
        else {
            Glibc.close(fd)
            throw ServerError("cannot listen on the internal socket: \(String(cString: strerror(errno)))")
        }
        listener = l
        tcp = false
        return name
    }

    /// Stops accepting new connections; idle ones close now, busy ones after their answer.
    func stopAccepting() {
        if let listener { evconnlistener_free(listener) }
        listener = nil
        draining = true
        for c in Array(connections.values) where c.isIdle { c.close() }
    }

    fileprivate func accepted(_ fd: Int32) {
        guard let bev = bufferevent_socket_new(base.pointer, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            Glibc.close(fd)
            return
        }
        if tcp { SocketPort.noDelay(fd) }
        let connection = HTTP1Connection(door: self, bev: bev, fd: fd, now: MonotonicClock.nanos())
        connections[ObjectIdentifier(connection)] = connection
        bufferevent_setcb(bev, http1Read, http1Write, http1Event, Unmanaged.passUnretained(connection).toOpaque())
        // Reading pauses while a waiting request's successors fill this much; the write
        // callback reports progress whenever less than an export step is left unread.
        bufferevent_setwatermark(bev, Int16(EV_READ), 0, parser.maxHeadBytes + maxBodyBytes + 64 * 1024)
        bufferevent_setwatermark(bev, Int16(EV_WRITE), EventStreams.exportLowWater, 0)
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        if connections.count >= cap, let listener { evconnlistener_disable(listener) }
    }

    func closed(_ connection: HTTP1Connection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        if connections.count < cap, let listener { evconnlistener_enable(listener) }
    }

    /// Closes the connections whose request is late or whose client stopped reading.
    fileprivate func closeLate() {
        let now = MonotonicClock.nanos()
        for c in Array(connections.values) {
            let late = c.deadline != 0 && c.deadline < now
            let stalled = c.pendingOutput > 0 && now - c.lastDrained > timeoutNanos
            if late || stalled { c.close() }
        }
    }

    /// Asks the gateway about one whole request.
    func handle(_ head: HTTP1Head, body: [UInt8]) -> Reply {
        var request = Request(method: head.method, target: head.target, headers: head.headers, body: body)
        request.secure = secure
        return gateway.handle(request)
    }

    /// Carries out a reply that is not an answer at once.
    func carry(_ reply: Reply, _ exchange: HTTP1Exchange) {
        PushMockServer.carry(reply, to: exchange, stream: exchange, polls: polls, streams: streams)
    }

    /// After each request handled: long-polls may now be satisfied.
    func noteChanges() { polls.noteChanges() }
}

private func frontDoor(_ arg: UnsafeMutableRawPointer?) -> HTTPFrontDoor? {
    arg.map { Unmanaged<HTTPFrontDoor>.fromOpaque($0).takeUnretainedValue() }
}

private func frontDoorAccepted(
    _ listener: OpaquePointer?, _ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>?,
    _ len: Int32, _ arg: UnsafeMutableRawPointer?
) {
    guard let door = frontDoor(arg) else {
        close(fd)
        return
    }
    door.accepted(fd)
}

private func frontDoorSweep(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) { frontDoor(arg)?.closeLate() }
