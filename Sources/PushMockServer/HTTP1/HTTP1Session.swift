internal import CLibevent
import Glibc
import PushMockCore

/// HTTP/1.1 (and 1.0) on one connection: requests are read one at a time (pipelined ones wait
/// in the input), each answered in order, exactly once. Framing errors are answered by the
/// gateway and end the connection.
final class HTTP1Session: Session {
    private enum State {
        /// Waiting for a request's head.
        case head
        /// Reading a `Content-Length` body.
        case body(HTTP1Head, length: Int)
        case chunked(HTTP1Head, ChunkedDecoder)
        /// A request is with the gateway (a long-poll, a delay, a stream): nothing more is read
        /// until it is answered.
        case answering(HTTP1Exchange)
        /// The last answer is written; the connection closes once it is sent.
        case closing
    }

    /// Held strongly (an exchange answered late may hold this session after its connection
    /// ended); the connection lets go of the session when it ends.
    private let connection: Connection
    private let dispatcher: RequestDispatcher
    private let context: ConnectionContext
    private var state = State.head
    /// Re-entrancy guard: an answer given while a request is being handled (a long-poll
    /// that is already satisfied) must not start reading the next request from inside.
    private var reading = false
    private var sentContinue = false
    private(set) var closed = false

    init(connection: Connection, context: ConnectionContext) {
        self.connection = connection
        self.dispatcher = connection.dispatcher
        self.context = context
    }

    /// Unread input a session lets wait (pipelined requests behind one being answered)
    /// before its connection stops reading.
    var inputLimit: Int { dispatcher.maxHeadBytes + dispatcher.maxBodyBytes + 64 * 1024 }

    /// Between requests, or reading a head: with no input unread, the next request has not
    /// begun.
    var awaitsRequest: Bool {
        guard !closed, case .head = state else { return false }
        return true
    }

    /// Idle: no request being answered. One still arriving (a head or a body part way) counts
    /// as idle too, so at the connection cap a client that stopped mid-request is closed
    /// before one that is being answered (`ConnectionTable` takes the one read from longest ago).
    var isIdle: Bool {
        guard !closed else { return false }
        switch state {
        case .head: return !holdsWholeHead
        case .body, .chunked: return true
        case .answering, .closing: return false
        }
    }

    /// Whether the unread input holds a whole head (a pipelined request left for the next
    /// turn), not only part of one: looked for at the cap only.
    private var holdsWholeHead: Bool {
        evbuffer_get_length(connection.input) > 0
            && ["\n\r\n", "\n\n"].contains { end in
                end.withCString { evbuffer_search(connection.input, $0, strlen($0), nil).pos >= 0 }
            }
    }

    /// Server shutdown: the next answer closes the connection, and an idle one closes now; at
    /// the connection cap it closes (HTTP/1.1 has no way to say goodbye).
    func drain(evicting: Bool) -> SessionEnd { evicting || nothingUnderWay ? .finish : .goOn }

    /// No request under way, nothing unread: at shutdown it closes now.
    private var nothingUnderWay: Bool {
        guard case .head = state, !closed else { return false }
        return evbuffer_get_length(connection.input) == 0
    }

    /// The connection ended: answers still to come go nowhere.
    func connectionClosed() {
        closed = true
        // Lets go of a waiting exchange (which holds this session).
        state = .closing
    }

    // MARK: Reading

    /// Reads and handles every whole request in the input, in order. It ends the connection
    /// itself (after its last answer), so it always goes on.
    func receive() -> Bool {
        guard !reading, !closed else { return true }
        reading = true
        defer { reading = false }
        while !closed, step(connection.input) {}
        return true
    }

