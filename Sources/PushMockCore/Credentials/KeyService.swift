/// The public-key cryptography and certificates the gateway needs but Core cannot do
/// without C: the server provides them with OpenSSL.
public protocol KeyService {
    /// A new RSA-2048 key pair: the private key as PKCS#8 PEM (what a service-account JSON
    /// carries), the public key as SubjectPublicKeyInfo PEM. Making one takes about 100 ms,
    /// so the server makes them on another thread and this hands one out, or throws
    /// `KeyNotReady` when none is made yet (and asks for one): the loop never waits.
    func generateRSAKey() throws -> (privatePEM: String, publicPEM: String)

    /// The public key (SubjectPublicKeyInfo PEM) of a PEM private key.
    func publicKey(fromPrivatePEM pem: String) throws -> String

    /// A new P-256 key pair: PKCS#8 PEM (an APNs `.p8` auth key) and its public key.
    func generateP256Key() throws -> (privatePEM: String, publicPEM: String)

    /// Whether `signature` is an RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature of
    /// `message` by `publicKeyPEM`.
    func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool

    /// Whether `signature` (JWS form: r ‖ s, 64 bytes) is an ES256 signature of `message`.
    func verifyES256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool

    /// An APNs provider certificate for `bundleID`, signed by pushmock's CA; a development
    /// certificate when `environment` is sandbox, else a universal one.
    func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws
        -> (certificatePEM: String, privateKeyPEM: String)

    /// pushmock's CA certificate, PEM.
    var certificateAuthorityPEM: String? { get }
}

/// No RSA key is ready yet: they are made ahead, one after another, off the loop.
public struct KeyNotReady: Error, Sendable {
    public init() {}
}
