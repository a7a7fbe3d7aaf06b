internal import CLibevent
import Glibc
import PushMockCore

/// The HTTP/1.1 listener (libevent evhttp). It turns each evhttp request into a `Request`,
/// asks the gateway, and writes the `Reply` back: exactly one reply per request.
final class HTTPFrontDoor {
    /// Freed in deinit (which also closes every connection).
    let http: OpaquePointer
    private let base: EventBase
    private let gateway: Gateway
    private let polls: LongPolls
    private let streams: EventStreams
    /// Caps connections on the TCP port (the TLS listener caps its own) and gives each
    /// connection `--timeout` to deliver a whole request.
    private let limiter: ConnectionLimiter
    /// Loop thread only.
    private var bound: OpaquePointer?
    /// Whether requests arrive over TLS (through `TLSConnection`'s HTTP/1.1 bridge).
    private let secure: Bool
    /// The last request's target and header fields (by position) as Strings: clients repeat
    /// them, so the same bytes reuse the same Strings instead of decoding them again.
    private var lastTarget = ""
    private var lastFields: [(name: String, value: String)] = []

    init(base: EventBase, gateway: Gateway, polls: LongPolls, streams: EventStreams, configuration: Configuration,
         secure: Bool = false) throws(ServerError) {
        guard let http = evhttp_new(base.pointer) else { throw ServerError("evhttp_new failed") }
        self.http = http
        self.base = base
        self.gateway = gateway
        self.polls = polls
        self.streams = streams
        self.secure = secure
        self.limiter = ConnectionLimiter(cap: secure ? nil : configuration.maxConnections, timeoutSeconds: configuration.timeoutSeconds)
        evhttp_set_max_body_size(http, configuration.maxBodyBytes)
        evhttp_set_max_headers_size(http, 64 * 1024)
        // evhttp has one timer per connection: it bounds silence while a request's headers
        // and body arrive and while a keep-alive connection waits for the next request.
        var tv = timeval(seconds: Double(configuration.timeoutSeconds))
        evhttp_set_timeout_tv(http, &tv)
        let all = EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_PUT.rawValue
            | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue | EVHTTP_REQ_TRACE.rawValue
            | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(http, UInt16(all))
        evhttp_set_gencb(http, frontDoorRequest, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { evhttp_free(http) }

    var openConnections: Int { limiter.open }

    /// Binds and returns the port actually bound (for `--port 0`).
    func bind(host: String, port: Int) throws(ServerError) -> Int {
        guard let handle = evhttp_bind_socket_with_handle(http, host, UInt16(port)) else {
            throw ServerError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        bound = handle
        try limiter.install(on: http, base: base, listener: evhttp_bound_socket_get_listener(handle))
        return try SocketPort.bound(evhttp_bound_socket_get_fd(handle))
    }

    /// Listens on a fresh abstract Unix socket that only `HTTP1Bridge` connects to, and
    /// returns its address (name bytes after the leading NUL).
    func bindInternal() throws(ServerError) -> [UInt8] {
        var random = [UInt8](repeating: 0, count: 8)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        let name = Array("pushmock-\(getpid())-".utf8) + random.map { UInt8(ascii: "a") + $0 % 26 }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket(AF_UNIX) failed") }
        var addr = HTTP1Bridge.address(name)
        let rc = withUnsafePointer(to: &addr.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, addr.length) }
        }
        guard rc == 0, listen(fd, 128) == 0, let handle = evhttp_accept_socket_with_handle(http, fd) else {
            close(fd)
            throw ServerError("cannot listen on the internal socket: \(String(cString: strerror(errno)))")
        }
        bound = handle
        try limiter.install(on: http, base: base, listener: nil)
        return name
    }

    /// Stops accepting new connections; open ones carry on.
    func stopAccepting() {
        if let bound { evhttp_del_accept_socket(http, bound) }
        bound = nil
    }

    fileprivate func handle(_ req: OpaquePointer) {
        limiter.requestArrived(req)
        var request = request(from: req)
        request.secure = secure
        let reply = gateway.handle(request)
        // The common case answers at once, without a responder object per request.
        if case .response(let response) = reply {
            Self.send(response, to: req)
            polls.noteChanges()
        } else {
            carry(reply, to: EvhttpResponder(req), stream: EvhttpStream(req), polls: polls, streams: streams)
        }
    }

    func request(from req: OpaquePointer) -> Request {
        let target = evhttp_request_get_uri(req).map { Self.text($0, last: &lastTarget) } ?? "/"
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        var kv = evhttp_request_get_input_headers(req)?.pointee.tqh_first
        while let h = kv {
            let position = headers.count
            if position == lastFields.count, position < 64 { lastFields.append(("", "")) }
            if position < lastFields.count {
                headers.append((Self.text(h.pointee.key, last: &lastFields[position].name),
                                Self.text(h.pointee.value, last: &lastFields[position].value)))
            } else {
                headers.append((Self.text(h.pointee.key), Self.text(h.pointee.value)))
            }
            kv = h.pointee.next.tqe_next
        }
        var body: [UInt8] = []
        if let input = evhttp_request_get_input_buffer(req) {
            let n = evbuffer_get_length(input)
            if n > 0 {
                body = [UInt8](unsafeUninitializedCapacity: n) { buf, count in
                    count = Int(evbuffer_copyout(input, buf.baseAddress, n))
                }
            }
        }
        return Request(method: Self.method(evhttp_request_get_command(req)), target: target, headers: headers, body: body)
    }

    /// A C string as text (invalid UTF-8 repaired); cheaper than `String(cString:)`, which
    /// takes the slow repairing path for every string.
    private static func text(_ p: UnsafePointer<CChar>) -> String {
        String(decoding: bytes(p), as: UTF8.self)
    }

    /// `text(p)`, or `last` when it has the same bytes (then nothing is decoded); the new
    /// text becomes `last`.
    private static func text(_ p: UnsafePointer<CChar>, last: inout String) -> String {
        if !last.hasBytes(bytes(p)) { last = text(p) }
        return last
    }

    private static func bytes(_ p: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    }

    static func method(_ cmd: evhttp_cmd_type) -> String {
        switch cmd {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: "UNKNOWN"
        }
    }

    static func send(_ response: Response, to req: OpaquePointer) {
        // `withCString` lends the String's own bytes; passing a String where C wants a
        // pointer copies it to a new array first.
        if let out = evhttp_request_get_output_headers(req) {
            for (name, value) in response.headers {
                name.withCString { n in value.withCString { v in _ = evhttp_add_header(out, n, v) } }
            }
        }
        if !response.body.isEmpty, let buf = evhttp_request_get_output_buffer(req) {
            response.body.withUnsafeBytes { _ = evbuffer_add(buf, $0.baseAddress, $0.count) }
        }
        HTTPStatus.reason(response.status).withCString { evhttp_send_reply(req, Int32(response.status), $0, nil) }
    }
}

/// An evhttp request answered later: parked, delayed, streamed or dropped. The request stays
/// valid until answered: when its client goes away evhttp only detaches it from the connection.
final class EvhttpResponder: Responder {
    /// evhttp's; nil once answered or ended.
    private var request: OpaquePointer?

