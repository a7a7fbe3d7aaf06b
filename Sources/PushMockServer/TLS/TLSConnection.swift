internal import CLibevent
internal import COpenSSL
import Glibc
import PushMockCore

/// One TLS connection on the TLS port: the handshake, then HTTP/2 (ALPN `h2`, or no ALPN and
/// the HTTP/2 preface) or HTTP/1.1 (ALPN `http/1.1`, or no ALPN and anything else).
///
/// It does its own I/O through OpenSSL on the non-blocking socket. When the socket is
/// readable it decrypts all that arrived (OpenSSL reads ahead, so a burst of records costs a
/// `read` or two) and hands it over at once; what the answers then add to `output` goes out in
/// one `SSL_write`. The write event is armed only while the peer leaves data unread, so a busy
/// connection costs no `epoll_ctl` (docs/PERFORMANCE.md: why not a libevent TLS bufferevent).
final class TLSConnection {
    /// The first bytes of every HTTP/2 connection (RFC 9113 §3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// APNs closes connections idle this long (reason IdleTimeout); so does pushmock.
    static let http2IdleSeconds = 3600.0
    /// How long a closing connection waits for the peer's EOF after our last bytes: closing
    /// with unread input would reset the connection and could destroy the GOAWAY in flight.
    static let lingerSeconds = 1.0
    /// The most plaintext read before it is handed over; the rest waits a turn of the loop.
    static let readBatch = 256 * 1024
    /// The most plaintext given to one `SSL_write` (it makes records of up to 16 KiB).
    static let writeBatch = 64 * 1024

    private enum Stage {
        case handshake, sniffing, done
        case http2(HTTP2Session)
        case bridged(HTTP1Bridge)
    }

    private unowned let listener: TLSListener
    private let base: EventBase
    /// The socket and its `SSL`: closed and freed in deinit.
    private let fd: Int32
    private let ssl: OpaquePointer
    /// Decrypted bytes not yet taken, and plaintext waiting to be sent. Freed in deinit.
    let input: OpaquePointer
    let output: OpaquePointer
    /// Set right after init (they point back at this connection); freed before the socket.
    private var readEvent: LoopEvent?
    private var writeEvent: LoopEvent?
    private var stage = Stage.handshake
    private var closing = false
    /// Shutdown came during the handshake: GOAWAY once HTTP/2 starts.
    private var goAwayWhenStarted = false
    /// How long a peer may leave what we send unread (or stall the handshake).
    private let stallSeconds: Double
    /// The read event is armed (it is not while a consumer holds back, or once closed).
    private var reading = false
    /// How long the peer may stay silent: the handshake's bound, HTTP/2's idle hour, or none
    /// (the HTTP/1.1 front door times a bridged connection).
    private var readTimeout: Double?
    /// The write event is armed: the socket took less than it was given.
    private var writing = false
    /// A write failed; the connection ends from the loop, not inside whoever wrote.
    private var broken = false
    /// Bounds the linger however chatty the peer; freed when the connection ends.
    private var lingerTimer: LoopEvent?

