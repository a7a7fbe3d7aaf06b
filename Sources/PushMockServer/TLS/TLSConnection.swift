internal import CLibevent
internal import COpenSSL
import PushMockCore

/// One TLS connection on the TLS port: the handshake, then HTTP/2 (ALPN `h2`, or no ALPN and
/// the HTTP/2 preface) or HTTP/1.1 (ALPN `http/1.1`, or no ALPN and anything else).
final class TLSConnection {
    /// The first bytes of every HTTP/2 connection (RFC 9113 §3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// APNs closes connections idle this long (reason IdleTimeout); so does pushmock.
    static let http2IdleSeconds = 3600.0

    private enum Stage {
        case handshake, sniffing, done
        case http2(HTTP2Session)
        case bridged(HTTP1Bridge)
    }

    private unowned let listener: TLSListener
    /// Freed in `finish()`; it owns the `SSL` and the socket (BEV_OPT_CLOSE_ON_FREE).
    let bev: OpaquePointer
    private let ssl: OpaquePointer
    private var stage = Stage.handshake
    private var closing = false
    /// Shutdown came during the handshake: GOAWAY once HTTP/2 starts.
    private var goAwayWhenStarted = false
    /// How long a closing connection waits for the peer's EOF after our last bytes: closing
    /// with unread input would reset the connection and could destroy the GOAWAY in flight.
    static let lingerSeconds = 1.0
    /// How long a peer may leave what we send unread (or stall the handshake).
    private let stallSeconds: Double
    private let base: EventBase
    /// Bounds the linger however chatty the peer; freed when the connection ends.
    private var lingerTimer: LoopEvent?

    /// `handshakeSeconds` (`--timeout`) bounds the handshake and a peer that stops reading.
    init(listener: TLSListener, fd: Int32, base: EventBase, context: TLSContext, handshakeSeconds: Double) throws(ServerError) {
        guard let ssl = context.makeSSL() else { throw ServerError("SSL_new failed") }
        // Ownership of `ssl` and `fd` passes to the bufferevent here.
        guard let bev = bufferevent_openssl_socket_new(base.pointer, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
                                                        Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            SSL_free(ssl)
            throw ServerError("bufferevent_openssl_socket_new failed")
        }
        self.listener = listener
        self.bev = bev
        self.ssl = ssl
        self.base = base
        stallSeconds = handshakeSeconds
        bufferevent_setcb(bev, tlsRead, tlsWrite, tlsEvent, Unmanaged.passUnretained(self).toOpaque())
        setTimeouts(read: handshakeSeconds)
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
    }

    fileprivate func readable() {
        if closing {
            let input = bufferevent_get_input(bev)
            evbuffer_drain(input, evbuffer_get_length(input))
            return
        }
        switch stage {
        case .sniffing: sniff()
        case .http2(let session):
            if !session.receive(bufferevent_get_input(bev)) { session.abandoned ? finish() : closeWhenFlushed() }
        case .bridged(let bridge): bridge.outerReadable()
        case .handshake, .done: break
        }
    }

    fileprivate func writable() {
        if closing { return linger() }
        switch stage {
        case .http2(let session): if !session.flush() { closeWhenFlushed() }
        case .bridged(let bridge): bridge.outerWritable()
        default: break
        }
    }

    fileprivate func event(_ what: Int16) {
        if what & Int16(BEV_EVENT_CONNECTED) != 0 { return handshakeDone() }
        // Idle (nothing read for an hour): GOAWAY as APNs does. A peer that stopped reading
        // what we send, an error, or EOF: close at once.
        if case .http2(let session) = stage, what & Int16(BEV_EVENT_TIMEOUT) != 0, what & Int16(BEV_EVENT_READING) != 0, !closing {
            session.goAway(reason: "IdleTimeout")
            return closeWhenFlushed()
        }
        finish()
    }

    private func handshakeDone() {
        switch TLSContext.negotiatedProtocol(ssl) {
        case "h2"?: startHTTP2()
        case "http/1.1"?: startBridge()
        default:
            stage = .sniffing
            sniff()
        }
    }

