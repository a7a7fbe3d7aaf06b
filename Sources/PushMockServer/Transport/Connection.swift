internal import CLibevent
import Glibc
import PushMockCore

/// One accepted connection on either port: a `ByteChannel` (the plain socket, or TLS) carrying
/// an HTTP/1.1 or an HTTP/2 session. TLS with ALPN takes the protocol it settled on (`h2`,
/// `http/1.1`); the plain port, and TLS without ALPN, take HTTP/2 when the first bytes are its
/// connection preface (h2c with prior knowledge on the plain port), else HTTP/1.1.
///
/// I/O: when the socket is readable the connection reads what arrived (up to `readBatch`, its
/// budget for one turn of the loop: the rest waits until every other connection has had its
/// turn) into `input` and hands it to the session. Over TLS, what the session writes meanwhile
/// collects in `output` and goes out in one write after; on a plain socket an answer with
/// nothing queued before it is written at once. The write event is armed only while the socket
/// takes less than it is given, so a busy connection costs no `epoll_ctl`.
///
/// Bounds, the same on every port and protocol (checked by the table's sweep each second):
/// `deadline`, set for the TLS handshake, for each HTTP/1.1 request to arrive whole (from the
/// connection's start or its last answer: slowloris and idle keep-alive), and for a lingering
/// close; a peer that takes none of its output for `--timeout` (HTTP/2: of its answers, a
/// closed window too) is cut off with a reset; an HTTP/2 connection idle for its policy's time
/// gets GOAWAY. Back-pressure: reading pauses while
/// `maxPendingOutput` waits to be sent or the session has not taken `inputLimit`.
final class Connection {
    enum Stage {
        case handshake, sniffing
        case http1(HTTP1Session)
        case http2(HTTP2Session)
        case closed
    }

    /// The first bytes of every HTTP/2 connection (RFC 9113 §3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The most read in one turn of the loop; the rest waits for the next turn, after the loop
    /// has polled every other socket (a peer sending without pause cannot starve the others).
    static let readBatch = 64 * 1024
    /// The gateway time one turn may spend on a connection's requests: once it is spent,
    /// further requests already read wait for the next turn (a hundred log scans sent at once
    /// cannot hold the loop).
    static let turnBudgetNanos: UInt64 = 5_000_000
    /// The most given to one write (TLS makes records of up to 16 KiB of it).
    static let writeBatch = 64 * 1024
    /// Reading pauses while this much output waits to be sent.
    static let maxPendingOutput = 1 << 20
    /// A closing connection waits this long for the peer to close after our last bytes
    /// (closing with unread input would reset the connection and could lose the answer), and
    /// drops at most `maxLingerBytes` of what the peer sends meanwhile.
    static let lingerNanos: UInt64 = 2_000_000_000
    static let maxLingerBytes = 256 * 1024

    private unowned let table: ConnectionTable
    private let base: EventBase
    private let channel: ByteChannel
    let dispatcher: RequestDispatcher
    let timeoutNanos: UInt64
    /// Bytes read and not yet taken by the session, and bytes waiting to be sent. Freed in deinit.
    let input: OpaquePointer
    let output: OpaquePointer
    /// Set right after init (they point back at this connection).
    private var readEvent: LoopEvent?
    private var writeEvent: LoopEvent?
    /// A zero-second timer that reads on in the loop's next turn; made when first needed.
    private var nextTurn: LoopEvent?
    private(set) var stage: Stage
    /// Input is being handed over: writes collect in `output` and go out once, after.
    private var delivering = false
    /// The read event is armed.
    private var reading = false
    /// The write event is armed: the socket took less than it was given.
    private var writing = false
    /// A write failed, or a session asked to end at once: the connection ends from the loop.
    private var broken = false
    /// Closing: input is dropped; once output is sent the write side shuts.
    private(set) var closing = false
    private var writeShut = false
    private var lingered = 0
    /// Server shutdown: HTTP/1.1 answers close the connection, HTTP/2 gets GOAWAY.
    private(set) var draining = false
    /// When the connection must have moved on (monotonic ns), or 0 for no bound.
    var deadline: UInt64
    /// When output last moved while some was waiting.
    private var lastWritten: UInt64
    /// When bytes last arrived.
    private var lastRead: UInt64
    /// The gateway's time for this connection's requests in the current turn (ns).
    private var turnNanos: UInt64 = 0

