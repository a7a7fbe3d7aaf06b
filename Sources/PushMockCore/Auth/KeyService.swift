/// The public-key cryptography the gateway needs but Core cannot do without C: the server
/// provides it with OpenSSL.
public protocol KeyService {
    /// A new RSA-2048 key pair: the private key as PKCS#8 PEM (what a service-account JSON
    /// carries), the public key as SubjectPublicKeyInfo PEM.
    func generateRSAKey() throws -> (privatePEM: String, publicPEM: String)

    /// Whether `signature` is an RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature of
    /// `message` by `publicKeyPEM`.
    func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool
}
