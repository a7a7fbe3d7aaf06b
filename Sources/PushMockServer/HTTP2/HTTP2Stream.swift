import PushMockCore

/// One request/response exchange on an HTTP/2 connection. Owned by its session's stream
/// table until nghttp2 closes the stream; a parked long-poll or delayed answer may hold it
/// longer, even past its connection, so `closed` and the weak session make a late answer a
/// no-op.
final class HTTP2Stream: Responder, StreamResponder {
    let id: Int32
    private weak var session: HTTP2Session?
    var method = ""
    var path = ""
    var authority: String?
    /// Regular header fields in arrival order (repeats kept: APNs answers DuplicateHeaders).
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0
    var body: [UInt8] = []
    var dispatched = false
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

    /// Fields received so far, pseudo-headers included (the position of the next one).
    var fieldCount = 0

    func add(_ field: (name: String, value: String)) {
        if field.name.utf8.first == UInt8(ascii: ":") {
            switch field.name {
            case ":method": method = field.value
            case ":path": path = field.value
            case ":authority": authority = field.value
            default: break
            }
        } else {
            if headers.isEmpty { headers.reserveCapacity(12) }
            headers.append(field)
        }
    }

    /// The request as the gateway sees it; `:authority` stands in for a missing `host`.
    func request() -> Request {
        if let authority, !headers.contains(where: { $0.name == "host" }) { headers.append(("host", authority)) }
        return Request(method: method, target: path.isEmpty ? "/" : path, headers: headers, body: body)
    }

    func respond(_ response: Response) {
        session?.respond(self, response)
        session?.flushUnlessReceiving()
    }

    func drop(_ mode: DropMode) { session?.drop(self, mode) }

    func begin(_ head: Response) {
        streaming = true
        session?.respond(self, head)
        session?.flushUnlessReceiving()
    }

    func send(_ bytes: [UInt8]) {
        responseBody.append(contentsOf: bytes)
        session?.resume(self)
    }

    func end() {
        ended = true
        session?.resume(self)
    }

    var isGone: Bool { closed || session == nil }
    var pendingBytes: Int { responseBody.count - responseOffset }
    func cutOff() { session?.reset(self) }

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
