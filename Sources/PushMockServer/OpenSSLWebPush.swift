internal import COpenSSL
import PushMockCore

/// `WebPushCrypto` on OpenSSL 3's EVP API. Public keys are imported with `EVP_PKEY_fromdata`
/// (OpenSSL checks that the point is on the curve); what OpenSSL 3 would look up under a lock on
/// every use is fetched once: SHA-256, AES-128-GCM, the EC key importer. Keys are kept
/// (`RawKeyCache`): an app server signs every push with the same VAPID key, a fake browser
/// decrypts with its own, and the keys made here are kept as made. Loop thread only.
final class OpenSSLWebPush: WebPushCrypto {
    private var publicKeys = RawKeyCache()
    private var privateKeys = RawKeyCache()
    /// Fetched once; freed in deinit.
    private let sha256Digest: OpaquePointer
    private let aesGCM: OpaquePointer
    private let importer: OpaquePointer
    private let cipher: OpaquePointer

    init() throws(ServerError) {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { throw ServerError(.tls, "OpenSSL has no SHA-256") }
        guard let gcm = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil) else {
            EVP_MD_free(md)
            throw ServerError(.tls, "OpenSSL has no AES-128-GCM")
        }
        guard let importer = EVP_PKEY_CTX_new_from_name(nil, "EC", nil), EVP_PKEY_fromdata_init(importer) == 1,
            let cipher = EVP_CIPHER_CTX_new()
        else {
            EVP_MD_free(md)
            EVP_CIPHER_free(gcm)
            throw ServerError(.tls, "OpenSSL cannot import EC keys")
        }
        sha256Digest = md
        aesGCM = gcm
        self.importer = importer
        self.cipher = cipher
    }

    deinit {
        publicKeys.removeAll()
        privateKeys.removeAll()
        EVP_MD_free(sha256Digest)
        EVP_CIPHER_free(aesGCM)
        EVP_PKEY_CTX_free(importer)
        EVP_CIPHER_CTX_free(cipher)
    }

    func makeP256KeyPair() throws -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let key = try PrivateKey.generateP256()
        guard let scalar = Self.scalar(of: key.pointer), let point = Self.point(of: key.pointer) else {
            throw ServerError(.tls, "cannot export a P-256 key")
        }
        // Kept as made, so using it (a subscription's, a push's ephemeral one) imports nothing;
        // the cache holds a reference of its own.
        if EVP_PKEY_up_ref(key.pointer) == 1 { privateKeys.insert(scalar, key.pointer) }
        return (scalar, point)
    }

    func ecdh(privateKey: [UInt8], peerPublicKey: [UInt8]) -> [UInt8]? {
        guard let own = privateKeys.key(privateKey, Self.decodePrivateKey),
            let peer = publicKeys.key(peerPublicKey, importPublicKey), let ctx = EVP_PKEY_CTX_new(own, nil)
        else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peer) == 1 else { return nil }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1, length == 32 else { return nil }
        return secret
    }

    /// Only for keys given whole (a fixture, the saved state): through the DER decoder,
    /// which computes the public point.
    func publicKey(ofPrivateKey privateKey: [UInt8]) -> [UInt8]? {
        guard let key = Self.decodePrivateKey(privateKey) else { return nil }
        defer { EVP_PKEY_free(key) }
        return Self.point(of: key)
    }

    /// RFC 2104 on the fetched SHA-256 (OpenSSL 3's one-shot `HMAC` fetches its MAC each call).
    func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = sha256(block.map { $0 ^ 0x36 } + message)
        return sha256(block.map { $0 ^ 0x5C } + inner)
    }

    func sha256(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        _ = EVP_Digest(message, message.count, &out, &length, sha256Digest, nil)
        return out
    }

    func aes128GCMOpen(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 16, key.count == 16, nonce.count == 12, EVP_CIPHER_CTX_reset(cipher) == 1 else { return nil }
        let bodyCount = sealed.count - 16
        var tag = Array(sealed[bodyCount...])
        var out = [UInt8](repeating: 0, count: bodyCount + 16)
        var length: Int32 = 0
        var final: Int32 = 0
        guard EVP_DecryptInit_ex2(cipher, aesGCM, key, nonce, nil) == 1,
            sealed.withUnsafeBufferPointer({ EVP_DecryptUpdate(cipher, &out, &length, $0.baseAddress, Int32(bodyCount)) }) == 1,
            EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
        else { return nil }
        let ok = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(cipher, $0.baseAddress! + Int(length), &final) }
        guard ok == 1 else { return nil }
        return Array(out[..<Int(length + final)])
    }

    func aes128GCMSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        guard key.count == 16, nonce.count == 12, EVP_CIPHER_CTX_reset(cipher) == 1 else { return [] }
        var out = [UInt8](repeating: 0, count: plaintext.count + 32)
        var length: Int32 = 0
        var final: Int32 = 0
        guard EVP_EncryptInit_ex2(cipher, aesGCM, key, nonce, nil) == 1,
            EVP_EncryptUpdate(cipher, &out, &length, plaintext, Int32(plaintext.count)) == 1,
            out.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(cipher, $0.baseAddress! + Int(length), &final) }) == 1
        else { return [] }
        let count = Int(length + final)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else { return [] }
        return Array(out[..<count]) + tag
    }

    func verifyES256(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let der = JWSSignature.der(fromRaw: signature), let key = publicKeys.key(publicKey, importPublicKey),
            let ctx = EVP_MD_CTX_new()
        else {
            return false
        }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(ctx, der, der.count, message, message.count) == 1
    }

    func signES256(message: [UInt8], privateKey: [UInt8]) -> [UInt8]? {
        guard let key = privateKeys.key(privateKey, Self.decodePrivateKey), let ctx = EVP_MD_CTX_new() else {
            return nil
        }
        defer { EVP_MD_CTX_free(ctx) }
        var length = 0
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(ctx, nil, &length, message, message.count) == 1
        else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &der, &length, message, message.count) == 1 else { return nil }
        return JWSSignature.raw(fromDER: Array(der[..<length]))
    }

    // MARK: - Raw keys

    /// A P-256 public key from its 65-byte point; nil when OpenSSL refuses it (a point off the
    /// curve). The caller frees it.
    private func importPublicKey(_ point: [UInt8]) -> OpaquePointer? {
        guard point.count == 65, point[0] == 4 else { return nil }
        var group = Array("prime256v1".utf8CString)
        var point = point
        var pkey: OpaquePointer?
        // An OSSL_PARAM keeps pointers to its name and value: both live across the call.
        let made = OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupName in
            OSSL_PKEY_PARAM_PUB_KEY.withCString { pubName in
                group.withUnsafeMutableBufferPointer { g in
                    point.withUnsafeMutableBytes { p in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(groupName, g.baseAddress, 0),
                            OSSL_PARAM_construct_octet_string(pubName, p.baseAddress, p.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_PKEY_fromdata(
                            importer, &pkey, Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY),
                            &params)
                    }
                }
            }
        }
        return made == 1 ? pkey : nil
    }

    /// ECPrivateKey (RFC 5915) version 1, up to the scalar; then the curve's name.
    private static let privateKeyPrefix: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20]
    private static let privateKeySuffix: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// A private key given as its scalar (a fixture's, an imported VAPID key, or one the cache
    /// let go of), through its DER form, whose decoder computes the public point too. The
    /// caller frees it.
    private static func decodePrivateKey(_ scalar: [UInt8]) -> OpaquePointer? {
        guard scalar.count == 32 else { return nil }
        let der = privateKeyPrefix + scalar + privateKeySuffix
        return der.withUnsafeBufferPointer { buffer in
            var p: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &p, buffer.count)
        }
    }

    /// The 32-byte scalar of an EC private key (its ECPrivateKey DER holds it after 7 bytes).
    private static func scalar(of key: OpaquePointer) -> [UInt8]? {
        var der: UnsafeMutablePointer<UInt8>?
        let n = i2d_PrivateKey(key, &der)
        guard n >= 39, let der else { return nil }
        defer { CRYPTO_free(der, #fileID, #line) }
        let bytes = Array(UnsafeBufferPointer(start: der, count: Int(n)))
        guard bytes[5] == 0x04, bytes[6] == 0x20 else { return nil }
        return Array(bytes[7..<39])
    }

    /// The 65-byte uncompressed point of an EC key (the end of its SubjectPublicKeyInfo).
    private static func point(of key: OpaquePointer) -> [UInt8]? {
        var der: UnsafeMutablePointer<UInt8>?
        let n = i2d_PUBKEY(key, &der)
        guard n == 91, let der else { return nil }
        defer { CRYPTO_free(der, #fileID, #line) }
        let bytes = Array(UnsafeBufferPointer(start: der, count: Int(n)))
        return Array(bytes[26...])
    }
}

/// Imported keys by their raw bytes; emptied if it grows past `limit` (app servers use a
/// handful of VAPID keys, fake browsers a key each).
private struct RawKeyCache {
    static let limit = 1024
    /// Each freed by `removeAll` (the holder's `deinit`, or when the cache is full).
    private var keys: [[UInt8]: OpaquePointer] = [:]

    mutating func key(_ raw: [UInt8], _ load: ([UInt8]) -> OpaquePointer?) -> OpaquePointer? {
        if let key = keys[raw] { return key }
        guard let key = load(raw) else { return nil }
        insert(raw, key)
        return key
    }

    /// Keeps a key the caller gives up (one reference's worth).
    mutating func insert(_ raw: [UInt8], _ key: OpaquePointer) {
        if keys.count >= Self.limit { removeAll() }
        if let old = keys.updateValue(key, forKey: raw) { EVP_PKEY_free(old) }
    }

    mutating func removeAll() {
        for key in keys.values { EVP_PKEY_free(key) }
        keys.removeAll()
    }
}
