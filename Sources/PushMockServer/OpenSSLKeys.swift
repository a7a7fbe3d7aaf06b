internal import COpenSSL
import PushMockCore

/// `KeyService` on OpenSSL 3's EVP API. OpenSSL objects are freed before the function that
/// made them returns, except parsed public keys, which `publicKeys` keeps (OpenSSL 3's PEM
/// decoder is slow, about a millisecond a call). Certificates come from the `CertificateStore`.
struct OpenSSLKeys: KeyService {
    let certificates: CertificateStore
    private let publicKeys = PublicKeyCache()
    /// RSA keys are made ahead, off the loop.
    private let rsaKeys = RSAKeyPool(make: OpenSSLKeys.makeRSAKey)

    init(certificates: CertificateStore) { self.certificates = certificates }

    /// Ends the thread that makes RSA keys (at shutdown).
    func stopMakingKeys() { rsaKeys.stop() }

    /// A key the pool made ahead; `KeyNotReady` when there is none yet.
    func generateRSAKey() throws -> (privatePEM: String, publicPEM: String) { try rsaKeys.take() }

    /// RSA-2048, made now (about 100 ms): on the pool's thread.
    @Sendable static func makeRSAKey() throws -> (privatePEM: String, publicPEM: String) {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw ServerError(.tls, "EVP_PKEY_CTX_new_id failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) == 1 else {
            throw ServerError(.tls, "RSA key generation setup failed")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw ServerError(.tls, "EVP_PKEY_keygen failed") }
        let pkey = PrivateKey(owning: key)
        return (try pkey.pem(), try pkey.publicPEM())
    }

    func publicKey(fromPrivatePEM pem: String) throws -> String {
        try PrivateKey.read(pem: pem).publicPEM()
    }

    func generateP256Key() throws -> (privatePEM: String, publicPEM: String) {
        let key = try PrivateKey.generateP256()
        return (try key.pem(), try key.publicPEM())
    }

    func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool {
        verify(message: message, signature: signature, publicKeyPEM: publicKeyPEM)
    }

    /// JWS carries ES256 signatures as r ‖ s (32 bytes each); OpenSSL wants DER.
    func verifyES256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool {
        guard let der = JWSSignature.der(fromRaw: signature) else { return false }
        return verify(message: message, signature: der, publicKeyPEM: publicKeyPEM)
    }

    func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws
        -> (certificatePEM: String, privateKeyPEM: String)
    {
        try certificates.issueAPNsCertificate(bundleID: bundleID, teamID: teamID, environment: environment)
    }

    var certificateAuthorityPEM: String? { certificates.authorityPEM }

    /// SHA-256 signature check with whatever key type the PEM holds.
    private func verify(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool {
        guard let pkey = publicKeys.key(publicKeyPEM) else { return false }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(ctx, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1
            }
        }
    }
}

/// Parsed public keys by PEM text; loop thread only. Small: the keys of registered APNs
/// keys and issued service accounts; emptied if it ever grows past `limit`.
final class PublicKeyCache {
    static let limit = 4096
    /// Each freed in deinit (or when the cache is emptied).
    private var keys: [String: OpaquePointer] = [:]

    deinit { for key in keys.values { EVP_PKEY_free(key) } }

    func key(_ pem: String) -> OpaquePointer? {
        if let key = keys[pem] { return key }
        guard let key = PEMBuffer.read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else { return nil }
        if keys.count >= Self.limit {
            for old in keys.values { EVP_PKEY_free(old) }
            keys.removeAll()
        }
        keys[pem] = key
        return key
    }
}