    /// No ALPN: HTTP/2 if the first bytes are the preface, else HTTP/1.1.
    private func sniff() {
        guard let input = bufferevent_get_input(bev) else { return }
        let n = min(evbuffer_get_length(input), Self.preface.count)
        guard n > 0, let head = evbuffer_pullup(input, n) else { return }
        if !Self.preface.prefix(n).elementsEqual(UnsafeBufferPointer(start: head, count: n)) { return startBridge() }
        if n == Self.preface.count { startHTTP2() }
    }

    private func startHTTP2() {
        let context = ConnectionContext(isHTTP2: true, clientCertificate: TLSContext.clientCertificate(ssl))
        guard let session = try? listener.makeSession(bev: bev, context: context) else { return finish() }
        stage = .http2(session)
        setTimeouts(read: Self.http2IdleSeconds)
        if evbuffer_get_length(bufferevent_get_input(bev)) > 0 { readable() } else if !session.flush() { closeWhenFlushed() }
        if goAwayWhenStarted, !closing, !session.goAway() { closeWhenFlushed() }
    }

    private func startBridge() {
        guard let bridge = try? listener.makeBridge(outer: bev, connection: self) else { return finish() }
        stage = .bridged(bridge)
        // The HTTP/1.1 front door times the connection from here on.
        bufferevent_set_timeouts(bev, nil, nil)
        bridge.outerReadable()
    }

    /// Server shutdown: HTTP/2 peers get GOAWAY and finish their streams; a connection still
    /// in its handshake gets it once HTTP/2 starts (the drain period bounds the wait).
    func goAway() {
        switch stage {
        case .http2(let session):
            if !session.goAway() { closeWhenFlushed() }
        case .handshake, .sniffing: goAwayWhenStarted = true
        case .bridged, .done: break
        }
    }

    /// Closes once what is queued has been written and the peer has had a moment to close
    /// its side; input meanwhile is discarded.
    func closeWhenFlushed() {
        guard !closing else { return }
        closing = true
        if evbuffer_get_length(bufferevent_get_output(bev)) == 0 { linger() }
    }

    /// Ends the connection after `lingerSeconds` however much the peer keeps sending, or as
    /// soon as it closes its side.
    private func linger() {
        var r = timeval(seconds: Self.lingerSeconds), w = timeval(seconds: stallSeconds)
        bufferevent_set_timeouts(bev, &r, &w)
        bufferevent_enable(bev, Int16(EV_READ))
        guard lingerTimer == nil else { return }
        lingerTimer = try? LoopEvent(base: base, fd: -1, what: 0, callback: tlsLingerEnded, argument: Unmanaged.passUnretained(self).toOpaque())
        lingerTimer?.add(seconds: Self.lingerSeconds)
    }

    fileprivate func lingerEnded() { finish() }

    private func finish() {
        if case .done = stage { return }
        stage = .done
        lingerTimer = nil
        bufferevent_setcb(bev, nil, nil, nil, nil)
        bufferevent_free(bev)
        listener.closed(self)
    }

    /// `read` bounds silence from the peer; a peer that does not read what we send is cut
    /// off after `stallSeconds` (libevent only times writes while output is pending).
    private func setTimeouts(read: Double) {
        var r = timeval(seconds: read), w = timeval(seconds: stallSeconds)
        bufferevent_set_timeouts(bev, &r, &w)
    }
}

private func tlsConnection(_ arg: UnsafeMutableRawPointer?) -> TLSConnection? {
    arg.map { Unmanaged<TLSConnection>.fromOpaque($0).takeUnretainedValue() }
}

private func tlsRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) { tlsConnection(arg)?.readable() }
private func tlsWrite(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) { tlsConnection(arg)?.writable() }
private func tlsLingerEnded(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) { tlsConnection(arg)?.lingerEnded() }
private func tlsEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) { tlsConnection(arg)?.event(what) }
