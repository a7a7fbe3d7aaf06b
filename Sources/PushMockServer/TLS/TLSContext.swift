internal import COpenSSL
import PushMockCore

/// The server's `SSL_CTX`: its certificate, ALPN (`h2`, then `http/1.1`, or none), and an
/// optional client certificate checked against pushmock's CA (APNs certificate auth) when
/// `clientAuthority` is given. MCS's listener asks for none: Chromium's GCM socket has no way to
/// answer a certificate request and fails its handshake on one.
final class TLSContext {
    /// Freed in deinit; every `SSL` made from it holds its own reference.
    let pointer: OpaquePointer

    /// The server's certificate: issued by pushmock's CA, or files the user brings.
    enum Identity {
        case issued(Certificate, PrivateKey)
        case files(chain: String, key: String)
    }

    init(identity: Identity, clientAuthority: Certificate?) throws(ServerError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw ServerError(.tls, "SSL_CTX_new failed") }
        pointer = ctx
        guard SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            throw ServerError(.tls, "cannot require TLS 1.2")
        }
        switch identity {
        case .files(let chainFile, let keyFile):
            guard SSL_CTX_use_certificate_chain_file(ctx, chainFile) == 1 else {
                throw ServerError(.tls, "cannot read --tls-cert \(chainFile): \(Self.lastError())")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) == 1 else {
                throw ServerError(.tls, "cannot read --tls-key \(keyFile): \(Self.lastError())")
            }
        case .issued(let certificate, let key):
            guard SSL_CTX_use_certificate(ctx, certificate.pointer) == 1, SSL_CTX_use_PrivateKey(ctx, key.pointer) == 1 else {
                throw ServerError(.tls, "cannot use the server certificate: \(Self.lastError())")
            }
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else { throw ServerError(.tls, "the TLS key does not match the certificate") }
        SSL_CTX_set_alpn_select_cb(ctx, tlsSelectALPN, nil)
        let sessionContext: [UInt8] = Array("pushmock".utf8)
        _ = SSL_CTX_set_session_id_context(ctx, sessionContext, UInt32(sessionContext.count))
        guard let clientAuthority else { return }
        // Ask for a client certificate but never fail the handshake over it: APNs answers a
        // bad one with 403 BadCertificate, which needs the request.
        guard X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), clientAuthority.pointer) == 1,
            SSL_CTX_add_client_CA(ctx, clientAuthority.pointer) == 1
        else { throw ServerError(.tls, "cannot trust the CA") }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, tlsAcceptAnyPeer)
        // A client's chain is bounded as nginx bounds it (its verify depth): at most 16 KiB of
        // certificates (a leaf and two intermediates take about 5), refused in the handshake
        // before they are parsed, and a verified chain at most 4 deep: a long chain costs the
        // loop its parsing on every handshake (docs/hardening.md).
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_CERT_LIST, Self.maxClientChainBytes, nil)
        SSL_CTX_set_verify_depth(ctx, 4)
    }

    static let maxClientChainBytes = 16 * 1024

    deinit { SSL_CTX_free(pointer) }

    /// A new `SSL` for one connection, which owns and frees it.
    func makeSSL() -> OpaquePointer? { SSL_new(pointer) }

    /// The protocol ALPN settled on, if any.
    static func negotiatedProtocol(_ ssl: OpaquePointer) -> String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The client certificate the handshake presented, if any.
    static func clientCertificate(_ ssl: OpaquePointer) -> ClientCertificate? {
        guard let cert = SSL_get0_peer_certificate(ssl) else { return nil }
        return ClientCertificate(
            userID: Certificate.subjectField(cert, NID_userId),
            commonName: Certificate.subjectField(cert, NID_commonName),
            organizationalUnit: Certificate.subjectField(cert, NID_organizationalUnitName),
            trusted: SSL_get_verify_result(ssl) == X509_V_OK)
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The protocols pushmock speaks over TLS, in ALPN wire form, best first.
private let tlsServerProtocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)

private func tlsSelectALPN(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outlen: UnsafeMutablePointer<UInt8>?, _ input: UnsafePointer<UInt8>?, _ inlen: UInt32,
    _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let out, let outlen, let input else { return SSL_TLSEXT_ERR_NOACK }
    // Walk the client's list in our order of preference; `out` points into the client's list.
    for offset in [0, 3] {
        let wanted = tlsServerProtocols[offset + 1..<offset + 1 + Int(tlsServerProtocols[offset])]
        var i = 0
        while i < Int(inlen) {
            let n = Int(input[i])
            if i + 1 + n <= Int(inlen), n == wanted.count,
                wanted.elementsEqual(UnsafeBufferPointer(start: input + i + 1, count: n))
            {
                out.pointee = input + i + 1
                outlen.pointee = UInt8(n)
                return SSL_TLSEXT_ERR_OK
            }
            i += 1 + n
        }
    }
    return SSL_TLSEXT_ERR_NOACK
}

private func tlsAcceptAnyPeer(_ preverify: Int32, _ store: OpaquePointer?) -> Int32 { 1 }
