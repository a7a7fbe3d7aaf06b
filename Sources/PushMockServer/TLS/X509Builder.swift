internal import COpenSSL
import Glibc

/// OpenSSL's certificate and key objects, each with one Swift owner that frees it.
final class PrivateKey {
    /// Freed in deinit.
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// A new P-256 key: fast to make and to handshake with.
    static func generateP256() throws(ServerError) -> PrivateKey {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw ServerError(.tls, "EVP_PKEY_CTX_new_id failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) == 1 else {
            throw ServerError(.tls, "EC key generation setup failed")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw ServerError(.tls, "EVP_PKEY_keygen failed") }
        return PrivateKey(owning: key)
    }

    static func read(pem: String) throws(ServerError) -> PrivateKey {
        guard let key = PEMBuffer.read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw ServerError(.tls, "not a PEM private key")
        }
        return PrivateKey(owning: key)
    }

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form of Apple's .p8 files.
    func pem() throws(ServerError) -> String {
        try PEMBuffer.write { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
    }
    func publicPEM() throws(ServerError) -> String { try PEMBuffer.write { PEM_write_bio_PUBKEY($0, pointer) } }
}

final class Certificate {
    /// Freed in deinit.
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    static func read(pem: String) throws(ServerError) -> Certificate {
        guard let cert = PEMBuffer.read(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw ServerError(.tls, "not a PEM certificate")
        }
        return Certificate(owning: cert)
    }

    func pem() throws(ServerError) -> String { try PEMBuffer.write { PEM_write_bio_X509($0, pointer) } }

    /// One subject attribute (e.g. `NID_userId`) of a certificate OpenSSL owns.
    static func subjectField(_ cert: OpaquePointer, _ nid: Int32) -> String? {
        guard let name = X509_get_subject_name(cert) else { return nil }
        let i = X509_NAME_get_index_by_NID(name, nid, -1)
        guard i >= 0, let entry = X509_NAME_get_entry(name, i), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let n = ASN1_STRING_to_UTF8(&out, data)
        guard n >= 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(n)), as: UTF8.self)
    }
}

/// Builds and signs one X.509 v3 certificate.
struct X509Builder {
    var subject: [(field: String, value: String)]
    var days: Int32
    /// `X509V3_EXT_conf_nid` values by extension, e.g. `NID_subject_alt_name` → "DNS:localhost".
    var extensions: [(nid: Int32, value: String)]

    /// Signs `key`'s public half as `subject`, by `issuer` (self-signed when nil).
    func sign(_ key: PrivateKey, issuer: (cert: Certificate, key: PrivateKey)?) throws(ServerError) -> Certificate {
        guard let cert = X509_new() else { throw ServerError(.tls, "X509_new failed") }
        let owned = Certificate(owning: cert)
        var serial = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&serial, 16) == 1 else { throw ServerError(.tls, "RAND_bytes failed") }
        serial[0] &= 0x7F
        guard let bn = BN_bin2bn(serial, 16, nil) else { throw ServerError(.tls, "BN_bin2bn failed") }
        defer { BN_free(bn) }
        guard X509_set_version(cert, 2) == 1, BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nil,
            X509_gmtime_adj(X509_getm_notBefore(cert), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(cert), Int(days) * 86_400) != nil,
            X509_set_pubkey(cert, key.pointer) == 1
        else { throw ServerError(.tls, "cannot fill the certificate") }
        guard let name = X509_get_subject_name(cert) else { throw ServerError(.tls, "no subject name") }
        for (field, value) in subject {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw ServerError(.tls, "bad subject field \(field)")
            }
        }
        let issuerCert = issuer?.cert.pointer ?? cert
        guard X509_set_issuer_name(cert, X509_get_subject_name(issuerCert)) == 1 else {
            throw ServerError(.tls, "cannot set the issuer")
        }
        var ctx = X509V3_CTX()
        X509V3_set_ctx(&ctx, issuerCert, cert, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &ctx, nid, value) else { throw ServerError(.tls, "bad extension \(value)") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(cert, ext, -1) == 1 else { throw ServerError(.tls, "cannot add extension \(value)") }
        }
        guard X509_sign(cert, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else { throw ServerError(.tls, "X509_sign failed") }
        return owned
    }
}

/// PEM text in and out of OpenSSL memory BIOs.
enum PEMBuffer {
    static func read(_ pem: String, _ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        let bytes = Array(pem.utf8)
        return bytes.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return reader(bio)
        }
    }

    static func write(_ writer: (OpaquePointer) -> Int32) throws(ServerError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw ServerError(.tls, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard writer(bio) == 1 else { throw ServerError(.tls, "PEM write failed") }
        var data: UnsafeMutablePointer<CChar>?
        let n = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard n > 0, let data else { throw ServerError(.tls, "empty PEM") }
        return data.withMemoryRebound(to: UInt8.self, capacity: n) {
            String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
        }
    }
}
