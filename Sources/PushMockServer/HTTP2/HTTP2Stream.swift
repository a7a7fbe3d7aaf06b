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

    func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let v = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": method = v
            case ":path": path = v
            case ":authority": authority = v
            default: break
            }
        } else {
            headers.append((String(decoding: name, as: UTF8.self), v))
        }
    }

    /// The request as the gateway sees it; `:authority` stands in for a missing `host`.
    func request() -> Request {
        var all = headers
        if let authority, !headers.contains(where: { $0.name == "host" }) { all.append(("host", authority)) }
        return Request(method: method, target: path.isEmpty ? "/" : path, headers: all, body: body)
    }

    func respond(_ response: Response) {
        session?.respond(self, response)
        session?.flush()
    }

    func drop(_ mode: DropMode) { session?.drop(self, mode) }

    func begin(_ head: Response) {
        streaming = true
        session?.respond(self, head)
        session?.flush()
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

    /// HTTP/1.1 connection-specific fields, which HTTP/2 forbids.
    static func isConnectionHeader(_ name: String) -> Bool {
        switch name.lowercased() {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length": true
        default: false
        }
    }
}
