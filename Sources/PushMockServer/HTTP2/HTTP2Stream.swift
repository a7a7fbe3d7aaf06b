import PushMockCore

/// One request/response exchange on an HTTP/2 connection. Owned by its session's stream
/// table until nghttp2 closes the stream; a parked long-poll or delayed answer may hold it
/// longer, even past its connection, so once `closed` a late answer is a no-op.
final class HTTP2Stream: Responder, StreamResponder {
    let id: Int32
    /// Unowned, unchecked: the session outlives every stream that is not `closed` (its deinit
    /// closes the streams left in its table), and a closed stream never touches it. Not weak:
    /// a weak reference gives the session a side table and slows every retain of it; not
    /// checked `unowned`: each use of that takes a strong reference and lets it go.
    private unowned(unsafe) let session: HTTP2Session
    private var live: HTTP2Session? { closed ? nil : session }
    /// Set when the header block is complete (`HeaderBlockCache.finish`).
    var head = RequestHead()
    /// Fields received so far, pseudo-headers included (the position of the next one).
    var fieldCount = 0
    /// The block's fields as Strings, once it differs from the connection's last block.
    var ownFields: [(name: String, value: String)]?
    var headerBytes = 0
    var body: [UInt8] = []
    var dispatched = false
    /// The session's sweep count when the stream opened: its request must be whole within
    /// `--timeout` of that (`HTTP2Session.check`).
    var openedAtSweep: UInt64 = 0
    /// The request is still arriving: neither handed to the gateway nor whole and waiting
    /// for its turn.
    var isArriving: Bool { !dispatched && !waiting }
    /// Whole, and waiting for the session's unsent answers to fall below its bound.
    var waiting = false
    var closed = false
    /// Body bytes not yet taken by nghttp2 start at `responseOffset`.
    var responseBody: [UInt8] = []
    var responseOffset = 0
    /// A streamed body (events): nghttp2 waits (deferred) until more arrives or it `ended`.
    private(set) var streaming = false
    private(set) var ended = false

    init(id: Int32, session: HTTP2Session) {
        self.id = id
        self.session = session
    }

    /// Trailer fields (a header block after the body) join the regular fields.
    func addTrailer(_ name: String, _ value: String) {
        if !name.hasPrefix(":") { head.headers.append((name, value)) }
    }

    /// The request as the gateway sees it, as it came on the connection `context` describes.
    func request(_ context: ConnectionContext) -> Request {
        Request(
            method: head.method, target: head.path.isEmpty ? "/" : head.path, headers: head.headers, body: body,
            secure: context.isTLS, connection: context)
    }

    func respond(_ response: Response) {
        live?.respond(self, response)
        live?.flushUnlessBatching()
    }

    func drop(_ mode: DropMode) { live?.drop(self, mode) }

    func begin(_ head: Response) {
        streaming = true
        live?.respond(self, head)
        live?.flushUnlessBatching()
    }

    func send(_ bytes: [UInt8]) {
        live?.addBody(self, bytes)
        live?.resume(self)
    }

    func end() {
        ended = true
        live?.resume(self)
    }

    var isGone: Bool { closed }
    var pendingBytes: Int { responseBody.count - responseOffset }
    var connectionPendingBytes: Int { live?.unsentBody ?? 0 }
    func cutOff() { live?.reset(self) }

    /// HTTP/1.1 connection-specific fields, which HTTP/2 forbids (compared without case, on
    /// bytes: every header of every answer passes here).
    static func isConnectionHeader(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7: Request.equalsLowercased(name, "upgrade")
        case 10: Request.equalsLowercased(name, "connection") || Request.equalsLowercased(name, "keep-alive")
        case 14: Request.equalsLowercased(name, "content-length")
        case 16: Request.equalsLowercased(name, "proxy-connection")
        case 17: Request.equalsLowercased(name, "transfer-encoding")
        default: false
        }
    }
}