    /// Advances by one state; false when it has to wait for more bytes or for an answer.
    private func step(_ input: OpaquePointer) -> Bool {
        let available = evbuffer_get_length(input)
        switch state {
        case .head:
            // A pipelined request waits while earlier answers are unsent past the bound, and
            // for the next turn once this one's time is spent.
            guard available > 0, connection.pendingOutput < Connection.maxPendingOutput else { return false }
            if connection.turnSpent {
                connection.resumeInput()
                return false
            }
            let scanned = min(available, dispatcher.maxHeadBytes)
            let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, scanned), count: scanned)
            switch dispatcher.parseHead(bytes) {
            case .incomplete:
                return false
            case .invalid:
                fail(.malformed, HTTP1HeadParser.requestLine(of: bytes))
                return false
            case .head(let head, let length):
                evbuffer_drain(input, length)
                sentContinue = false
                switch head.framing {
                case .none: dispatch(head, body: [])
                case .length(let n) where n > dispatcher.maxBodyBytes: fail(.tooLarge, request(head))
                // A body that came with its head (nearly every one) is read at once; the state
                // keeps the head only while the rest is on its way.
                case .length(let n) where evbuffer_get_length(input) >= n: dispatch(head, body: Self.take(n, from: input))
                case .length(let n): state = .body(head, length: n)
                case .chunked: state = .chunked(head, ChunkedDecoder(maxBytes: dispatcher.maxBodyBytes))
                }
                return true
            }
        case .body(let head, let length):
            guard available >= length else {
                continueIfExpected(head)
                return false
            }
            dispatch(head, body: Self.take(length, from: input))
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
            case .invalid: fail(.malformed, request(head))
            case .tooLarge: fail(.tooLarge, request(head))
            }
            return true
        case .answering, .closing:
            return false
        }
    }

    private func continueIfExpected(_ head: HTTP1Head) {
        guard head.expectsContinue, !sentContinue else { return }
        sentContinue = true
        Self.continueLine.withUnsafeBytes { connection.write($0) }
    }

    /// The next `length` bytes of the input, removed from it. A body the input's first chunk
    /// holds whole (nearly every one) is copied by `Array`'s initializer from a buffer, whose
    /// storage type is known when compiled; `init(unsafeUninitializedCapacity:)` looks it up
    /// in the runtime on every call, which costs more than the copy (docs/PERFORMANCE.md).
    private static func take(_ length: Int, from input: OpaquePointer) -> [UInt8] {
        guard length > 0 else { return [] }
        if evbuffer_get_contiguous_space(input) >= length, let bytes = evbuffer_pullup(input, length) {
            let body = Array(UnsafeBufferPointer(start: bytes, count: length))
            evbuffer_drain(input, length)
            return body
        }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            count = Int(evbuffer_remove(input, buffer.baseAddress, length))
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private func request(_ head: HTTP1Head, body: [UInt8] = []) -> Request {
        Request(
            method: head.method, target: head.target, headers: head.headers, body: body, secure: context.isTLS,
            connection: context)
    }

    /// Hands a whole request to the gateway; the common answer is written at once.
    private func dispatch(_ head: HTTP1Head, body: [UInt8]) {
        connection.deadline = 0
        let reply = dispatcher.handle(request(head, body: body), on: connection)
        if case .response(let response) = reply {
            answer(response, to: head)
            dispatcher.noteChanges()
        } else if case .webSocket(let endpoint) = reply {
            openWebSocket(request(head), head, endpoint)
        } else {
            let exchange = HTTP1Exchange(session: self, head: head)
            state = .answering(exchange)
            dispatcher.carry(reply, to: exchange, stream: exchange)
        }
    }

    /// A route took a WebSocket opening handshake: if it is a valid one, `101 Switching
    /// Protocols` and the connection goes on as a `WebSocketSession`; else the refusal.
    private func openWebSocket(_ request: Request, _ head: HTTP1Head, _ endpoint: any MessageEndpoint) {
        let (response, opens) = WebSocketHandshake.answer(request, isHTTP10: head.isHTTP10)
        guard opens, !connection.draining else {
            return answer(opens ? .text(503, "The server is shutting down.") : response, to: head)
        }
        dispatcher.encode(response, to: head, close: false) { connection.write($0) }
        let session = WebSocketSession(connection: connection, endpoint: endpoint)
        session.open()
        connection.switch(to: session)
    }

    /// A request that cannot be read whole: the gateway's answer, then the connection closes.
    private func fail(_ error: FramingError, _ request: Request?) {
        answer(dispatcher.framingError(error, request), to: HTTP1Head(method: "GET", target: "/", keepAlive: false))
    }

    // MARK: Writing

    /// Writes the answer to the request `head`; then reads on, or closes.
    func answer(_ response: Response, to head: HTTP1Head) {
        guard !closed else { return }
        let close = !head.keepAlive || connection.draining
        dispatcher.encode(response, to: head, close: close) { connection.write($0) }
        finishExchange(close: close)
    }

    /// After an answer (or a stream's end): the next request may come, or the connection ends.
    func finishExchange(close: Bool) {
        guard !closed else { return }
        if close {
            state = .closing
            connection.closeWhenFlushed()
        } else {
            state = .head
            connection.deadline = MonotonicClock.coarseNanos() + connection.timeoutNanos
            // Requests already read (pipelined) are taken up by the read loop when it is
            // running; otherwise from the event loop, never from inside another request.
            if !reading, evbuffer_get_length(connection.input) > 0 { connection.resumeInput() }
        }
    }

    func write(_ bytes: [UInt8]) {
        guard !closed else { return }
        bytes.withUnsafeBytes { connection.write($0) }
    }

    /// The peer took all output: pipelined requests held back may go on.
    func outputDrained() -> Bool {
        if case .head = state, !closed, evbuffer_get_length(connection.input) > 0 { return receive() }
        return true
    }

    /// Ends the connection with no answer.
    func abort() {
        guard !closed else { return }
        connection.abort()
    }

    var pendingOutput: Int { closed ? 0 : connection.pendingOutput }

    /// The exchange `exchange` was answered or ended, if it is still this session's.
    func isCurrent(_ exchange: HTTP1Exchange) -> Bool {
        if case .answering(let current) = state, current === exchange, !closed { return true }
        return false
    }
}

