internal import COpenSSL
import Foundation
import Glibc
import PushMockCore

/// One webhook POST, made on a bridge worker thread with blocking sockets and a deadline:
/// connect, TLS (verified against the system's CAs and pushmock's own), the request, and the
/// status line of the answer (docs/bridges.md, "Webhooks").
final class WebhookClient: @unchecked Sendable {
    private let extraAuthority: String?
    /// Client TLS settings, shared by every worker (OpenSSL contexts are thread-safe once set
    /// up), made at the first https URL: loading the system's CAs costs memory a pushmock
    /// without https webhooks does not need. Guarded by `lock` until made.
    private var context: OpaquePointer?
    private let lock = NSLock()

    init(extraAuthority: String?) {
        self.extraAuthority = extraAuthority
    }

    deinit { if let context { SSL_CTX_free(context) } }

    private var tls: OpaquePointer? {
        lock.withLock {
            if context == nil, let ctx = SSL_CTX_new(TLS_client_method()) {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
                SSL_CTX_set_default_verify_paths(ctx)
                if let extraAuthority, FileManager.default.fileExists(atPath: extraAuthority) {
                    SSL_CTX_load_verify_locations(ctx, extraAuthority, nil)
                }
                context = ctx
            }
            return context
        }
    }

    /// The HTTP status, or why there is none.
    enum Outcome {
        case status(Int)
        case failed(String)
    }

    func post(_ url: String, headers: [(String, String)], body: [UInt8], timeout: Double) -> Outcome {
        guard case .success(let target) = WebhookURL.parse(url) else { return .failed("bad URL") }
        let deadline = Clock.wallNow() + Timestamp(timeout * 1_000_000)
        let fd: Int32
        switch connect(target, deadline: deadline) {
        case .success(let s): fd = s
        case .failure(let f): return .failed(f.why)
        }
        defer { close(fd) }
        var ssl: OpaquePointer?
        if target.secure {
            switch handshake(fd, target) {
            case .success(let s): ssl = s
            case .failure(let f): return .failed(f.why)
            }
        }
        defer { if let ssl { SSL_free(ssl) } }
        var request = "POST \(target.target) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard send(Array(request.utf8) + body, fd, ssl) else { return .failed(Self.ioFailure(deadline, "sending")) }
        return readStatus(fd, ssl, deadline: deadline)
    }

    private func connect(_ t: WebhookURL, deadline: Timestamp) -> Result<Int32, Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(t.host, String(t.port), &hints, &list) == 0, let first = list else {
            return .failure(Failure("cannot resolve \(t.host)"))
        }
        defer { freeaddrinfo(list) }
        var why = "cannot connect"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd < 0 { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) != 0, errno != EINPROGRESS {
                why = "connection failed: " + String(cString: strerror(errno))
                close(fd)
                continue
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&p, 1, Self.millis(until: deadline))
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            if ready == 1, error == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                var tv = timeval(seconds: max(0.001, Double(deadline - Clock.wallNow()) / 1e6))
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                return .success(fd)
            }
            why = ready == 0 ? "timed out connecting" : "connection failed: " + String(cString: strerror(error))
            close(fd)
        }
        return .failure(Failure(why))
    }

    private func handshake(_ fd: Int32, _ t: WebhookURL) -> Result<OpaquePointer, Failure> {
        guard let tls, let ssl = SSL_new(tls) else { return .failure(Failure("TLS unavailable")) }
        SSL_set_fd(ssl, fd)
        var address = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, t.host, &address) == 1 || inet_pton(AF_INET6, t.host, &address) == 1 {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), t.host)
        } else {
            SSL_set1_host(ssl, t.host)
            _ = t.host.withCString {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
            }
        }
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            let why =
                verify != X509_V_OK
                ? "TLS: certificate not trusted (\(String(cString: X509_verify_cert_error_string(verify))))"
                : "TLS handshake failed"
            SSL_free(ssl)
            return .failure(Failure(why))
        }
        return .success(ssl)
    }

    private func send(_ bytes: [UInt8], _ fd: Int32, _ ssl: OpaquePointer?) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { b in
                let p = b.baseAddress! + sent
                let count = bytes.count - sent
                return ssl.map { Int(SSL_write($0, p, Int32(count))) } ?? Glibc.send(fd, p, count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads until the status line is complete; the rest of the answer does not matter.
    private func readStatus(_ fd: Int32, _ ssl: OpaquePointer?, deadline: Timestamp) -> Outcome {
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !got.contains(0x0A), got.count < 8192 {
            let n = chunk.withUnsafeMutableBytes { b in
                ssl.map { Int(SSL_read($0, b.baseAddress, Int32(b.count))) } ?? recv(fd, b.baseAddress, b.count, 0)
            }
            if n <= 0 { return .failed(got.isEmpty ? Self.ioFailure(deadline, "waiting for the answer") : "answer cut short") }
            got += chunk[0..<n]
        }
        let line = String(decoding: got.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            return .failed("not an HTTP answer")
        }
        return .status(code)
    }

    private static func ioFailure(_ deadline: Timestamp, _ doing: String) -> String {
        Clock.wallNow() >= deadline ? "timed out \(doing)" : "connection closed \(doing)"
    }

    private static func millis(until deadline: Timestamp) -> Int32 {
        Int32(clamping: max(0, (deadline - Clock.wallNow()) / 1000))
    }

    struct Failure: Error {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// `sha256=<hex>`: HMAC-SHA256 of the body with the bridge's secret.
    static func signature(_ body: [UInt8], secret: String) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let key = Array(secret.utf8)
        _ = HMAC(EVP_sha256(), key, Int32(key.count), body, body.count, &out, &length)
        return "sha256=" + out.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
