/// Web Push message encryption as a browser undoes it (RFC 8291, on RFC 8188's `aes128gcm`
/// coding), and the older `aesgcm` coding that Firefox and Chrome still read
/// (docs/reference/web-push.md §4). Pure protocol logic over `WebPushCrypto`'s primitives:
/// HKDF is two HMACs, as RFC 5869 defines it for one block.
struct ContentEncoding {
    let crypto: any WebPushCrypto

    /// Why a body does not decrypt: what a browser drops it for (Firefox acks it 101).
    struct Failure: Error, Equatable {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// The `aes128gcm` header's size for Web Push: salt (16), record size (4), key id
    /// length (1) and the sender's 65-byte public key as key id.
    static let headerSize = 86

    /// The plaintext of an `aes128gcm` body for the subscription's keys.
    func decryptAES128GCM(_ body: [UInt8], privateKey: [UInt8], publicKey: [UInt8], auth: [UInt8]) throws(Failure)
        -> [UInt8]
    {
        guard body.count >= 21 else { throw Failure("truncated_header") }
        let salt = Array(body[0..<16])
        let rs = Int(body[16]) << 24 | Int(body[17]) << 16 | Int(body[18]) << 8 | Int(body[19])
        guard rs >= 18 else { throw Failure("record_size_too_small") }
        guard body[20] == 65 else { throw Failure("key_id_not_a_public_key") }
        guard body.count > Self.headerSize else {
            throw Failure(body.count == Self.headerSize ? "no_records" : "truncated_header")
        }
        let senderKey = Array(body[21..<Self.headerSize])
        guard let secret = crypto.ecdh(privateKey: privateKey, peerPublicKey: senderKey) else {
            throw Failure("sender_key_not_on_curve")
        }
        // RFC 8291 §3.3-3.4.
        let keyInfo = Array("WebPush: info".utf8) + [0] + publicKey + senderKey
        let ikm = expand(extract(salt: auth, secret), keyInfo, 32)
        let prk = extract(salt: salt, ikm)
        let key = expand(prk, Array("Content-Encoding: aes128gcm".utf8) + [0], 16)
        let nonce = expand(prk, Array("Content-Encoding: nonce".utf8) + [0], 12)
        return try openRecords(body[Self.headerSize...], recordSize: rs, key: key, nonce: nonce) { plain, last throws(Failure) in
            // RFC 8188 §2: padding is zeros after a delimiter, 2 in the last record, 1 before.
            guard let end = plain.lastIndex(where: { $0 != 0 }) else { throw Failure("no_padding_delimiter") }
            guard plain[end] == (last ? 2 : 1) else { throw Failure("bad_padding_delimiter") }
            return plain[..<end]
        }
    }

    /// The plaintext of an `aesgcm` body (draft-ietf-webpush-encryption-04): `salt` and `rs`
    /// from `Encryption`, the sender's key from `Crypto-Key: dh=`.
    func decryptAESGCM(
        _ body: [UInt8], salt: [UInt8], recordSize: Int, senderKey: [UInt8], privateKey: [UInt8], publicKey: [UInt8],
        auth: [UInt8]
    ) throws(Failure) -> [UInt8] {
        guard salt.count == 16 else { throw Failure("salt_not_16_bytes") }
        guard recordSize >= 2 else { throw Failure("record_size_too_small") }
        guard let secret = crypto.ecdh(privateKey: privateKey, peerPublicKey: senderKey) else {
            throw Failure("sender_key_not_on_curve")
        }
        guard !body.isEmpty else { throw Failure("no_records") }
        let ikm = expand(extract(salt: auth, secret), Array("Content-Encoding: auth".utf8) + [0], 32)
        let prk = extract(salt: salt, ikm)
        let context = Array("P-256".utf8) + [0, 0, 65] + publicKey + [0, 65] + senderKey
        let key = expand(prk, Array("Content-Encoding: aesgcm".utf8) + [0] + context, 16)
        let nonce = expand(prk, Array("Content-Encoding: nonce".utf8) + [0] + context, 12)
        // Each record: a two-byte pad length, that many zeros, then data; `rs` + 16 with its tag.
        return try openRecords(body[...], recordSize: recordSize + 16, key: key, nonce: nonce) { plain, _ throws(Failure) in
            guard plain.count >= 2 else { throw Failure("record_too_short") }
            let pad = Int(plain[plain.startIndex]) << 8 | Int(plain[plain.startIndex + 1])
            let data = plain.startIndex + 2 + pad
            guard data <= plain.endIndex, plain[(plain.startIndex + 2)..<data].allSatisfy({ $0 == 0 }) else {
                throw Failure("bad_padding")
            }
            return plain[data...]
        }
    }