/// A request answered later: parked, delayed, streamed or dropped.
final class HTTP1Exchange: Responder, StreamResponder {
    private let session: HTTP1Session
    private let head: HTTP1Head
    /// Streams: whether the body is sent in chunks (HTTP/1.1) or until the connection ends.
    private var chunked = false

    init(session: HTTP1Session, head: HTTP1Head) {
        self.session = session
        self.head = head
    }

    func respond(_ response: Response) {
        guard session.isCurrent(self) else { return }
        session.answer(response, to: head)
    }

    /// HTTP/1.1 has no GOAWAY: both modes close the connection with no answer.
    func drop(_ mode: DropMode) {
        guard session.isCurrent(self) else { return }
        session.abort()
    }

    func begin(_ head: Response) {
        guard session.isCurrent(self) else { return }
        chunked = !self.head.isHTTP10
        session.write(HTTP1Encoder.streamHead(head, to: self.head, chunked: chunked))
    }

    func send(_ bytes: [UInt8]) {
        guard session.isCurrent(self), !bytes.isEmpty else { return }
        session.write(chunked ? HTTP1Encoder.chunk(bytes) : bytes)
    }

    func end() {
        guard session.isCurrent(self) else { return }
        if chunked { session.write(HTTP1Encoder.lastChunk) }
        session.finishExchange(close: !chunked || !head.keepAlive)
    }

    var isGone: Bool { !session.isCurrent(self) }

    var pendingBytes: Int { session.pendingOutput }
    var connectionPendingBytes: Int { session.pendingOutput }

    func cutOff() {
        guard session.isCurrent(self) else { return }
        session.abort()
    }
}
