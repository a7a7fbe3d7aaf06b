/// Makes the push subscriptions of Web devices as their browsers would: a new P-256 key pair
/// and 16 random `auth` bytes (RFC 8291 §2), and an endpoint token shaped as the browser's push
/// service shapes them. Without Web Push's cryptography (Core's tests) it makes none. Loop
/// thread only.
struct PushSubscriptionMaker {
    let crypto: (any WebPushCrypto)?
    let random: RandomSource
    /// `--web-push-hosts real`: endpoints on the push services' own hosts.
    let realHosts: Bool
    /// pushmock's own HTTP origin, for a subscription no request asked for (a seed fixture).
    let ownOrigin: String

    /// A new subscription for `browser`, on `origin` (the origin the request that asked came
    /// to) unless endpoints are on the services' own hosts; nil without cryptography.
    func make(_ browser: Browser, applicationServerKey: [UInt8]?, origin: String?) throws(RegistrationError)
        -> PushSubscription?
    {
        guard let crypto else { return nil }
        guard let keys = try? crypto.makeP256KeyPair() else {
            throw .failedPrecondition("The fake browser could not make its subscription's key pair.")
        }
        if browser == .safari, applicationServerKey == nil {
            throw .invalid("Safari subscribes only with an applicationServerKey: give 'application_server_key'.")
        }
        if let key = applicationServerKey {
            // The browser refuses a key that is not a P-256 point (`InvalidAccessError`).
            guard key.count == 65, key[0] == 4, crypto.ecdh(privateKey: keys.privateKey, peerPublicKey: key) != nil else {
                throw .invalid(
                    "Invalid value at 'application_server_key': not a P-256 public key (65 bytes, uncompressed, base64url).")
            }
        }
        return PushSubscription(
            browser: browser, origin: realHosts ? browser.serviceOrigin : origin ?? ownOrigin, token: token(for: browser),
            applicationServerKey: applicationServerKey, privateKey: keys.privateKey, publicKey: keys.publicKey,
            auth: random.bytes(16))
    }

    /// A subscription a fixture or the saved state gives whole (or a test, with RFC 8291's
    /// keys); nil without cryptography.
    func restore(
        _ browser: Browser, origin: String, token: String, privateKey: [UInt8], auth: [UInt8], applicationServerKey: [UInt8]?
    ) throws(RegistrationError) -> PushSubscription? {
        guard let crypto else { return nil }
        guard let publicKey = crypto.publicKey(ofPrivateKey: privateKey) else {
            throw .invalid("Invalid value at 'push_private_key': not a P-256 private key (32 bytes, base64url).")
        }
        guard auth.count == 16 else { throw .invalid("Invalid value at 'push_auth': expected 16 bytes, base64url.") }
        guard (16...256).contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte) else {
            throw .invalid("Invalid value at 'push_token': use 16-256 base64url characters or ':'.")
        }
        return PushSubscription(
            browser: browser, origin: origin, token: token, applicationServerKey: applicationServerKey, privateKey: privateKey,
            publicKey: publicKey, auth: auth)
    }

    /// Endpoint tokens as each service makes them (docs/reference/web-push.md §2): FCM's as its
    /// registration tokens are, 11 base64url characters, `:APA91b` and 134 more; autopush's as
    /// Fernet tokens are, `gAAAAAB` and 133 more; Apple's 64 opaque base64url characters.
    private func token(for browser: Browser) -> String {
        switch browser {
        case .chrome: random.base64URL(11) + ":APA91b" + random.base64URL(134)
        case .firefox: "gAAAAAB" + random.base64URL(133)
        case .safari: random.base64URL(64)
        }
    }

    private static func isTokenByte(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
            || c == 0x3A
    }
}
