internal import CLibevent
import Glibc
import PushMockCore

/// One accepted connection on any port: a `ByteChannel` (the plain socket, or TLS) carrying a
/// `Session`. On an HTTP port, TLS with ALPN takes the protocol it settled on (`h2`,
/// `http/1.1`); the plain port, and TLS without ALPN, take HTTP/2 when the first bytes are its
/// connection preface (h2c with prior knowledge on the plain port), else HTTP/1.1. A listener
/// of another protocol starts its own session (`SessionChoice`); an HTTP/1.1 session may hand
/// the connection over to another (`switch(to:)`, after `101 Switching Protocols`).
///
/// I/O: when the socket is readable the connection reads what arrived (up to `readBatch`, its
/// budget for one turn of the loop: the rest waits until every other connection has had its
/// turn) into `input` and hands it to the session. What the session writes meanwhile collects
/// in `staged` (the connection's own reused memory) and past it in `output`. On a plain socket
/// it goes out once every connection ready in this turn has been handed its input
/// (`ConnectionTable.transmitLater`): the turn's answers leave in one burst, which the kernel
/// delivers to the peers for less than answers spread between the requests' work. Over TLS it
/// goes at once, as one batch of records (docs/PERFORMANCE.md, twentieth pass, says why). A
/// write from outside a turn's input (a stream, a long-poll, a timer) with nothing queued
/// before it goes at once on a plain socket. The write event is armed only while the socket
/// takes less than it is given, so a busy connection costs no `epoll_ctl`.
///
/// Bounds, the same on every port and protocol (checked by the table's sweep each second):
/// `deadline`, set for the TLS handshake, for each HTTP/1.1 request to arrive whole (from the
/// connection's start or its last answer: slowloris and idle keep-alive), and for a lingering
/// close; a peer that takes none of its output for `--timeout` (HTTP/2: of its answers, a
/// closed window too) is cut off with a reset; an HTTP/2 connection idle for its policy's time
/// gets GOAWAY. Back-pressure: reading pauses while
/// `maxPendingOutput` waits to be sent or the session has not taken its `inputLimit`.
final class Connection {
    /// Where the connection is in its life; each step only goes forward.
    enum Lifecycle {
        /// The TLS handshake is under way.
        case handshake
        /// An HTTP port's plain connection: the first bytes choose HTTP/2 or HTTP/1.1.
        case choosing
        /// A session carries the connection.
        case open
        /// Input is dropped; once output is sent the write side shuts.
        case closing
        /// Our side is shut: what the peer sends is dropped until it closes, or the linger
        /// deadline passes.
        case lingering
        /// A write failed, or a session asked to end at once: it ends from the loop, with
        /// nothing more sent.
        case aborting
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

    /// The table holds every connection it has until it closes, so it is always there; read
    /// without a reference count (`draining` is read for every HTTP/1.1 answer).
    private unowned(unsafe) let table: ConnectionTable
    private let base: EventBase
    private let channel: ByteChannel
    let dispatcher: RequestDispatcher
    let timeoutNanos: UInt64
    /// Bytes read and not yet taken by the session. Freed in deinit.
    let input: OpaquePointer
    /// Bytes waiting to be sent, after `staged`'s. Freed in deinit.
    private let output: OpaquePointer
    /// Output's first bytes while `output` is empty: memory of the connection's own, reused,
    /// written into and sent from in place. Most answers fit, and then cost no libevent buffer
    /// chain allocated, copied into, made contiguous and freed. What the socket does not take
    /// moves to `output` (`transmit`), and so does everything once this would pass `maxStaged`.
    private var staged = OwnedBytes(capacity: 0)
    static let maxStaged = 16 * 1024
    /// Set right after init (they point back at this connection). Each knows whether it is
    /// armed: the read event while the session can take more, the write event while the
    /// socket takes less than it is given.
    private var readEvent: LoopEvent?
    private var writeEvent: LoopEvent?
    /// A zero-second timer that reads on in the loop's next turn; made when first needed.
    private var nextTurn: LoopEvent?
    private(set) var lifecycle: Lifecycle
    private let choice: SessionChoice
    /// What carries the connection once it is open; kept while it closes, let go when it is
    /// closed.
    private(set) var session: (any Session)?
    /// Input is being handed to the session: its writes collect in `output` and go out after
    /// (`deliver`).
    private var handingOver = false
    /// In the table's list of connections whose output goes at the turn's end.
    var isTransmitDue = false
    /// Bytes of the peer's dropped while lingering.
    private var lingered = 0
    /// When the connection must have moved on (monotonic ns, from the coarse clock: it is set
    /// for every request), or 0 for no bound.
    var deadline: UInt64
    /// When the socket last took output, or was last offered it without having refused any
    /// before (from the coarse clock, which is read for less and is never ahead: the sweep
    /// compares it with `--timeout`, in seconds).
    private var lastWritten: UInt64
    /// When bytes last arrived.
    private var lastRead: UInt64
    /// The gateway's time for this connection's requests in the current turn (ns).
    private var turnNanos: UInt64 = 0