    init(table: ConnectionTable, base: EventBase, channel: ByteChannel, dispatcher: RequestDispatcher, timeoutNanos: UInt64)
        throws(ServerError)
    {
        guard let input = evbuffer_new() else { throw ServerError("evbuffer_new failed") }
        guard let output = evbuffer_new() else {
            evbuffer_free(input)
            throw ServerError("evbuffer_new failed")
        }
        self.table = table
        self.base = base
        self.channel = channel
        self.dispatcher = dispatcher
        self.timeoutNanos = timeoutNanos
        self.input = input
        self.output = output
        stage = channel.isTLS ? .handshake : .sniffing
        let now = MonotonicClock.nanos()
        deadline = now + timeoutNanos
        lastWritten = now
        lastRead = now
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = try LoopEvent(
            base: base, fd: channel.fd, what: Int16(EV_READ | EV_PERSIST), callback: connectionReadable, argument: me)
        writeEvent = try LoopEvent(base: base, fd: channel.fd, what: Int16(EV_WRITE), callback: connectionWritable, argument: me)
        setReading(true)
    }

    deinit {
        stage = .closed
        readEvent = nil
        writeEvent = nil
        nextTurn = nil
        evbuffer_free(input)
        evbuffer_free(output)
    }

    var isClosed: Bool {
        if case .closed = stage { return true }
        return false
    }

    var pendingOutput: Int { evbuffer_get_length(output) }

    /// Since when the connection has been idle (monotonic ns): a session with no request
    /// under way and nothing unread or unsent; nil when it is not idle.
    var idleSince: UInt64? {
        guard !closing, pendingOutput == 0 else { return nil }
        switch stage {
        case .http1(let session): return session.isIdle ? lastRead : nil
        case .http2(let session): return session.isIdle ? lastRead : nil
        case .handshake, .sniffing, .closed: return nil
        }
    }

    /// Makes room at the connection cap: HTTP/2 gets GOAWAY and closes once it is sent; an
    /// idle HTTP/1.1 connection closes.
    func evict() {
        switch stage {
        case .http2(let session):
            session.goAway()
            ended(session)
        default: finish()
        }
    }

    // MARK: Reading

    fileprivate func readable() {
        switch stage {
        case .closed: return
        case .handshake: return handshake()
        default: break
        }
        turnNanos = 0
        let ended = reading ? readSome() : false
        if closing {
            lingered += evbuffer_get_length(input)
            discardInput()
            if ended || lingered > Self.maxLingerBytes { finish() }
            return
        }
        if evbuffer_get_length(input) > 0 || hasDeferredRequests { deliver() }
        if ended, !isClosed { peerClosed() }
    }

    /// Reads what has arrived, up to `readBatch`; returns whether the peer closed.
    private func readSome() -> Bool {
        var taken = 0
        var ended = false
        reads: while taken < Self.readBatch {
            var space = iovec()
            guard evbuffer_reserve_space(input, 16 * 1024, &space, 1) == 1, let start = space.iov_base else {
                ended = true
                break
            }
            let want = min(space.iov_len, Self.readBatch - taken)
            switch channel.read(into: start, count: want) {
            case .bytes(let n):
                space.iov_len = n
                evbuffer_commit_space(input, &space, 1)
                taken += n
                // Less than asked: the socket is drained (unless TLS holds records it read ahead).
                if n < want, !channel.hasPending { break reads }
            case .wantRead: break reads
            case .wantWrite:
                armWriting()
                break reads
            case .ended:
                ended = true
                break reads
            }
        }
        if taken > 0 { lastRead = MonotonicClock.nanos() }
        // More may be waiting past the budget (in the socket, or read ahead by TLS).
        if !ended, taken >= Self.readBatch { resumeInput() }
        return ended
    }

    /// Hands the input to the session, then sends what it wrote.
    private func deliver() {
        delivering = true
        switch stage {
        case .sniffing: sniff()
        case .http1(let session): session.receive()
        case .http2(let session): if !session.receive(input) { ended(session) }
        case .handshake, .closed: break
        }
        delivering = false
        if isClosed { return }
        transmit()
        updateReading()
    }

    /// The peer closed its side: what is queued still goes, then the connection ends.
    private func peerClosed() {
        if pendingOutput > 0 { closeWhenFlushed() } else { finish() }
    }

    private func discardInput() { evbuffer_drain(input, evbuffer_get_length(input)) }

    /// How much unread input the session lets wait before reading pauses.
    private var inputLimit: Int {
        if case .http1 = stage { return HTTP1Session.inputLimit(dispatcher) }
        return Self.readBatch
    }

