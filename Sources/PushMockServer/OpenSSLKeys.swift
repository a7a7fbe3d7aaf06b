internal import COpenSSL
import PushMockCore

/// `KeyService` on OpenSSL 3's EVP API. Every OpenSSL object is freed before the function
/// that made it returns.
struct OpenSSLKeys: KeyService {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func generateRSAKey() throws -> (privatePEM: String, publicPEM: String) {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw Failure(description: "EVP_PKEY_CTX_new_id failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) == 1 else {
            throw Failure(description: "RSA key generation setup failed")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let pkey = key else { throw Failure(description: "EVP_PKEY_keygen failed") }
        defer { EVP_PKEY_free(pkey) }
        let privatePEM = try Self.pem { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
        let publicPEM = try Self.pem { PEM_write_bio_PUBKEY($0, pkey) }
        return (privatePEM, publicPEM)
    }

    func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool {
        guard let bio = publicKeyPEM.withCString({ BIO_new_mem_buf($0, -1) }) else { return false }
        defer { BIO_free(bio) }
        guard let pkey = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(ctx, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1
            }
        }
    }

    /// Runs a PEM writer into a memory BIO and returns what it wrote.
    private static func pem(_ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw Failure(description: "BIO_new failed") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw Failure(description: "PEM write failed") }
        var data: UnsafeMutablePointer<CChar>?
        let n = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard n > 0, let data else { throw Failure(description: "empty PEM") }
        return data.withMemoryRebound(to: UInt8.self, capacity: n) {
            String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
        }
    }
}
