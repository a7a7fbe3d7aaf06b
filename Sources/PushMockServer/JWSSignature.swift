internal import COpenSSL

/// ES256 signatures as JWS carries them (r ‖ s, 32 bytes each, RFC 7518 §3.4) and as OpenSSL
/// signs and verifies them (DER `ECDSA-Sig-Value`): APNs provider tokens, VAPID.
enum JWSSignature {
    /// A JWS signature (r ‖ s) as the DER `ECDSA-Sig-Value` OpenSSL verifies.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
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
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
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