    /// Reads while the session can take more; a closing connection reads (and drops) until
    /// the peer closes.
    func updateReading() {
        setReading(closing || (pendingOutput < Self.maxPendingOutput && evbuffer_get_length(input) < inputLimit))
    }

    private func setReading(_ on: Bool) {
        guard on != reading, !isClosed, let readEvent else { return }
        reading = on
        guard on else { return readEvent.remove() }
        readEvent.add()
        // TLS may hold records it read ahead, which the socket will not signal again.
        if channel.hasPending { resumeInput() }
    }

    /// Counts a request's time in the gateway against this turn (`RequestDispatcher`).
    func spend(_ nanos: UInt64) { turnNanos &+= nanos }

    /// Whether this turn's time for requests is spent (the first request of a turn always
    /// runs): the session then leaves the requests it has read for the next turn
    /// (`resumeInput`).
    var turnSpent: Bool { turnNanos > Self.turnBudgetNanos }

    /// Whole requests read and left for a later turn (HTTP/2 streams waiting to be answered).
    private var hasDeferredRequests: Bool {
        if case .http2(let session) = stage { return session.hasWaiting }
        return false
    }

    /// Reads on, and takes up input already read, in the loop's next turn: after it has
    /// polled every socket, never from inside a session's call.
    func resumeInput() {
        guard !isClosed else { return }
        if nextTurn == nil {
            nextTurn = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: connectionReadable, argument: Unmanaged.passUnretained(self).toOpaque())
        }
        nextTurn?.add(seconds: 0)
    }

    // MARK: Writing

    /// Sends bytes: on a plain socket with nothing queued, straight from the caller's buffer;
    /// otherwise queued, and sent at once or after the input being handed over (TLS gathers a
    /// batch of answers into one write).
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, !closing || !writeShut, var start = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        if !channel.isTLS, !writing, !broken, pendingOutput == 0 {
            switch channel.write(from: start, count: count) {
            case .bytes(let n):
                start += n
                count -= n
            case .ended: return abort()
            case .wantRead, .wantWrite: break
            }
            if count == 0 { return }
        }
        if pendingOutput == 0 { lastWritten = MonotonicClock.nanos() }
        evbuffer_add(output, start, count)
        if !delivering { transmit() }
    }

    /// Sends what a session added to `output` itself, unless input is being handed over.
    func flush() {
        if !delivering { transmit() }
    }

    /// Sends what `output` holds, as far as the socket takes it; the rest goes when it is
    /// writable again. Never ends the connection itself: a failure ends it from the loop, so
    /// no caller's state goes away under it.
    func transmit() {
        guard !writing, !broken, !isClosed else { return }
        while case let pending = pendingOutput, pending > 0 {
            let n = min(pending, Self.writeBatch)
            guard let bytes = evbuffer_pullup(output, n) else { return abort() }
            switch channel.write(from: bytes, count: n) {
            case .bytes(let written):
                evbuffer_drain(output, written)
                lastWritten = MonotonicClock.nanos()
            case .wantWrite, .wantRead: return armWriting()
            case .ended: return abort()
            }
        }
        if closing { shutWrite() }
    }

    private func armWriting() {
        guard !writing, let writeEvent else { return }
        writing = true
        writeEvent.add()
    }

    fileprivate func writable() {
        writing = false
        if broken { return finish() }
        switch stage {
        case .handshake: return handshake()
        case .closed: return
        default: break
        }
        transmit()
        if writing || broken || closing { return }
        // The peer took everything: a session that held back may go on.
        switch stage {
        case .http1(let session): session.outputDrained()
        case .http2(let session): if !session.flush() { ended(session) }
        default: break
        }
        updateReading()
        // A TLS read that needed to write first gets its turn again.
        if channel.hasPending { resumeInput() }
    }

    // MARK: Stages

    private func handshake() {
        switch channel.handshake() {
        case nil: handshakeDone()
        case .wantRead?: break
        case .wantWrite?: armWriting()
        case .ended?, .bytes?: finish()
        }
    }

    private func handshakeDone() {
        deadline = MonotonicClock.nanos() + timeoutNanos
        switch channel.negotiatedProtocol {
        case "h2"?: startHTTP2()
        case "http/1.1"?: startHTTP1()
        default: stage = .sniffing
        }
        // Application data may have come with the handshake's last flight.
        if !isClosed { readable() }
    }

    /// HTTP/2 when the first bytes are its preface, else HTTP/1.1.
    private func sniff() {
        let n = min(evbuffer_get_length(input), Self.preface.count)
        guard n > 0, let head = evbuffer_pullup(input, n) else { return }
        if !Self.preface.prefix(n).elementsEqual(UnsafeBufferPointer(start: head, count: n)) { return startHTTP1() }
        if n == Self.preface.count { startHTTP2() }
    }

    private func startHTTP1() {
        let context = ConnectionContext(
            isHTTP2: false, clientCertificate: channel.clientCertificate, isTLS: channel.isTLS, serverName: channel.serverName)
        let session = HTTP1Session(connection: self, context: context)
        stage = .http1(session)
        if evbuffer_get_length(input) > 0 { session.receive() }
    }

    private func startHTTP2() {
        let context = ConnectionContext(
            isHTTP2: true, clientCertificate: channel.clientCertificate, isTLS: channel.isTLS, serverName: channel.serverName)
        let policy = dispatcher.gateway.http2Policy(context)
        guard let session = try? HTTP2Session(connection: self, context: context, policy: policy)
        else { return abort() }
        stage = .http2(session)
        // HTTP/2 has no request deadline: an idle connection gets its policy's GOAWAY.
        deadline = 0
        let ok = evbuffer_get_length(input) > 0 ? session.receive(input) : session.flush()
        if !ok { return ended(session) }
        if draining, !session.goAway() { ended(session) }
    }

    // MARK: Time and shutdown

    /// An HTTP/2 session is over: at once when it was dropped (chaos), else once what it
    /// queued is sent.
    private func ended(_ session: HTTP2Session) {
        session.abandoned ? abort() : closeWhenFlushed()
    }

    /// The table's sweep: ends a connection past its deadline or whose peer stopped reading
    /// (HTTP/2: its window closed too); an idle HTTP/2 connection gets its policy's GOAWAY.
    func checkTime(now: UInt64) {
        if deadline != 0, now > deadline { return finish() }
        if pendingOutput > 0, now - lastWritten > timeoutNanos { return cutOff() }
        if case .http2(let session) = stage, session.isStalled(now: now, timeout: timeoutNanos) { return cutOff() }
        if case .http2(let session) = stage, !closing, session.isIdle, now - lastRead > UInt64(session.policy.idleSeconds * 1e9) {
            session.goAway(debugData: session.policy.idleGoAwayData)
            closeWhenFlushed()
        }
    }

    /// Server shutdown: HTTP/2 peers get GOAWAY and finish their streams; HTTP/1.1 answers
    /// close the connection, and an idle one closes now. A connection still in its handshake
    /// gets GOAWAY if HTTP/2 starts (the drain period bounds the wait).
    func drain() {
        draining = true
        switch stage {
        case .http1(let session): if session.isIdle { finish() }
        case .http2(let session): if !session.goAway() { ended(session) }
        case .sniffing: if evbuffer_get_length(input) == 0 { finish() }
        case .handshake, .closed: break
        }
    }

    // MARK: Closing

    /// Closes once what is queued has been sent and the peer has had a moment to close its
    /// side; what it sends meanwhile is dropped.
    func closeWhenFlushed() {
        guard !closing, !isClosed else { return }
        closing = true
        discardInput()
        if !writing, pendingOutput == 0 { shutWrite() }
        updateReading()
    }

    /// The last bytes are out: shut our side and linger for the peer's close.
    private func shutWrite() {
        guard !writeShut else { return }
        writeShut = true
        channel.shutdownWrite()
        deadline = MonotonicClock.nanos() + Self.lingerNanos
    }

    /// Ends the connection from the loop, with nothing more sent (a chaos drop, a failed
    /// write, a session that could not start).
    func abort() {
        guard !broken, !isClosed else { return }
        broken = true
        discardInput()
        evbuffer_drain(output, pendingOutput)
        setReading(false)
        if let writeEvent { event_active(writeEvent.pointer, Int32(EV_WRITE), 0) }
    }

    /// A peer that took nothing for `--timeout`: reset, so nothing more is kept for it.
    private func cutOff() {
        channel.resetOnClose()
        finish()
    }

    /// Stops all I/O and leaves the table; the socket closes when the last reference goes.
    func finish() {
        let ended = stage
        guard !isClosed else { return }
        stage = .closed
        reading = false
        readEvent?.remove()
        writeEvent?.remove()
        nextTurn?.remove()
        if case .http1(let session) = ended { session.connectionClosed() }
        table.closed(self)
    }
}

// The events' callbacks; the argument is the connection, which its table keeps until it
// closes (maybe during the callback).

private func connectionReadable(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: Connection) in c.readable() }
}
private func connectionWritable(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: Connection) in c.writable() }
}
