internal import CLibevent
import PushMockCore

/// A one-shot HTTP GET on libevent's client, for CLI commands that ask a running pushmock
/// (e.g. `pushmock service-account`).
public enum ControlClient {
    /// Fetches `path` from `host:port` and returns the status and body.
    public static func get(host: String, port: Int, path: String) throws(ServerError) -> (status: Int, body: String) {
        let base = try EventBase()
        guard let connection = evhttp_connection_base_new(base.pointer, nil, host, UInt16(port)) else {
            throw ServerError(.client, "cannot create a connection to \(host):\(port)")
        }
        // The connection is freed before its base (which this keeps alive until then).
        defer { withExtendedLifetime(base) { evhttp_connection_free(connection) } }
        let result = Box(base: base)
        // The request is owned by the connection once made; libevent frees it after the callback.
        guard let request = evhttp_request_new(controlClientDone, Unmanaged.passUnretained(result).toOpaque()) else {
            throw ServerError.libevent("evhttp_request_new")
        }
        evhttp_add_header(evhttp_request_get_output_headers(request), "Host", "\(host):\(port)")
        guard evhttp_make_request(connection, request, EVHTTP_REQ_GET, path) == 0 else {
            throw ServerError(.client, "cannot send the request to \(host):\(port)")
        }
        try base.run()
        guard let status = result.status else {
            throw ServerError(.client, "no answer from http://\(host):\(port) (is pushmock running?)")
        }
        return (status, result.body)
    }

    /// What the callback saw; lives on this stack frame for the whole loop run.
    fileprivate final class Box {
        let base: EventBase
        var status: Int?
        var body = ""

        init(base: EventBase) { self.base = base }

        func done(_ req: OpaquePointer?) {
            if let req, evhttp_request_get_response_code(req) > 0 {
                status = Int(evhttp_request_get_response_code(req))
                if let buf = evhttp_request_get_input_buffer(req) {
                    let n = evbuffer_get_length(buf)
                    let bytes = [UInt8](unsafeUninitializedCapacity: n) { p, count in
                        count = Int(evbuffer_copyout(buf, p.baseAddress, n))
                    }
                    body = String(decoding: bytes, as: UTF8.self)
                }
            }
            base.exit(after: 0)
        }
    }
}

private func controlClientDone(_ req: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ControlClient.Box>.fromOpaque(arg).takeUnretainedValue().done(req)
}
