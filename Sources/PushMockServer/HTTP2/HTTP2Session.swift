internal import CLibevent
internal import CNghttp2
import Glibc
import PushMockCore

/// HTTP/2 on one connection (an nghttp2 server session), over TLS or h2c. Streams become
/// `Request`s when their last frame arrives; replies go out as HEADERS (+ DATA for a body).
/// Memory is bounded: at most the policy's streams at once, `maxHeaderBytes` of headers each,
/// `maxBufferedBytes` of unanswered request data in all; frames are made only while less
/// than `Connection.maxPendingOutput` waits to be sent, and while answers' bodies not yet
/// taken by the peer (its flow-control window) reach that bound, further requests wait
/// instead of being answered ahead.
final class HTTP2Session {
    static let maxHeaderBytes = 64 * 1024
    static let maxBufferedBytes = 8 << 20
    /// A connection whose streams keep failing is ended (GOAWAY `ENHANCE_YOUR_CALM`) once more
    /// than this many ended in an error, and more than completed.
    static let maxResetStreams = 100

    /// Freed in deinit.
    private var session: OpaquePointer?
    /// The connection owns this session and outlives it (unchecked, as `HTTP2Stream.session`).
    private unowned(unsafe) let connection: Connection
    private let dispatcher: RequestDispatcher
    let context: ConnectionContext
    /// The gateway's rules for this connection: streams offered, idle close.
    let policy: HTTP2Policy
    /// The policy's full stream count has been offered.
    private var streamsRaised: Bool
    /// Open streams by id; loop thread only.
    private var streamTable = StreamTable<HTTP2Stream>()
    private var bufferedBytes = 0
    /// The connection's last request head, reused while requests repeat it.
    private var headerBlocks = HeaderBlockCache()
    /// Set while nghttp2 processes input: answers given meanwhile are written once, after.
    private var receiving = false
    /// The stream whose header block is being received (saves a table lookup per field), not
    /// retained: the table holds it, and `streamClosed` clears this with the table's entry.
    private var receivingHeaders: Unmanaged<HTTP2Stream>?
    /// Reused for each answer's header block.
    private var fields = ResponseFields()
    private(set) var goingAway = false
    /// Answer bytes made and not yet taken by nghttp2, over every stream, and when that last
    /// moved (monotonic ns, from the coarse clock: every stream sets it): a peer that takes none
    /// for `--timeout` is cut off.
    private(set) var unsentBody = 0
    private var lastBodyProgress: UInt64 = 0
    /// Whole requests waiting for `unsentBody` to fall below the bound, oldest first.
    private var waiting: [HTTP2Stream] = []
    /// Set while waiting requests are answered: their answers are sent once, after.
    private var resuming = false
    /// Streams that ended with an error (reset by either side), and streams that completed.
    private var resetStreams = 0
    private var answeredStreams = 0
    /// A chaos drop asked for the connection to end at once, with no answer.
    private(set) var abandoned = false

