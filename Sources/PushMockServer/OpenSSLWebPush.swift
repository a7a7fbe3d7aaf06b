internal import COpenSSL
import PushMockCore

/// `WebPushCrypto` on OpenSSL 3's EVP API. Raw keys become `EVP_PKEY`s through their fixed
/// DER forms for P-256 (a SubjectPublicKeyInfo is a 26-byte prefix and the point; an
/// ECPrivateKey a 7-byte prefix, the scalar and the curve's name), which OpenSSL's decoders
/// check: a point off the curve does not decode. Parsed public keys are kept (`RawKeyCache`):
/// an app server signs every push with the same VAPID key. Loop thread only.
final class OpenSSLWebPush: WebPushCrypto {
    private var publicKeys = RawKeyCache()

    deinit { publicKeys.removeAll() }

    func makeP256KeyPair() throws -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let key = try PrivateKey.generateP256()
        guard let scalar = Self.scalar(of: key.pointer), let point = Self.point(of: key.pointer) else {
            throw ServerError(.tls, "cannot export a P-256 key")
        }
        return (scalar, point)
    }

    func ecdh(privateKey: [UInt8], peerPublicKey: [UInt8]) -> [UInt8]? {
        guard let own = Self.privateKey(privateKey) else { return nil }
        defer { EVP_PKEY_free(own) }
        guard let peer = publicKeys.key(peerPublicKey), let ctx = EVP_PKEY_CTX_new(own, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peer) == 1 else { return nil }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1, length == 32 else { return nil }
        return secret
    }

    func publicKey(ofPrivateKey privateKey: [UInt8]) -> [UInt8]? {
        guard let key = Self.privateKey(privateKey) else { return nil }
        defer { EVP_PKEY_free(key) }
        return Self.point(of: key)
    }

    func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        _ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &out, &length)
        return out
    }

    func sha256(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        _ = EVP_Digest(message, message.count, &out, &length, EVP_sha256(), nil)
        return out
    }

    func aes128GCMOpen(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 16, key.count == 16, nonce.count == 12, let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let bodyCount = sealed.count - 16
        var tag = Array(sealed[bodyCount...])
        var out = [UInt8](repeating: 0, count: bodyCount + 16)
        var length: Int32 = 0
        var final: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1,
            sealed.withUnsafeBufferPointer({ EVP_DecryptUpdate(ctx, &out, &length, $0.baseAddress, Int32(bodyCount)) }) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
        else { return nil }
        let ok = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + Int(length), &final) }
        guard ok == 1 else { return nil }
        return Array(out[..<Int(length + final)])
    }

    func aes128GCMSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        guard key.count == 16, nonce.count == 12, let ctx = EVP_CIPHER_CTX_new() else { return [] }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 32)
        var length: Int32 = 0
        var final: Int32 = 0
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1,
            EVP_EncryptUpdate(ctx, &out, &length, plaintext, Int32(plaintext.count)) == 1,
            out.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(ctx, $0.baseAddress! + Int(length), &final) }) == 1
        else { return [] }
        let count = Int(length + final)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else { return [] }
        return Array(out[..<count]) + tag
    }

    func verifyES256(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let der = Self.derSignature(signature), let key = publicKeys.key(publicKey), let ctx = EVP_MD_CTX_new() else {
            return false
        }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(ctx, der, der.count, message, message.count) == 1
    }

    func signES256(message: [UInt8], privateKey: [UInt8]) -> [UInt8]? {
        guard let key = Self.privateKey(privateKey), let ctx = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_PKEY_free(key)
            EVP_MD_CTX_free(ctx)
        }
        var length = 0
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(ctx, nil, &length, message, message.count) == 1
        else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &der, &length, message, message.count) == 1 else { return nil }
        return Self.rawSignature(Array(der[..<length]))
    }

    // MARK: - Raw keys and their DER forms

    /// SubjectPublicKeyInfo for id-ecPublicKey on prime256v1, up to the point's BIT STRING.
    private static let publicKeyPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    /// ECPrivateKey (RFC 5915) version 1, up to the scalar; then the curve's name.
    private static let privateKeyPrefix: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20]
    private static let privateKeySuffix: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// A public key from its 65-byte point; nil when it is not one on P-256. The caller frees it.
    static func publicKey(_ point: [UInt8]) -> OpaquePointer? {
        guard point.count == 65, point[0] == 0x04 else { return nil }
        let der = publicKeyPrefix + point
        return der.withUnsafeBufferPointer { buffer in
            var p: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &p, buffer.count)
        }
    }

    /// A private key from its 32-byte scalar; nil when it is not a valid one. The caller frees it.
    private static func privateKey(_ scalar: [UInt8]) -> OpaquePointer? {
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

    /// A JWS signature (r ‖ s) as the DER `ECDSA-Sig-Value` OpenSSL verifies.
    private static func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        // Ownership of r and s passes to sig here.
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var der: UnsafeMutablePointer<UInt8>?
        let n = i2d_ECDSA_SIG(sig, &der)
        guard n > 0, let der else { return nil }
        defer { CRYPTO_free(der, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: der, count: Int(n)))
    }

    /// A DER `ECDSA-Sig-Value` as JWS's r ‖ s.
    private static func rawSignature(_ der: [UInt8]) -> [UInt8]? {
        let sig: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var p: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &p, buffer.count)
        }
        guard let sig else { return nil }
        defer { ECDSA_SIG_free(sig) }
        var out = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(sig), let s = ECDSA_SIG_get0_s(sig),
            BN_bn2binpad(r, &out, 32) == 32,
            out.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32
        else { return nil }
        return out
    }
}

/// Parsed public keys by their raw bytes; emptied if it grows past `limit` (app servers use a
/// handful of VAPID keys; a fake browser's key is parsed once per push).
private struct RawKeyCache {
    static let limit = 1024
    /// Each freed by `removeAll` (the holder's `deinit`, or when the cache is full).
    private var keys: [[UInt8]: OpaquePointer] = [:]

    mutating func key(_ point: [UInt8]) -> OpaquePointer? {
        if let key = keys[point] { return key }
        guard let key = OpenSSLWebPush.publicKey(point) else { return nil }
        if keys.count >= Self.limit { removeAll() }
        keys[point] = key
        return key
    }

    mutating func removeAll() {
        for key in keys.values { EVP_PKEY_free(key) }
        keys.removeAll()
    }
}