    init(_ request: OpaquePointer) { self.request = request }

    func respond(_ response: Response) {
        guard let request else { return }
        self.request = nil
        HTTPFrontDoor.send(response, to: request)
    }

    /// HTTP/1.1 has no GOAWAY: both modes close the connection. evhttp frees the connection
    /// (and with it this request) on the next loop turn, outside its own callback.
    func drop(_ mode: DropMode) {
        guard let request else { return }
        self.request = nil
        guard let connection = evhttp_request_get_connection(request) else { return evhttpDropNow(-1, 0, UnsafeMutableRawPointer(request)) }
        event_base_once(evhttp_connection_get_base(connection), -1, Int16(EV_TIMEOUT), evhttpDropNow, UnsafeMutableRawPointer(request), nil)
    }
}

/// Frees the dropped request's connection, or, if its client already left, the request alone
/// (evhttp's reply to a request without a connection only frees it; nothing is sent).
private func evhttpDropNow(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let request = OpaquePointer(arg)
    if let connection = evhttp_request_get_connection(request) {
        evhttp_connection_free(connection)
    } else {
        evhttp_send_reply(request, 503, "Service Unavailable", nil)
    }
}

private func frontDoorRequest(_ req: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let req, let arg else { return }
    Unmanaged<HTTPFrontDoor>.fromOpaque(arg).takeUnretainedValue().handle(req)
}