    /// `handshakeSeconds` (`--timeout`) bounds the handshake and a peer that stops reading.
    init(listener: TLSListener, fd: Int32, base: EventBase, context: TLSContext, handshakeSeconds: Double) throws(ServerError) {
        guard let ssl = context.makeSSL() else { throw ServerError("SSL_new failed") }
        guard SSL_set_fd(ssl, fd) == 1, let input = evbuffer_new() else {
            SSL_free(ssl)
            throw ServerError("cannot set up a TLS connection")
        }
        guard let output = evbuffer_new() else {
            SSL_free(ssl)
            evbuffer_free(input)
            throw ServerError("cannot set up a TLS connection")
        }
        SSL_set_accept_state(ssl)
        SSL_set_read_ahead(ssl, 1)
        SSL_ctrl(ssl, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        SocketPort.noDelay(fd)
        self.listener = listener
        self.fd = fd
        self.ssl = ssl
        self.input = input
        self.output = output
        self.base = base
        stallSeconds = handshakeSeconds
        readTimeout = handshakeSeconds
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = try LoopEvent(base: base, fd: fd, what: Int16(EV_READ | EV_PERSIST), callback: tlsReadable, argument: me)
        writeEvent = try LoopEvent(base: base, fd: fd, what: Int16(EV_WRITE), callback: tlsWritable, argument: me)
        setReading(true)
    }

    deinit {
        stage = .done
        readEvent = nil
        writeEvent = nil
        lingerTimer = nil
        SSL_free(ssl)
        close(fd)
        evbuffer_free(input)
        evbuffer_free(output)
    }

    private var finished: Bool {
        if case .done = stage { return true }
        return false
    }

    // MARK: Reading

    fileprivate func readable(_ what: Int16) {
        // (A timeout that came due while the loop was busy counts only if nothing arrived.)
        if what & Int16(EV_TIMEOUT) != 0, what & Int16(EV_READ) == 0 { return readTimedOut() }
        switch stage {
        case .handshake: handshake()
        case .done: break
        default: readPlaintext()
        }
    }

    /// Silence: an HTTP/2 connection idle for an hour gets GOAWAY, as APNs sends; a stalled
    /// handshake, or a peer that does not close while we linger, is closed.
    private func readTimedOut() {
        if case .http2(let session) = stage, !closing {
            session.goAway(reason: "IdleTimeout")
            return closeWhenFlushed()
        }
        finish()
    }

    private func handshake() {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return handshakeDone() }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: break
        case SSL_ERROR_WANT_WRITE: armWriting()
        default:
            ERR_clear_error()
            finish()
        }
    }

    /// Decrypts what has arrived (up to `readBatch`) into `input` and hands it over.
    private func readPlaintext() {
        guard reading else { return } // a turn asked for before reading paused
        ERR_clear_error()
        var taken = 0
        var ended = false
        while taken < Self.readBatch {
            var space = iovec()
            guard evbuffer_reserve_space(input, 16 * 1024, &space, 1) == 1, let base = space.iov_base else {
                ended = true
                break
            }
            let n = SSL_read(ssl, base, Int32(min(space.iov_len, Self.readBatch - taken)))
            if n > 0 {
                space.iov_len = Int(n)
                evbuffer_commit_space(input, &space, 1)
                taken += Int(n)
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ: break
            case SSL_ERROR_WANT_WRITE: armWriting()
            default: // EOF (with or without close_notify), or an error
                ERR_clear_error()
                ended = true
            }
            break
        }
        if taken > 0 { deliver() }
        if finished { return }
        if ended { return finish() }
        // More may be waiting (read ahead, or past the batch): take it on the next turn.
        if reading, taken >= Self.readBatch, let readEvent { event_active(readEvent.pointer, Int32(EV_READ), 0) }
    }

    private func deliver() {
        if closing { return discardInput() }
        switch stage {
        case .sniffing: sniff()
        case .http2(let session):
            if !session.receive(input) { session.abandoned ? finish() : closeWhenFlushed() }
        case .bridged(let bridge): bridge.outerReadable()
        case .handshake, .done: break
        }
    }

    private func discardInput() { evbuffer_drain(input, evbuffer_get_length(input)) }

    /// Reading on or off: off while a consumer waits for the peer to take what it sent.
    func setReading(_ on: Bool) {
        guard on != reading, !finished, let readEvent else { return }
        reading = on
        guard on else { return readEvent.remove() }
        readEvent.add(seconds: readTimeout)
        // OpenSSL may hold records it read ahead, which the socket will not signal again.
        if SSL_has_pending(ssl) != 0 { event_active(readEvent.pointer, Int32(EV_READ), 0) }
    }

    /// A new bound on the peer's silence (from the next byte on).
    private func setReadTimeout(_ seconds: Double?) {
        readTimeout = seconds
        guard reading, let readEvent else { return }
        readEvent.remove()
        readEvent.add(seconds: seconds)
    }

    // MARK: Writing

    /// Encrypts and sends what `output` holds, as far as the socket takes it; the rest goes
    /// when the socket is writable again. Never ends the connection itself: a failure ends it
    /// from the loop, so no caller's state goes away under it.
    func transmit() {
        guard !writing, !broken, !finished else { return }
        ERR_clear_error()
        while case let pending = evbuffer_get_length(output), pending > 0 {
            let n = min(pending, Self.writeBatch)
            guard let bytes = evbuffer_pullup(output, n) else { return fail() }
            let written = SSL_write(ssl, bytes, Int32(n))
            if written > 0 {
                evbuffer_drain(output, Int(written))
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return armWriting()
            default: return fail()
            }
        }
        if closing { linger() }
    }

    private func armWriting() {
        writing = true
        writeEvent?.add(seconds: stallSeconds)
    }

    private func fail() {
        ERR_clear_error()
        broken = true
        evbuffer_drain(output, evbuffer_get_length(output))
        if let writeEvent { event_active(writeEvent.pointer, Int32(EV_WRITE), 0) }
    }

    fileprivate func writable(_ what: Int16) {
        writing = false
        // A failed write, or a peer that took nothing for `stallSeconds`: close at once.
        if broken || (what & Int16(EV_TIMEOUT) != 0 && what & Int16(EV_WRITE) == 0) { return finish() }
        switch stage {
        case .handshake: return handshake()
        case .done: return
        default: break
        }
        transmit()
        if writing || broken || closing { return }
        // The peer took everything: a consumer that held back may go on.
        switch stage {
        case .http2(let session): if !session.flush() { closeWhenFlushed() }
        case .bridged(let bridge): bridge.outerWritable()
        default: break
        }
        // An `SSL_read` that needed to write first gets its turn again.
        if reading, SSL_has_pending(ssl) != 0, let readEvent { event_active(readEvent.pointer, Int32(EV_READ), 0) }
    }

    // MARK: Stages

    private func handshakeDone() {
        switch TLSContext.negotiatedProtocol(ssl) {
        case "h2"?: startHTTP2()
        case "http/1.1"?: startBridge()
        default: stage = .sniffing
        }
        // Application data may have come with the handshake's last flight.
        if !finished { readPlaintext() }
    }

    /// No ALPN: HTTP/2 if the first bytes are the preface, else HTTP/1.1.
    private func sniff() {
        let n = min(evbuffer_get_length(input), Self.preface.count)
        guard n > 0, let head = evbuffer_pullup(input, n) else { return }
        if !Self.preface.prefix(n).elementsEqual(UnsafeBufferPointer(start: head, count: n)) { return startBridge() }
        if n == Self.preface.count { startHTTP2() }
    }

    private func startHTTP2() {
        let context = ConnectionContext(isHTTP2: true, clientCertificate: TLSContext.clientCertificate(ssl))
        guard let session = try? listener.makeSession(connection: self, context: context) else { return finish() }
        stage = .http2(session)
        setReadTimeout(Self.http2IdleSeconds)
        if evbuffer_get_length(input) > 0 {
            if !session.receive(input) { return session.abandoned ? finish() : closeWhenFlushed() }
        } else if !session.flush() {
            return closeWhenFlushed()
        }
        if goAwayWhenStarted, !closing, !session.goAway() { closeWhenFlushed() }
    }

    private func startBridge() {
        guard let bridge = try? listener.makeBridge(connection: self) else { return finish() }
        stage = .bridged(bridge)
        setReadTimeout(nil)
        if evbuffer_get_length(input) > 0 { bridge.outerReadable() }
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

    // MARK: Closing

    /// Closes once what is queued has been written and the peer has had a moment to close
    /// its side; input meanwhile is discarded.
    func closeWhenFlushed() {
        guard !closing, !finished else { return }
        closing = true
        discardInput()
        if !writing, evbuffer_get_length(output) == 0 { linger() }
    }

    /// Ends the connection after `lingerSeconds` however much the peer keeps sending, or as
    /// soon as it closes its side.
    private func linger() {
        guard lingerTimer == nil, !finished else { return }
        setReading(true)
        lingerTimer = try? LoopEvent(
            base: base, fd: -1, what: 0, callback: tlsLingerEnded, argument: Unmanaged.passUnretained(self).toOpaque())
        lingerTimer?.add(seconds: Self.lingerSeconds)
    }

    fileprivate func lingerEnded() { finish() }

    /// Stops all I/O and leaves the listener's table; the socket closes when this goes.
    private func finish() {
        if finished { return }
        stage = .done
        reading = false
        readEvent?.remove()
        writeEvent?.remove()
        lingerTimer?.remove()
        listener.closed(self)
    }
}

private func tlsReadable(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: TLSConnection) in c.readable(what) }
}
private func tlsWritable(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: TLSConnection) in c.writable(what) }
}
private func tlsLingerEnded(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: TLSConnection) in c.lingerEnded() }
}