    /// An `aes128gcm` body of one record for the subscription's keys, from a sender key pair
    /// and salt the caller makes (FCM's send to a browser, docs/web-push.md).
    func encryptAES128GCM(
        _ plaintext: [UInt8], senderPrivateKey: [UInt8], senderPublicKey: [UInt8], salt: [UInt8],
        receiverPublicKey: [UInt8], auth: [UInt8]
    ) -> [UInt8]? {
        guard let secret = crypto.ecdh(privateKey: senderPrivateKey, peerPublicKey: receiverPublicKey) else { return nil }
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverPublicKey + senderPublicKey
        let ikm = expand(extract(salt: auth, secret), keyInfo, 32)
        let prk = extract(salt: salt, ikm)
        let key = expand(prk, Array("Content-Encoding: aes128gcm".utf8) + [0], 16)
        let nonce = expand(prk, Array("Content-Encoding: nonce".utf8) + [0], 12)
        let rs = 4096
        let sealed = crypto.aes128GCMSeal(plaintext + [2], key: key, nonce: nonce)
        let header = salt + [UInt8(rs >> 24 & 0xFF), UInt8(rs >> 16 & 0xFF), UInt8(rs >> 8 & 0xFF), UInt8(rs & 0xFF), 65]
        return header + senderPublicKey + sealed
    }

    /// An `aesgcm` body of one record (no padding) for the subscription's keys: what FCM sends
    /// to its own GCM subscriptions, the one coding firebase-messaging decrypts
    /// (docs/reference/fcm-clients.md §6.1). The salt and the sender's key go in the
    /// `Encryption` and `Crypto-Key` headers. Nil when the plaintext needs more than one
    /// 4096-byte record or a key is not P-256.
    func encryptAESGCM(
        _ plaintext: [UInt8], senderPrivateKey: [UInt8], senderPublicKey: [UInt8], salt: [UInt8],
        receiverPublicKey: [UInt8], auth: [UInt8]
    ) -> [UInt8]? {
        guard plaintext.count <= 4094,
            let secret = crypto.ecdh(privateKey: senderPrivateKey, peerPublicKey: receiverPublicKey)
        else { return nil }
        let ikm = expand(extract(salt: auth, secret), Array("Content-Encoding: auth".utf8) + [0], 32)
        let prk = extract(salt: salt, ikm)
        let context = Array("P-256".utf8) + [0, 0, 65] + receiverPublicKey + [0, 65] + senderPublicKey
        let key = expand(prk, Array("Content-Encoding: aesgcm".utf8) + [0] + context, 16)
        let nonce = expand(prk, Array("Content-Encoding: nonce".utf8) + [0] + context, 12)
        return crypto.aes128GCMSeal([0, 0] + plaintext, key: key, nonce: nonce)
    }

    /// Splits the records (each `recordSize` bytes with its tag, the last shorter), opens
    /// each with its nonce (the base nonce with the record's number XORed into its last six
    /// bytes) and strips its padding with `unpad`.
    private func openRecords(
        _ records: ArraySlice<UInt8>, recordSize: Int, key: [UInt8], nonce: [UInt8],
        unpad: (ArraySlice<UInt8>, _ last: Bool) throws(Failure) -> ArraySlice<UInt8>
    ) throws(Failure) -> [UInt8] {
        var plaintext: [UInt8] = []
        var start = records.startIndex
        var sequence: UInt64 = 0
        while start < records.endIndex {
            let end = min(start + recordSize, records.endIndex)
            guard end - start >= 17 else { throw Failure("record_too_short") }
            var recordNonce = nonce
            for i in 0..<6 { recordNonce[11 - i] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i))) }
            guard let plain = crypto.aes128GCMOpen(Array(records[start..<end]), key: key, nonce: recordNonce) else {
                throw Failure("authentication_failed")
            }
            plaintext += try unpad(plain[...], end == records.endIndex)
            start = end
            sequence += 1
        }
        return plaintext
    }

    /// HKDF-Extract (RFC 5869 §2.2).
    private func extract(salt: [UInt8], _ ikm: [UInt8]) -> [UInt8] { crypto.hmacSHA256(key: salt, ikm) }

    /// HKDF-Expand for at most one block (RFC 5869 §2.3): all Web Push needs.
    private func expand(_ prk: [UInt8], _ info: [UInt8], _ length: Int) -> [UInt8] {
        Array(crypto.hmacSHA256(key: prk, info + [1]).prefix(length))
    }
}
