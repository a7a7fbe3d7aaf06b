import COpenSSL
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Which of a server's ports a test talks to.
enum Port: String, CaseIterable, CustomTestStringConvertible {
    case plain, tls
    var testDescription: String { rawValue }
}

/// A minimal blocking HTTP/1.1 client on one loopback TCP connection, plain or TLS (ALPN
/// `http/1.1`), so tests control exactly what goes on the wire (keep-alive, partial requests,
/// oversize bodies).
final class HTTPConnection {
    /// The socket; -1 once `close()` has closed it.
    private(set) var fd: Int32
    let port: Int
    /// The TLS session over `fd`, on the TLS port.
    private var ssl: OpaquePointer?
    private var context: OpaquePointer?

    struct Failure: Error, CustomStringConvertible { let description: String }

    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: Data
        /// The head as sent: the status line and the fields, each ending in CR LF.
        var head = ""
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    init(port: Int, timeout: Double = 10) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect failed: \(errno)")
        }
        setTimeout(timeout)
    }

    /// A connection to `server`'s plain or TLS port.
    convenience init(_ server: ServerProcess, _ port: Port, timeout: Double = 10) throws {
        switch port {
        case .plain: try self.init(port: server.port, timeout: timeout)
        case .tls:
            guard let tlsPort = server.tlsPort else { throw Failure(description: "the server has no TLS port") }
            try self.init(port: tlsPort, timeout: timeout)
            try startTLS()
        }
    }

    /// The TLS handshake (the test trusts any certificate: framing is what it checks).
    private func startTLS() throws {
        guard let ctx = SSL_CTX_new(TLS_client_method()), let ssl = SSL_new(ctx) else {
            throw Failure(description: "cannot make a TLS client")
        }
        context = ctx
        self.ssl = ssl
        // A write to a closed TLS connection must fail, not end the test process.
        signal(SIGPIPE, SIG_IGN)
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        SSL_set_alpn_protos(ssl, alpn, UInt32(alpn.count))
        SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else { throw Failure(description: "TLS handshake failed") }
    }

    /// Closes the connection now, once: the number may belong to another test's socket later,
    /// so `deinit` must not close it again.
    func close() {
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        ssl = nil
        context = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }

    private func send(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let ssl { return Int(SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))) }
        return Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Bytes read; 0 when the server closed; below 0 on a timeout.
    private func receive(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard let ssl else { return recv(fd, bytes.baseAddress, bytes.count, 0) }
        ERR_clear_error()
        let n = SSL_read(ssl, bytes.baseAddress, Int32(bytes.count))
        if n > 0 { return Int(n) }
        // A close_notify, a reset, or the socket's end without either: closed.
        return SSL_get_error(ssl, n) == SSL_ERROR_WANT_READ ? -1 : 0
    }

    func setTimeout(_ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send($0) }
            guard n > 0 else { throw Failure(description: ssl == nil ? "send failed: \(errno)" : "send failed: \(EPIPE)") }
            sent += n
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    func request(_ method: String, _ target: String, body: String? = nil, headers: [String: String] = [:]) throws -> Reply {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        var h = headers
        if h["Host"] == nil { h["Host"] = "127.0.0.1:\(port)" }
        if let body {
            h["Content-Length"] = String(body.utf8.count)
            if h["Content-Type"] == nil { h["Content-Type"] = "application/json" }
        }
        for (k, v) in h { head += "\(k): \(v)\r\n" }
        do {
            try write(head + "\r\n" + (body ?? ""))
        } catch {
            // A server may answer (413) and close before the whole body is sent, as HTTP allows;
            // the answer is then already waiting to be read.
            let text = "\(error)"
            guard text == "send failed: \(EPIPE)" || text == "send failed: \(ECONNRESET)" else { throw error }
        }
        return try readReply()
    }

    private var buffer: [UInt8] = []

    /// Reads more bytes; false on end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { receive($0) }
        if n == 0 { return false }
        guard n > 0 else { throw Failure(description: "recv failed or timed out: \(errno)") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Whether the server closed the connection (reads until end of stream or timeout).
    func isClosedByServer() -> Bool {
        do {
            while try fill() {}
            return true
        } catch { return false }
    }

    /// The next answer; `bodiless`: one to a HEAD request, whose Content-Length has no body.
    func readReply(bodiless: Bool = false) throws -> Reply {
        let crlf2: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let r = find(crlf2) {
                headEnd = r
                break
            }
            guard try fill() else { throw Failure(description: "connection closed before a reply") }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = bodiless ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        let start = headEnd! + 4
        while buffer.count < start + length {
            guard try fill() else { throw Failure(description: "connection closed mid-body") }
        }
        let body = Data(buffer[start..<start + length])
        buffer.removeFirst(start + length)
        return Reply(status: status, headers: headers, body: body, head: head + "\r\n")
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] && Array(buffer[i..<i + needle.count]) == needle {
            return i
        }
        return nil
    }
}
