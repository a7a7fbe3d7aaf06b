internal import CLibevent
import Glibc
import PushMockCore

/// One HTTP/1.1 client connection on a libevent bufferevent: requests are read one at a time
/// (pipelined ones wait in the input buffer), each answered in order, exactly once.
final class HTTP1Connection {
    private enum State {
        /// Waiting for a request's head.
        case head
        /// Reading a `Content-Length` body.
        case body(HTTP1Head, length: Int)
        case chunked(HTTP1Head, ChunkedDecoder)
        /// A request is with the gateway (a long-poll, a delay, a stream): nothing more is read
        /// until it is answered.
        case answering(HTTP1Exchange)
        /// The last answer is written; the connection ends once it is sent. What the client
        /// still sends is read and dropped (up to a limit), so the answer is not lost to a
        /// reset.
        case closing
    }

    private unowned let door: HTTPFrontDoor
    /// nil once closed.
    private(set) var bev: OpaquePointer?
    private let fd: Int32
    private var state = State.head
    /// Re-entrancy guard: an answer given while a request is being handled (a long-poll
    /// that is already satisfied) must not start reading the next request from inside.
    private var reading = false
    private var sentContinue = false
    /// What a closing connection has read and dropped.
    private var lingerBytes = 0
    /// When the next request must have arrived whole (monotonic ns), counted from the
    /// connection's opening or its last answer; 0 while a request waits for its answer.
    private(set) var deadline: UInt64
    /// When output last drained (monotonic ns): a client that stops reading is cut off.
    private(set) var lastDrained: UInt64

    init(door: HTTPFrontDoor, bev: OpaquePointer, fd: Int32, now: UInt64) {
        self.door = door
        self.bev = bev
        self.fd = fd
        deadline = now + door.timeoutNanos
        lastDrained = now
    }

    var pendingOutput: Int { bev.map { evbuffer_get_length(bufferevent_get_output($0)) } ?? 0 }

    /// Idle: no request under way, nothing unread.
    var isIdle: Bool {
        guard case .head = state, let bev else { return false }
        return evbuffer_get_length(bufferevent_get_input(bev)) == 0
    }

    func close() {
        guard bev != nil else { return }
        release()
        door.closed(self)
    }

    /// Closes without telling the front door (which is going away).
    func release() {
        guard let bev else { return }
        bufferevent_free(bev)
        self.bev = nil
        // Lets go of a waiting exchange (which holds this connection).
        state = .closing
    }

    // MARK: Reading

    /// Reads and handles every whole request in the input, in order.
    func readable() {
        guard !reading else { return }
        reading = true
        defer { reading = false }
        while let bev, step(bufferevent_get_input(bev)) {}
    }

