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
    private let limiter: ConnectionLimiter
    /// Loop thread only.
    private var bound: OpaquePointer?
    private var lastSeenSeq: Int64 = 0

    init(base: EventBase, gateway: Gateway, polls: LongPolls, configuration: Configuration) throws(ServerError) {
        guard let http = evhttp_new(base.pointer) else { throw ServerError("evhttp_new failed") }
        self.http = http
        self.base = base
        self.gateway = gateway
        self.polls = polls
        self.limiter = ConnectionLimiter(cap: configuration.maxConnections)
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
        var addr = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = evhttp_bound_socket_get_fd(handle)
        let rc = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { throw ServerError("getsockname failed") }
        let raw = addr.ss_family == sa_family_t(AF_INET6)
            ? withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port } }
            : withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port } }
        return Int(UInt16(bigEndian: raw))
    }

    /// Stops accepting new connections; open ones carry on.
    func stopAccepting() {
        if let bound { evhttp_del_accept_socket(http, bound) }
        bound = nil
    }

    fileprivate func handle(_ req: OpaquePointer) {
        let request = Self.request(from: req)
        switch gateway.handle(request) {
        case .response(let response):
            Self.send(response, to: req)
        case .waitForEvents(let wait):
            polls.park(req, wait)
        }
        noteChanges()
    }

    /// Re-checks parked long-polls when the log has grown.
    func noteChanges() {
        if gateway.log.lastSeq != lastSeenSeq {
            lastSeenSeq = gateway.log.lastSeq
            polls.recheck()
        }
    }

    static func request(from req: OpaquePointer) -> Request {
        let target = evhttp_request_get_uri(req).map { String(cString: $0) } ?? "/"
        var headers: [(name: String, value: String)] = []
        var kv = evhttp_request_get_input_headers(req)?.pointee.tqh_first
        while let h = kv {
            headers.append((String(cString: h.pointee.key), String(cString: h.pointee.value)))
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
        return Request(method: method(evhttp_request_get_command(req)), target: target, headers: headers, body: body)
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
        if let out = evhttp_request_get_output_headers(req) {
            for (name, value) in response.headers { evhttp_add_header(out, name, value) }
        }
        if !response.body.isEmpty, let buf = evhttp_request_get_output_buffer(req) {
            response.body.withUnsafeBytes { _ = evbuffer_add(buf, $0.baseAddress, $0.count) }
        }
        evhttp_send_reply(req, Int32(response.status), HTTPStatus.reason(response.status), nil)
    }
}

private func frontDoorRequest(_ req: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let req, let arg else { return }
    Unmanaged<HTTPFrontDoor>.fromOpaque(arg).takeUnretainedValue().handle(req)
}