    init(
        table: ConnectionTable, base: EventBase, channel: ByteChannel, dispatcher: RequestDispatcher, timeoutNanos: UInt64,
        choice: SessionChoice
    ) throws(ServerError) {
        guard let input = evbuffer_new() else { throw .libevent("evbuffer_new") }
        guard let output = evbuffer_new() else {
            evbuffer_free(input)
            throw .libevent("evbuffer_new")
        }
        self.table = table
        self.base = base
        self.channel = channel
        self.dispatcher = dispatcher
        self.timeoutNanos = timeoutNanos
        self.input = input
        self.output = output
        self.choice = choice
        lifecycle = channel.isTLS ? .handshake : .choosing
        let now = MonotonicClock.nanos()
        deadline = now + timeoutNanos
        lastWritten = now
        lastRead = now
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = try LoopEvent(
            base: base, fd: channel.fd, what: Int16(EV_READ | EV_PERSIST), callback: connectionReadable, argument: me)
        writeEvent = try LoopEvent(base: base, fd: channel.fd, what: Int16(EV_WRITE), callback: connectionWritable, argument: me)
        if !channel.isTLS, case .own = choice { open() }
        setReading(true)
    }

    deinit {
        lifecycle = .closed
        readEvent = nil
        writeEvent = nil
        nextTurn = nil
        evbuffer_free(input)
        evbuffer_free(output)
    }

    var isClosed: Bool { if case .closed = lifecycle { true } else { false } }
    /// Closing, lingering or aborting: no new input is taken.
    var isEnding: Bool {
        switch lifecycle {
        case .closing, .lingering, .aborting, .closed: true
        case .handshake, .choosing, .open: false
        }
    }
    /// Server shutdown: HTTP/1.1 answers close the connection, HTTP/2 gets GOAWAY.
    var draining: Bool { table.draining }

    var pendingOutput: Int { staged.count + evbuffer_get_length(output) }

    /// Since when the connection has been idle (monotonic ns, its last read), if it may be
    /// closed to make room: a session answering nothing with nothing unsent (idle, or holding
    /// only requests still arriving), or a handshake not done after `handshakeGrace`; nil when
    /// it is working, or has just opened.
    func idleSince(now: UInt64) -> UInt64? {
        switch lifecycle {
        case .handshake, .choosing: return now - lastRead > Self.handshakeGrace ? lastRead : nil
        case .open:
            guard pendingOutput == 0, let session, session.isIdle else { return nil }
            return lastRead
        case .closing, .lingering, .aborting, .closed: return nil
        }
    }

    /// A connection in its first second is not taken for stalled: at the cap, the one just
    /// accepted before it would otherwise make room for the next.
    static let handshakeGrace: UInt64 = 1_000_000_000

    /// Makes room at the connection cap: the session says goodbye as its protocol does
    /// (HTTP/2: GOAWAY) or the connection just closes.
    func evict() {
        guard let session else { return finish() }
        apply(session.drain(evicting: true))
    }

    // MARK: Reading

    fileprivate func readable() {
        switch lifecycle {
        case .closed, .aborting: return
        case .handshake: return handshake()
        case .choosing, .open, .closing, .lingering: break
        }
        turnNanos = 0
        // The loop's read buffer is free again for the next connection when this turn ends.
        defer { if !table.scratch.keepUnread(in: input) { abort() } }
        let ended = readEvent?.isArmed == true ? readSome() : false
        if isEnding {
            lingered += evbuffer_get_length(input)
            discardInput()
            if ended || lingered > Self.maxLingerBytes { finish() }
            return
        }
        if evbuffer_get_length(input) > 0 || session?.hasDeferredWork == true { deliver() }
        if ended, !isClosed { peerClosed() }
    }