    /// Advances by one state; false when it has to wait for more bytes or for an answer.
    private func step(_ input: OpaquePointer) -> Bool {
        let available = evbuffer_get_length(input)
        switch state {
        case .head:
            guard available > 0 else { return false }
            let scanned = min(available, door.parser.maxHeadBytes)
            switch door.parser.parse(UnsafeRawBufferPointer(start: evbuffer_pullup(input, scanned), count: scanned)) {
            case .incomplete:
                return false
            case .invalid:
                fail(400)
                return false
            case .head(let head, let length):
                evbuffer_drain(input, length)
                sentContinue = false
                switch head.framing {
                case .none: dispatch(head, body: [])
                case .length(let n) where n > door.maxBodyBytes: fail(413)
                case .length(let n): state = .body(head, length: n)
                case .chunked: state = .chunked(head, ChunkedDecoder(maxBytes: door.maxBodyBytes))
                }
                return true
            }
        case .body(let head, let length):
            guard available >= length else {
                continueIfExpected(head)
                return false
            }
            let body = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                count = length == 0 ? 0 : Int(evbuffer_remove(input, buffer.baseAddress, length))
            }
            dispatch(head, body: body)
            return true
        case .chunked(let head, var decoder):
            guard available > 0 else {
                continueIfExpected(head)
                return false
            }
            // A contiguous piece at a time: the buffer's first chain, or more when a line
            // runs past its end.
            var vec = iovec()
            guard evbuffer_peek(input, -1, nil, &vec, 1) > 0, let start = vec.iov_base else { return false }
            // The decoder leaves `state` while its body grows: a copy left there would make
            // every append copy the whole body.
            state = .closing
            var (consumed, outcome) = decoder.feed(UnsafeRawBufferPointer(start: start, count: vec.iov_len))
            if consumed == 0, outcome == .needMore, available > vec.iov_len {
                let n = min(available, vec.iov_len + ChunkedDecoder.maxLine + 2)
                (consumed, outcome) = decoder.feed(UnsafeRawBufferPointer(start: evbuffer_pullup(input, n), count: n))
            }
            evbuffer_drain(input, consumed)
            switch outcome {
            case .needMore:
                state = .chunked(head, decoder)
                if consumed == 0 { continueIfExpected(head) }
                return consumed > 0
            case .done: dispatch(head, body: decoder.body)
            case .invalid: fail(400)
            case .tooLarge: fail(413)
            }
            return true
        case .answering:
            return false
        case .closing:
            evbuffer_drain(input, available)
            lingerBytes += available
            // Enough to let a client see its answer; the rest of a huge body is not read.
            if lingerBytes > door.maxLingerBytes { close() }
            return false
        }
    }

    private func continueIfExpected(_ head: HTTP1Head) {
        guard head.expectsContinue, !sentContinue, let bev else { return }
        sentContinue = true
        _ = Self.continueLine.withUnsafeBytes { bufferevent_write(bev, $0.baseAddress, $0.count) }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Hands a whole request to the gateway; the common answer is written at once.
    private func dispatch(_ head: HTTP1Head, body: [UInt8]) {
        deadline = 0
        let reply = door.handle(head, body: body)
        if case .response(let response) = reply {
            answer(response, to: head)
            door.noteChanges()
        } else {
            let exchange = HTTP1Exchange(connection: self, head: head)
            state = .answering(exchange)
            door.carry(reply, exchange)
        }
    }

    /// A malformed or too large request: Google's front end answers with its HTML page and
    /// closes.
    private func fail(_ status: Int) {
        answer(GoogleFrontEnd.framingError(status), to: HTTP1Head(method: "GET", target: "/", keepAlive: false))
    }

    // MARK: Writing

    /// Writes the answer to the request `head`; then reads on, or closes.
    func answer(_ response: Response, to head: HTTP1Head) {
        guard bev != nil else { return }
        let close = !head.keepAlive || door.draining
        write(door.encoder.answer(response, to: head, close: close))
        finishExchange(close: close)
    }

    /// After an answer (or a stream's end): the next request may come, or the connection ends.
    func finishExchange(close: Bool) {
        guard bev != nil else { return }
        if close {
            state = .closing
            closeWhenSent()
        } else {
            state = .head
            deadline = MonotonicClock.nanos() + door.timeoutNanos
            // Requests already read (pipelined) are taken up by the read loop when it is
            // running; otherwise from the event loop, never from inside another request.
            if !reading, let bev, evbuffer_get_length(bufferevent_get_input(bev)) > 0 {
                bufferevent_trigger(
                    bev, Int16(EV_READ), Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue | BEV_TRIG_DEFER_CALLBACKS.rawValue))
            }
        }
    }

    /// Sends `bytes`: straight to the socket when nothing is queued before them (no write
    /// event to arm and disarm), the rest through the bufferevent's output.
    func write(_ bytes: [UInt8]) {
        guard let bev else { return }
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return }
            var sent = 0
            if evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
                let n = send(fd, base, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                if n > 0 { sent = n } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK { return }
                // What the client leaves unread is timed from now.
                if sent < raw.count { lastDrained = MonotonicClock.nanos() }
            }
            if sent < raw.count { bufferevent_write(bev, base + sent, raw.count - sent) }
        }
    }

    /// Ends the connection once its output is sent: a half-close, then the client's own
    /// close (or the sweep) ends it.
    private func closeWhenSent() {
        guard pendingOutput == 0 else { return }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        deadline = MonotonicClock.nanos() + door.lingerNanos
    }

    fileprivate func drained() {
        lastDrained = MonotonicClock.nanos()
        if case .closing = state { closeWhenSent() }
    }

    fileprivate func ended() { close() }

    /// The exchange `exchange` was answered or ended, if it is still this connection's.
    func isCurrent(_ exchange: HTTP1Exchange) -> Bool {
        if case .answering(let current) = state, current === exchange, bev != nil { return true }
        return false
    }
}

/// A request answered later: parked, delayed, streamed or dropped.
final class HTTP1Exchange: Responder, StreamResponder {
    private let connection: HTTP1Connection
    private let head: HTTP1Head
    /// Streams: whether the body is sent in chunks (HTTP/1.1) or until the connection ends.
    private var chunked = false

    init(connection: HTTP1Connection, head: HTTP1Head) {
        self.connection = connection
        self.head = head
    }

    func respond(_ response: Response) {
        guard connection.isCurrent(self) else { return }
        connection.answer(response, to: head)
    }

    /// HTTP/1.1 has no GOAWAY: both modes close the connection with no answer.
    func drop(_ mode: DropMode) {
        guard connection.isCurrent(self) else { return }
        connection.close()
    }

    func begin(_ head: Response) {
        guard connection.isCurrent(self) else { return }
        chunked = !self.head.isHTTP10
        connection.write(HTTP1Encoder.streamHead(head, to: self.head, chunked: chunked))
    }

    func send(_ bytes: [UInt8]) {
        guard connection.isCurrent(self), !bytes.isEmpty else { return }
        connection.write(chunked ? HTTP1Encoder.chunk(bytes) : bytes)
    }

    func end() {
        guard connection.isCurrent(self) else { return }
        if chunked { connection.write(HTTP1Encoder.lastChunk) }
        connection.finishExchange(close: !chunked || !head.keepAlive)
    }

    var isGone: Bool { !connection.isCurrent(self) }

    var pendingBytes: Int { connection.pendingOutput }

    func cutOff() {
        guard connection.isCurrent(self) else { return }
        connection.close()
    }
}

// The bufferevent's callbacks; the argument is the connection, which its front door keeps
// until it closes (maybe during the callback).

func http1Read(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: HTTP1Connection) in c.readable() }
}
func http1Write(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: HTTP1Connection) in c.drained() }
}
func http1Event(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    withCallbackTarget(arg) { (c: HTTP1Connection) in c.ended() }
}
