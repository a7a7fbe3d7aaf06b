internal import COpenSSL
import Glibc
import PushMockCore

/// What one read or write on a connection's socket did.
enum Transfer {
    /// This many bytes (more than zero).
    case bytes(Int)
    /// Nothing now: wait until the socket is readable again.
    case wantRead
    /// Nothing now: wait until the socket is writable again.
    case wantWrite
    /// The peer closed, or the connection failed.
    case ended
}

/// The bytes of one accepted socket: as they are (the plain port), or through TLS (OpenSSL on
/// the non-blocking socket; the handshake first). Both give the connection the same calls.
final class ByteChannel {
    let fd: Int32
    /// The TLS session, on the TLS port; freed in deinit, before the socket closes.
    private let ssl: OpaquePointer?

    /// A plain connection.
    init(fd: Int32) {
        self.fd = fd
        ssl = nil
        SocketPort.noDelay(fd)
    }

    /// A TLS connection, its handshake still to do.
    init(fd: Int32, context: TLSContext) throws(ServerError) {
        guard let ssl = context.makeSSL() else { throw ServerError(.tls, "SSL_new failed") }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            throw ServerError(.tls, "SSL_set_fd failed")
        }
        SSL_set_accept_state(ssl)
        // OpenSSL reads ahead, so a burst of records costs a `read` or two.
        SSL_set_read_ahead(ssl, 1)
        SSL_ctrl(ssl, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        self.fd = fd
        self.ssl = ssl
        SocketPort.noDelay(fd)
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        close(fd)
    }

    var isTLS: Bool { ssl != nil }

    /// Advances the TLS handshake: nil once it is done (at once on a plain socket), else what
    /// it waits for.
    func handshake() -> Transfer? {
        guard let ssl else { return nil }
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return nil }
        return failure(SSL_get_error(ssl, rc))
    }

    /// The ALPN protocol the handshake chose (`h2`, `http/1.1`), if any.
    var negotiatedProtocol: String? { ssl.flatMap(TLSContext.negotiatedProtocol) }

    var clientCertificate: ClientCertificate? { ssl.flatMap(TLSContext.clientCertificate) }

    /// The host name the client asked for in its handshake (SNI), if any.
    var serverName: String? {
        guard let ssl, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    /// Whether TLS holds decrypted bytes the socket will not signal again.
    var hasPending: Bool { ssl.map { SSL_has_pending($0) != 0 } ?? false }

    /// Whether bytes wait to be read: held by TLS, or in the socket (peeked, not taken).
    var hasUnreadBytes: Bool {
        if hasPending { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Transfer {
        guard let ssl else {
            let n = recv(fd, buffer, count, 0)
            if n > 0 { return .bytes(n) }
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? .wantRead : .ended
        }
        ERR_clear_error()
        let n = SSL_read(ssl, buffer, Int32(clamping: count))
        return n > 0 ? .bytes(Int(n)) : failure(SSL_get_error(ssl, n))
    }

    func write(from bytes: UnsafeRawPointer, count: Int) -> Transfer {
        guard let ssl else {
            let n = send(fd, bytes, count, Int32(MSG_NOSIGNAL))
            if n > 0 { return .bytes(n) }
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? .wantWrite : .ended
        }
        ERR_clear_error()
        let n = SSL_write(ssl, bytes, Int32(clamping: count))
        return n > 0 ? .bytes(Int(n)) : failure(SSL_get_error(ssl, n))
    }

    /// No more bytes from this side: TLS's close_notify, then the socket's FIN. The peer may
    /// still send; the connection reads and drops it (a lingering close).
    func shutdownWrite() {
        if let ssl {
            ERR_clear_error()
            SSL_shutdown(ssl)
            ERR_clear_error()
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Makes the close a reset: what the kernel still holds for a peer that stopped reading
    /// is dropped at once instead of being sent for minutes before the FIN.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    private func failure(_ code: Int32) -> Transfer {
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default:
            // EOF (with or without close_notify), or an error.
            ERR_clear_error()
            return .ended
        }
    }
}