    /// Reads what has arrived, up to `readBatch`; returns whether the peer closed.
    private func readSome() -> Bool {
        var taken = 0
        var ended = false
        reads: while taken < Self.readBatch {
            // With nothing unread, into the loop's read buffer (`ReadScratch`); else into a
            // chain of the input's own.
            let intoScratch = taken == 0 && evbuffer_get_length(input) == 0
            var space = intoScratch ? table.scratch.space : iovec()
            guard intoScratch || evbuffer_reserve_space(input, 16 * 1024, &space, 1) == 1, let start = space.iov_base else {
                ended = true
                break
            }
            let want = min(space.iov_len, Self.readBatch - taken)
            switch channel.read(into: start, count: want) {
            case .bytes(let n):
                space.iov_len = n
                let kept = intoScratch ? table.scratch.lend(n, to: input) : evbuffer_commit_space(input, &space, 1) == 0
                guard kept else {
                    ended = true
                    break reads
                }
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

    /// Hands the input to the session (or lets the first bytes choose one); what it wrote goes
    /// at the turn's end on a plain socket, at once over TLS.
    private func deliver() {
        handingOver = true
        if case .choosing = lifecycle {
            choose()
        } else if let session, !session.receive() {
            apply(.closeWhenFlushed)
        }
        handingOver = false
        if isClosed { return }
        if pendingOutput > 0 {
            if channel.isTLS { transmit() } else { table.transmitLater(self) }
        }
        updateReading()
    }

    /// The turn's end: sends what collected while input was handed over (`outputTaken` once the
    /// peer took it all, as after `writable`).
    func transmitDue() {
        guard !isClosed else { return }
        transmit()
        if !isEnding, writeEvent?.isArmed == false { outputTaken() }
    }

    /// The peer took everything: a session that held back for it goes on, and reading
    /// resumes if output held it back.
    private func outputTaken() {
        if let session, !session.outputDrained() { apply(.closeWhenFlushed) }
        updateReading()
    }

    /// The peer closed its side: what is queued still goes, then the connection ends.
    private func peerClosed() {
        if pendingOutput > 0 { closeWhenFlushed() } else { finish() }
    }

    private func discardInput() { evbuffer_drain(input, evbuffer_get_length(input)) }

    /// Reads while the session can take more; a closing connection reads (and drops) until
    /// the peer closes.
    func updateReading() {
        let limit = session?.inputLimit ?? Self.readBatch
        setReading(isEnding || (pendingOutput < Self.maxPendingOutput && evbuffer_get_length(input) < limit))
    }

    private func setReading(_ on: Bool) {
        guard !isClosed, let readEvent, on != readEvent.isArmed else { return }
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

    /// Sends bytes: while input is handed over, queued until the session is done with it
    /// (`deliver`); otherwise, on a plain socket with nothing queued, straight from the
    /// caller's buffer, else queued and sent at once.
    func write(_ bytes: UnsafeRawBufferPointer) {
        switch lifecycle {
        case .lingering, .aborting, .closed: return
        case .handshake, .choosing, .open, .closing: break
        }
        guard var start = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        if !channel.isTLS, !handingOver, writeEvent?.isArmed == false, pendingOutput == 0 {
            switch channel.write(from: start, count: count) {
            case .bytes(let n):
                start += n
                count -= n
            case .ended: return abort()
            case .wantRead, .wantWrite: break
            }
            if count == 0 { return }
        }
        guard queue(start, count) else { return abort() }
        if !handingOver { transmit() }
    }

    /// Adds bytes after those already waiting, without sending them (`flush` does); false when
    /// memory ran out.
    func queue(_ start: UnsafeRawPointer, _ count: Int) -> Bool {
        if staged.count + count <= Self.maxStaged, evbuffer_get_length(output) == 0 {
            staged.append(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
            return true
        }
        // Behind what is staged: it goes first (`output` is empty while anything is staged).
        if staged.count > 0 {
            guard unstage(from: 0) else { return false }
        }
        return evbuffer_add(output, start, count) == 0
    }

    /// Moves the staged bytes from `offset` on to `output` (which is empty) and empties `staged`.
    private func unstage(from offset: Int) -> Bool {
        defer { staged.removeAll() }
        guard let start = staged.bytes.baseAddress, offset < staged.count else { return true }
        return evbuffer_add(output, start + offset, staged.count - offset) == 0
    }

    /// Sends what a session queued itself (`queue`), unless input is being handed over (then
    /// it goes after, `deliver`).
    func flush() {
        if !handingOver { transmit() }
    }

    /// Sends what `output` holds, as far as the socket takes it; the rest goes when it is
    /// writable again. Never ends the connection itself: a failure ends it from the loop, so
    /// no caller's state goes away under it.
    func transmit() {
        switch lifecycle {
        case .aborting, .closed: return
        case .handshake, .choosing, .open, .closing, .lingering: break
        }
        guard writeEvent?.isArmed == false else { return }
        // The peer's time to take its output runs from here: output that waited for the
        // turn's end, or for a long request's work, was not refused meanwhile.
        lastWritten = MonotonicClock.coarseNanos()
        if let start = staged.bytes.baseAddress, staged.count > 0 {
            var sent = 0
            switch channel.write(from: start, count: staged.count) {
            case .bytes(let n): sent = n
            case .wantWrite, .wantRead: break
            case .ended: return abort()
            }
            let all = sent == staged.count
            guard unstage(from: sent) else { return abort() }
            if !all { return armWriting() }
        }
        while case let pending = evbuffer_get_length(output), pending > 0 {
            let n = min(pending, Self.writeBatch)
            guard let bytes = evbuffer_pullup(output, n) else { return abort() }
            switch channel.write(from: bytes, count: n) {
            case .bytes(let written):
                evbuffer_drain(output, written)
            case .wantWrite, .wantRead: return armWriting()
            case .ended: return abort()
            }
        }
        if case .closing = lifecycle { shutWrite() }
    }

    private func armWriting() {
        guard let writeEvent, !writeEvent.isArmed else { return }
        writeEvent.add()
    }

    fileprivate func writable() {
        writeEvent?.fired()
        switch lifecycle {
        case .aborting: return finish()
        case .handshake: return handshake()
        case .closed: return
        case .choosing, .open, .closing, .lingering: break
        }
        transmit()
        if isEnding || writeEvent?.isArmed == true { return }
        outputTaken()
        // A TLS read that needed to write first gets its turn again.
        if channel.hasPending { resumeInput() }
    }

    // MARK: Sessions

    private func handshake() {
        switch channel.handshake() {
        case nil: handshakeDone()
        case .wantRead?: break
        case .wantWrite?: armWriting()
        case .ended?, .bytes?: finish()
        }
    }

    private func handshakeDone() {
        deadline = MonotonicClock.coarseNanos() + timeoutNanos
        if case .own = choice {
            open()
        } else {
            switch channel.negotiatedProtocol {
            case "h2"?: startHTTP2()
            case "http/1.1"?: startHTTP1()
            default: lifecycle = .choosing
            }
        }
        // Application data may have come with the handshake's last flight.
        if !isClosed { readable() }
    }

    /// HTTP/2 when the first bytes are its preface, else HTTP/1.1.
    private func choose() {
        let n = min(evbuffer_get_length(input), Self.preface.count)
        guard n > 0, let head = evbuffer_pullup(input, n) else { return }
        if !Self.preface.prefix(n).elementsEqual(UnsafeBufferPointer(start: head, count: n)) { return startHTTP1() }
        if n == Self.preface.count { startHTTP2() }
    }

    /// What the connection is: its TLS client certificate and SNI, for the requests it carries.
    private func context(http2: Bool) -> ConnectionContext {
        ConnectionContext(
            isHTTP2: http2, clientCertificate: channel.clientCertificate, isTLS: channel.isTLS, serverName: channel.serverName)
    }

    private func startHTTP1() {
        start(HTTP1Session(connection: self, context: context(http2: false)))
    }

    private func startHTTP2() {
        let context = context(http2: true)
        guard let session = try? HTTP2Session(connection: self, context: context, policy: dispatcher.http2Policy(context))
        else { return abort() }
        // HTTP/2 has no request deadline: an idle connection gets its policy's GOAWAY.
        deadline = 0
        let nothingRead = evbuffer_get_length(input) == 0
        start(session)
        guard case .open = lifecycle else { return }
        // Its SETTINGS go out at once, before the peer's preface has arrived whole.
        if nothingRead, !session.flush() { return apply(.closeWhenFlushed) }
        if draining { apply(session.drain(evicting: false)) }
    }

    /// The listener's own protocol starts at once.
    private func open() {
        guard case .own(let make) = choice else { return }
        guard let session = try? make(self) else { return abort() }
        // The protocol keeps its own time (its heartbeats): no request deadline.
        deadline = 0
        start(session)
    }

    /// `session` carries the connection from now on, and takes what is already read.
    private func start(_ session: any Session) {
        self.session = session
        lifecycle = .open
        if evbuffer_get_length(input) > 0, !session.receive() { apply(.closeWhenFlushed) }
    }

    /// Hands the connection over to another session (after an HTTP/1.1 `101 Switching
    /// Protocols`): what the peer sent after the request that switched goes to the new one.
    func `switch`(to next: any Session) {
        guard case .open = lifecycle else { return }
        session?.connectionClosed()
        deadline = 0
        start(next)
    }

    /// Carries out what a session asked for.
    private func apply(_ end: SessionEnd) {
        switch end {
        case .goOn: break
        case .closeWhenFlushed: if session?.abandoned == true { abort() } else { closeWhenFlushed() }
        // An answer written in this turn may still wait for the turn's end: it goes first.
        case .finish: if pendingOutput > 0 { closeWhenFlushed() } else { finish() }
        case .cutOff: cutOff()
        }
    }

    // MARK: Time and shutdown

    /// The table's sweep: ends a connection past its deadline or whose peer stopped reading;
    /// the session applies its own bounds (HTTP/2: a closed window, its idle GOAWAY).
    func checkTime(now: UInt64) {
        if deadline != 0, now > deadline, !nextRequestUnread { return finish() }
        // Output waiting for the turn's end has not been offered to the peer yet.
        if pendingOutput > 0, !isTransmitDue, now - lastWritten > timeoutNanos { return cutOff() }
        guard let session, !isClosed else { return }
        apply(session.check(now: now, lastRead: lastRead, timeoutNanos: timeoutNanos, ending: isEnding))
    }

    /// A session waiting for its next request, with nothing of it read, while the socket holds
    /// bytes: a request sent in time that a turn longer than the deadline kept from being
    /// read. The read that follows takes it; what it starts is held to the same deadline.
    private var nextRequestUnread: Bool {
        guard case .open = lifecycle, session?.awaitsRequest == true, evbuffer_get_length(input) == 0 else { return false }
        return channel.hasUnreadBytes
    }

    /// Server shutdown (`draining` is now true): each session finishes as its protocol does
    /// (HTTP/1.1 answers close the connection and an idle one closes now; HTTP/2 peers get
    /// GOAWAY and finish their streams). A plain connection that sent nothing closes; one in
    /// its handshake gets GOAWAY if HTTP/2 starts (the drain period bounds the wait).
    func drain() {
        switch lifecycle {
        case .open: if let session { apply(session.drain(evicting: false)) }
        case .choosing: if evbuffer_get_length(input) == 0 { finish() }
        case .handshake, .closing, .lingering, .aborting, .closed: break
        }
    }

    // MARK: Closing

    /// Closes once what is queued has been sent and the peer has had a moment to close its
    /// side; what it sends meanwhile is dropped.
    func closeWhenFlushed() {
        switch lifecycle {
        case .closing, .lingering, .aborting, .closed: return
        case .handshake, .choosing, .open: break
        }
        lifecycle = .closing
        discardInput()
        if writeEvent?.isArmed == false, pendingOutput == 0 { shutWrite() }
        updateReading()
    }

    /// The last bytes are out: shut our side and linger for the peer's close.
    private func shutWrite() {
        guard case .closing = lifecycle else { return }
        lifecycle = .lingering
        channel.shutdownWrite()
        deadline = MonotonicClock.coarseNanos() + Self.lingerNanos
    }

    /// Ends the connection from the loop, with nothing more sent (a chaos drop, a failed
    /// write, a session that could not start).
    func abort() {
        switch lifecycle {
        case .aborting, .closed: return
        case .handshake, .choosing, .open, .closing, .lingering: break
        }
        lifecycle = .aborting
        discardInput()
        staged.removeAll()
        evbuffer_drain(output, evbuffer_get_length(output))
        setReading(false)
        writeEvent?.activate(Int32(EV_WRITE))
    }

    /// A peer that took nothing for `--timeout`: reset, so nothing more is kept for it.
    private func cutOff() {
        channel.resetOnClose()
        finish()
    }

    /// Stops all I/O and leaves the table; the socket closes when the last reference goes.
    func finish() {
        guard !isClosed else { return }
        lifecycle = .closed
        readEvent?.remove()
        writeEvent?.remove()
        nextTurn?.remove()
        // The session may hold this connection (HTTP/1.1 does): letting go of it ends the cycle.
        session?.connectionClosed()
        session = nil
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