    init(connection: Connection, context: ConnectionContext, policy: HTTP2Policy) throws(ServerError) {
        self.connection = connection
        dispatcher = connection.dispatcher
        self.context = context
        self.policy = policy
        streamsRaised = policy.initialStreams >= policy.streams
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw ServerError.nghttp2("nghttp2_session_callbacks_new")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2BeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2Header)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2DataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2FrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2StreamClosed)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw ServerError.nghttp2("nghttp2_option_new") }
        defer { nghttp2_option_del(option) }
        // Floods of SETTINGS or PING whose ACKs the peer never reads, and rapid resets,
        // end the connection (nghttp2's limits, stated here so they are visible).
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_settings(option, 32)
        nghttp2_option_set_stream_reset_rate_limit(option, 1000, 33)
        nghttp2_option_set_max_continuations(option, 8)
        var s: OpaquePointer?
        guard nghttp2_session_server_new2(&s, callbacks, Unmanaged.passUnretained(self).toOpaque(), option) == 0 else {
            throw ServerError.nghttp2("nghttp2_session_server_new2")
        }
        session = s
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: policy.initialStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(Self.maxHeaderBytes)),
        ]
        guard nghttp2_submit_settings(s, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            throw ServerError.nghttp2("nghttp2_submit_settings")
        }
    }

    /// No stream open.
    /// No request being worked on: streams whose request is still arriving do not count, so
    /// at the connection cap a connection that only holds stalled requests is closed before
    /// one that works (`ConnectionTable`).
    var isIdle: Bool { !streamTable.contains { !$0.isArriving } }
    /// The connection sweeps (one a second) this session has seen: stream ages are counted
    /// in them, so opening a stream reads no clock.
    private var sweeps: UInt64 = 0

    /// Offers the policy's full stream count once the gateway has let the connection past
    /// its start-up limit.
    private func raiseStreamsIfAuthenticated() {
        guard !streamsRaised, context.authenticated else { return }
        streamsRaised = true
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: policy.streams)
        // It fails only when out of memory: the connection ends rather than stay at one stream.
        if nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1) != 0 { abandoned = true }
    }

    deinit {
        // Streams still held elsewhere (a parked answer) must not reach this session again.
        for stream in streamTable.all { stream.closed = true }
        nghttp2_session_del(session)
    }

    /// Feeds what arrived; returns false when the connection must close.
    func receive(_ input: OpaquePointer) -> Bool {
        receiving = true
        defer { receiving = false }
        while true {
            let n = evbuffer_get_contiguous_space(input)
            guard n > 0, let bytes = evbuffer_pullup(input, n) else { break }
            let used = nghttp2_session_mem_recv(session, bytes, n)
            guard used >= 0 else { return false }
            evbuffer_drain(input, n)
            if resetStreams > Self.maxResetStreams, resetStreams > answeredStreams {
                // Streams that keep failing: the peer is told why, and nothing more is read.
                evbuffer_drain(input, evbuffer_get_length(input))
                if nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue) != 0 { abandoned = true }
                receiving = false
                flush()
                return false
            }
        }
        receiving = false // before the flush: what it sends may let streams answer (the defer covers failures)
        return flush()
    }

    /// `flush()`, unless input is being processed or waiting requests are being answered:
    /// `receive` and `flush` then send once for all the answers given meanwhile.
    func flushUnlessBatching() {
        if !receiving, !resuming { flush() }
    }

    /// Sends what nghttp2 has queued, up to the output bound, then answers requests waiting
    /// for room and sends those answers; returns false when the session is over (an error,
    /// or GOAWAY sent and no stream left) and the connection should close once the output
    /// is sent.
    @discardableResult
    func flush() -> Bool {
        guard send() else { return false }
        // Requests waiting for room are answered a batch at a time, each batch's answers
        // sent before the next is taken up; out of time, the rest wait for the next turn.
        while resumeWaiting() > 0 {
            guard send() else { return false }
            if waiting.isEmpty || abandoned { break }
            if connection.turnSpent {
                connection.resumeInput()
                break
            }
        }
        // Back-pressure: reading pauses while the peer is not reading what we send.
        connection.updateReading()
        if abandoned { return false }
        if goingAway, streamTable.isEmpty { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// Moves what nghttp2 has queued to the connection's output and sends it, up to the
    /// output bound; false on an error.
    private func send() -> Bool {
        while true {
            while connection.pendingOutput < Connection.maxPendingOutput {
                var data: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &data)
                guard n >= 0 else { return false }
                guard n > 0, let data else { break }
                guard connection.queue(data, n) else { return false }
            }
            let full = connection.pendingOutput >= Connection.maxPendingOutput
            // Full: send now, even while input is handed over, to make room for more.
            if full { connection.transmit() } else { connection.flush() }
            // Everything went and nghttp2 has more: go on; else the connection calls again
            // once the peer has taken what is waiting.
            if !full || connection.pendingOutput > 0 { return true }
        }
    }

    /// Announces the end: no new streams; open ones finish. `debugData` tells the peer why.
    /// Returns `flush()`'s answer.
    @discardableResult
    func goAway(debugData: [UInt8] = []) -> Bool {
        guard !goingAway else { return flush() }
        goingAway = true
        let last = nghttp2_session_get_last_proc_stream_id(session)
        let rc = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, NGHTTP2_NO_ERROR.rawValue, debugData, debugData.count)
        // It fails only when out of memory: the connection then ends without its GOAWAY.
        if rc != 0 { abandoned = true }
        return flush()
    }

    // MARK: nghttp2 callbacks (through the free functions below)

    fileprivate func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
            frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
        else { return 0 }
        let stream = HTTP2Stream(id: frame.pointee.hd.stream_id, session: self)
        stream.openedAtSweep = sweeps
        streamTable.insert(stream, id: stream.id)
        receivingHeaders = Unmanaged.passUnretained(stream)
        return 0
    }

    fileprivate func header(
        _ frame: UnsafePointer<nghttp2_frame>, _ name: UnsafeBufferPointer<UInt8>,
        _ value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        let id = frame.pointee.hd.stream_id
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        if let receiving = receivingHeaders, receiving._withUnsafeGuaranteedRef({ $0.id == id }) {
            return receiving._withUnsafeGuaranteedRef { take(frame, $0, name, value) }
        }
        guard let stream = streamTable[id] else { return 0 }
        return take(frame, stream, name, value)
    }

    /// One field of `stream`'s header block (or trailers), within the bounds on headers.
    private func take(
        _ frame: UnsafePointer<nghttp2_frame>, _ stream: HTTP2Stream, _ name: UnsafeBufferPointer<UInt8>,
        _ value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        let size = name.count + value.count + 32
        stream.headerBytes += size
        bufferedBytes += size
        guard stream.headerBytes <= Self.maxHeaderBytes, bufferedBytes <= Self.maxBufferedBytes else {
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        if frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
            headerBlocks.receive(stream, at: stream.fieldCount, name, value)
            stream.fieldCount += 1
        } else {
            stream.addTrailer(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        return 0
    }

    fileprivate func dataChunk(_ streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streamTable[streamID] else { return 0 }
        let room = dispatcher.maxBodyBytes + 1 - stream.body.count
        if room > 0 {
            let taken = min(room, data.count)
            bufferedBytes += taken
            guard bufferedBytes <= Self.maxBufferedBytes else {
                return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
            }
            // Most bodies come in one DATA frame: then the array is made at its size.
            let chunk = UnsafeBufferPointer(rebasing: data.prefix(taken))
            if stream.body.isEmpty { stream.body = Array(chunk) } else { stream.body.append(contentsOf: chunk) }
        }
        return 0
    }

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let type = frame.pointee.hd.type
        let id = frame.pointee.hd.stream_id
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
            let stream = stream(id)
        else { return 0 }
        if type == UInt8(NGHTTP2_HEADERS.rawValue) {
            receivingHeaders = nil
            if frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST { headerBlocks.finish(stream, count: stream.fieldCount) }
        }
        guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, !stream.dispatched, !stream.waiting
        else { return 0 }
        if unsentBody >= Connection.maxPendingOutput || !waiting.isEmpty || connection.turnSpent {
            stream.waiting = true
            waiting.append(stream)
            // Taken up in a later turn, once there is room and time (`resumeWaiting`).
            connection.resumeInput()
            return 0
        }
        dispatch(stream)
        // A dropped connection fails the read, and the connection closes at once.
        return abandoned ? NGHTTP2_ERR_CALLBACK_FAILURE.rawValue : 0
    }

    /// Hands a whole request to the gateway.
    private func dispatch(_ stream: HTTP2Stream) {
        stream.dispatched = true
        bufferedBytes -= stream.headerBytes + stream.body.count
        var request = stream.request(context)
        if stream.body.count > dispatcher.maxBodyBytes {
            request.body = []
            respond(stream, dispatcher.framingError(.tooLarge, request))
            return
        }
        dispatcher.carry(dispatcher.handle(request, on: connection), to: stream, stream: stream)
        raiseStreamsIfAuthenticated()
    }

    /// Answers waiting requests while the unsent bodies are below the bound and the turn's
    /// time lasts (at least one a call); returns how many.
    private func resumeWaiting() -> Int {
        guard !resuming, !waiting.isEmpty else { return 0 }
        resuming = true
        defer { resuming = false }
        var next = 0
        while next < waiting.count, unsentBody < Connection.maxPendingOutput, !abandoned {
            if next > 0, connection.turnSpent { break }
            let stream = waiting[next]
            next += 1
            stream.waiting = false
            if !stream.closed { dispatch(stream) }
        }
        waiting.removeFirst(next)
        return next
    }

    /// Whether whole requests wait to be answered (for room, or for the next turn).
    var hasWaiting: Bool { !waiting.isEmpty }

    /// Whether answers wait on a peer that has taken none of them for `timeout` (its window
    /// closed, or its socket unread).
    func isStalled(now: UInt64, timeout: UInt64) -> Bool {
        unsentBody > 0 && now - lastBodyProgress > timeout
    }

    /// More answer bytes for `stream`, counted until nghttp2 takes them.
    func addBody(_ stream: HTTP2Stream, _ bytes: [UInt8]) {
        if unsentBody == 0 { lastBodyProgress = MonotonicClock.coarseNanos() }
        unsentBody += bytes.count
        // An answer's body is shared with the stream, not copied, unless more came before.
        if stream.responseBody.isEmpty { stream.responseBody = bytes } else { stream.responseBody.append(contentsOf: bytes) }
    }

    /// The stream with `id`: the one receiving its header block, else the table's.
    private func stream(_ id: Int32) -> HTTP2Stream? {
        if let receiving = receivingHeaders?.takeUnretainedValue(), receiving.id == id { return receiving }
        return streamTable[id]
    }

    fileprivate func streamClosed(_ streamID: Int32, _ error: UInt32) -> Int32 {
        if error == NGHTTP2_NO_ERROR.rawValue { answeredStreams += 1 } else { resetStreams += 1 }
        if receivingHeaders?.takeUnretainedValue().id == streamID { receivingHeaders = nil }
        if let stream = streamTable.remove(streamID) {
            if !stream.dispatched { bufferedBytes -= stream.headerBytes + stream.body.count }
            unsentBody -= stream.pendingBytes
            stream.closed = true
        }
        return 0
    }

    /// Sends `response` on `stream`: HEADERS, then the body as DATA if there is one. A
    /// streaming response (`stream.streaming`) gets a body that grows until `end()`.
    func respond(_ stream: HTTP2Stream, _ response: Response) {
        guard !stream.closed, session != nil else { return }
        if !stream.streaming, stream.head.method != "HEAD" { addBody(stream, response.body) }
        fields.start(status: response.status)
        for (name, value) in response.headers where !HTTP2Stream.isConnectionHeader(name) { fields.add(name, value) }
        if !stream.responseBody.isEmpty, !stream.streaming { fields.add("content-length", stream.responseBody.count) }
        let hasBody = !stream.responseBody.isEmpty || stream.streaming
        let rc = fields.withNameValues { nva, count in
            if hasBody {
                var provider = nghttp2_data_provider()
                provider.read_callback = h2ReadBody
                return nghttp2_submit_response(session, stream.id, nva, count, &provider)
            }
            return nghttp2_submit_response(session, stream.id, nva, count, nil)
        }
        // Refused (the stream is gone, or memory ran out): the body is not kept for it, and the
        // stream is reset so the peer is not left waiting.
        if rc != 0 {
            unsentBody -= stream.responseBody.count - stream.responseOffset
            stream.responseBody = []
            stream.responseOffset = 0
            reset(stream)
        }
    }

    /// Chaos: ends the connection without answering `stream`. `close` ends it at once (the
    /// request being processed fails the read); `goaway` sends a GOAWAY whose last stream id
    /// is below this stream's, so nghttp2 refuses it (and any later one) and the client knows
    /// it was not processed; the connection closes when the streams left are done.
    func drop(_ stream: HTTP2Stream, _ mode: DropMode) {
        guard !stream.closed, session != nil else { return }
        switch mode {
        case .close:
            abandoned = true
        case .goaway:
            goingAway = true
            let rc = nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), max(0, stream.id - 2), NGHTTP2_NO_ERROR.rawValue, nil, 0)
            // Out of memory: the drop becomes a close.
            if rc != 0 { abandoned = true }
            flush()
        }
    }

    /// More body for a deferred (streaming) response is ready.
    func resume(_ stream: HTTP2Stream) {
        guard !stream.closed else { return }
        // It fails when the stream's data is not deferred (it is being sent, or the stream is
        // gone): then there is nothing to resume, and the flush sends what is ready.
        _ = nghttp2_session_resume_data(session, stream.id)
        flush()
    }

    /// Ends a stream at once (a client too slow for its event stream).
    func reset(_ stream: HTTP2Stream) {
        guard !stream.closed else { return }
        // Out of memory: the connection ends instead of the stream.
        if nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_CANCEL.rawValue) != 0 {
            abandoned = true
        }
        flush()
    }

    fileprivate func readBody(
        _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ length: Int,
        _ flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streamTable[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let n = min(length, stream.responseBody.count - stream.responseOffset)
        if n == 0, stream.streaming, !stream.ended { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
        stream.responseBody.withUnsafeBufferPointer {
            buffer.update(from: $0.baseAddress! + stream.responseOffset, count: n)
        }
        stream.responseOffset += n
        unsentBody -= n
        if n > 0 { lastBodyProgress = MonotonicClock.coarseNanos() }
        if stream.responseOffset == stream.responseBody.count {
            if !stream.streaming || stream.ended { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            // A stream of events keeps its room for the next; an answer lets go of its body
            // (shared with the answer, so keeping its room would copy it).
            if stream.streaming { stream.responseBody.removeAll(keepingCapacity: true) } else { stream.responseBody = [] }
            stream.responseOffset = 0
        }
        return n
    }
}

/// Runs `body` on the session behind nghttp2's user pointer without retaining it: the
/// session owns the nghttp2 session that calls back, so it outlives every callback.
private func withSession<R>(_ user: UnsafeMutableRawPointer?, _ otherwise: R, _ body: (HTTP2Session) -> R) -> R {
    guard let user else { return otherwise }
    return Unmanaged<HTTP2Session>.fromOpaque(user)._withUnsafeGuaranteedRef(body)
}

private func h2BeginHeaders(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ user: UnsafeMutableRawPointer?)
    -> Int32
{
    guard let frame else { return 0 }
    return withSession(user, 0) { $0.beginHeaders(frame) }
}

private func h2Header(
    _ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ namelen: Int,
    _ value: UnsafePointer<UInt8>?, _ valuelen: Int, _ flags: UInt8, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name, let value else { return 0 }
    return withSession(user, 0) {
        $0.header(frame, UnsafeBufferPointer(start: name, count: namelen), UnsafeBufferPointer(start: value, count: valuelen))
    }
}

private func h2DataChunk(
    _ s: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ len: Int,
    _ user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let data else { return 0 }
    return withSession(user, 0) { $0.dataChunk(streamID, UnsafeBufferPointer(start: data, count: len)) }
}

private func h2FrameReceived(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ user: UnsafeMutableRawPointer?)
    -> Int32
{
    guard let frame else { return 0 }
    return withSession(user, 0) { $0.frameReceived(frame) }
}

private func h2StreamClosed(_ s: OpaquePointer?, _ streamID: Int32, _ error: UInt32, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withSession(user, 0) { $0.streamClosed(streamID, error) }
}

private func h2ReadBody(
    _ s: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    return withSession(user, Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)) { $0.readBody(streamID, buffer, length, flags) }
}

extension HTTP2Session: Session {
    func receive() -> Bool { receive(connection.input) }
    func outputDrained() -> Bool { flush() }
    var inputLimit: Int { Connection.readBatch }
    var hasDeferredWork: Bool { hasWaiting }

    /// GOAWAY: open streams finish, no new ones start; evicted, the connection then closes.
    func drain(evicting: Bool) -> SessionEnd {
        let goesOn = goAway()
        return evicting || !goesOn ? .closeWhenFlushed : .goOn
    }

    /// A peer that takes none of its answers (a closed window) is cut off; a connection with
    /// no stream for the policy's idle time gets GOAWAY with its debug data (APNs' `IdleTimeout`).
    /// A request that is not whole `--timeout` after its stream opened (a body that stopped
    /// arriving) is reset, as an HTTP/1.1 request that is late closes its connection.
    func check(now: UInt64, lastRead: UInt64, timeoutNanos: UInt64, ending: Bool) -> SessionEnd {
        if isStalled(now: now, timeout: timeoutNanos) { return .cutOff }
        sweeps += 1
        // Opened within the sweep before: a stream's age is at least `sweeps - opened - 1` seconds.
        let most = (timeoutNanos + 999_999_999) / 1_000_000_000 + 1
        for stream in streamTable.all where stream.isArriving && sweeps - stream.openedAtSweep > most {
            reset(stream)
        }
        guard !ending, streamTable.isEmpty, now - lastRead > UInt64(policy.idleSeconds * 1e9) else { return .goOn }
        goAway(debugData: policy.idleGoAwayData)
        return .closeWhenFlushed
    }
}
