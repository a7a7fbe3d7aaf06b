/// The elliptic-curve and symmetric primitives Web Push needs (RFC 8291 encryption, RFC 8292
/// VAPID signatures), on raw keys as the protocol carries them: a P-256 private key is its
/// 32-byte scalar, a public key its 65-byte uncompressed point (0x04 ‖ X ‖ Y). Core cannot do
/// them without C; the server provides them with OpenSSL. The protocol logic built on them
/// (HKDF, records, padding, JWTs) is Core's (`Adapters/WebPush/`).
public protocol WebPushCrypto {
    /// A new P-256 key pair: a fake browser's subscription keys, a project's VAPID keys.
    func makeP256KeyPair() throws -> (privateKey: [UInt8], publicKey: [UInt8])

    /// The 32-byte ECDH shared secret of a private key and a peer's public key; nil when
    /// either is not a valid P-256 key (a point off the curve, a scalar out of range).
    func ecdh(privateKey: [UInt8], peerPublicKey: [UInt8]) -> [UInt8]?

    /// The public key of a private key; nil when it is not a valid P-256 scalar.
    func publicKey(ofPrivateKey privateKey: [UInt8]) -> [UInt8]?

    /// HMAC-SHA-256 of `message` under `key` (32 bytes).
    func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8]

    /// SHA-256 of `message` (32 bytes).
    func sha256(_ message: [UInt8]) -> [UInt8]

    /// AES-128-GCM: `sealed` is the ciphertext followed by its 16-byte tag; nil when the tag
    /// does not match.
    func aes128GCMOpen(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]?

    /// AES-128-GCM: the ciphertext followed by its 16-byte tag.
    func aes128GCMSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]

    /// Whether `signature` (JWS form: r ‖ s, 64 bytes) is an ES256 signature of `message` by
    /// the raw public key.
    func verifyES256(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool

    /// An ES256 signature (JWS form, r ‖ s) of `message` by the raw private key.
    func signES256(message: [UInt8], privateKey: [UInt8]) -> [UInt8]?
}

/// A project's Web Push certificate, as the Firebase console calls it: the VAPID key pair FCM
/// signs its pushes to browsers with. The public key is the `vapidKey` a web app passes to
/// `getToken`.
public struct WebPushKeyPair: Sendable, Equatable {
    public let privateKey: [UInt8]
    public let publicKey: [UInt8]
}
