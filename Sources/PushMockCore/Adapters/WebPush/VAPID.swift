/// A sender's VAPID identification (RFC 8292) as push services check it
/// (docs/reference/web-push.md §3): `Authorization: vapid t=<JWT>, k=<key>`, or the older
/// `WebPush <JWT>` (also `Bearer`) with the key in `Crypto-Key: p256ecdsa=`. The JWT is ES256
/// (a raw r ‖ s signature) over `aud` (the endpoint's origin), `exp` (at most 24 hours ahead)
/// and `sub` (a contact). A signature once verified is remembered with its claims (an app
/// server signs a JWT once and reuses it until it expires); the claims are checked on every
/// push. Loop thread only.
final class VAPID {
    /// What the sender gave, read but not yet checked.
    struct Credentials {
        let token: String
        let key: [UInt8]
    }

    /// The verified claims of a JWT: the push service keeps no more.
    struct Claims {
        let audience: String
        let expires: Double
        let subject: String?
    }

    /// A VAPID problem, and the words of each service for it.
    struct Problem: Error {
        /// autopush's message (401, errno 109).
        let message: String
        /// The RFC's "VAPID key is not the subscription's": FCM answers it with its own text.
        var keyMismatch = false
        /// No `Authorization` at all on a restricted subscription.
        var missing = false
        /// A `WebPush` scheme without `Crypto-Key: p256ecdsa` (autopush: 400, errno 110).
        var missingP256ECDSA = false
    }

    private let crypto: any WebPushCrypto
    private var verified: [String: Claims] = [:]
    static let rememberedLimit = 4096

    init(crypto: any WebPushCrypto) { self.crypto = crypto }

    /// The credentials a request carries: nil when it has no `Authorization`.
    static func credentials(_ request: Request) throws(Problem) -> Credentials? {
        guard let authorization = request.header("authorization"), !authorization.isEmpty else { return nil }
        let (scheme, rest) = split(authorization)
        switch scheme.lowercased() {
        case "vapid":
            var token: Substring?
            var key: Substring?
            for part in rest.split(separator: ",") {
                let p = Substring(String(part).trimming(" \t"))
                if p.hasPrefix("t=") { token = p.dropFirst(2) } else if p.hasPrefix("k=") { key = p.dropFirst(2) }
            }
            guard let token, !token.isEmpty else { throw Problem(message: "Missing auth token") }
            guard let key else { throw Problem(message: "Missing public key") }
            return Credentials(token: String(token), key: try decodeKey(key))
        case "webpush", "bearer":
            guard let key = cryptoKeyParameter("p256ecdsa", request) else {
                throw Problem(message: "Missing p256ecdsa in Crypto-Key header", missingP256ECDSA: true)
            }
            return Credentials(token: String(rest).trimming(" \t"), key: try decodeKey(key[...]))
        default:
            throw Problem(message: "Invalid Authorization scheme")
        }
    }

    /// Checks the credentials for an endpoint: the signature, `aud` equal to the endpoint's
    /// origin, `exp` in the future and at most 24 hours ahead, and for a restricted
    /// subscription its key.
    func check(_ credentials: Credentials, origin: String, restrictedTo key: [UInt8]?, now: Double) throws(Problem) -> Claims {
        if let key, key != credentials.key {
            throw Problem(message: "VAPID public key mismatch", keyMismatch: true)
        }
        let claims = try verify(credentials)
        guard claims.audience == origin else { throw Problem(message: "Invalid VAPID audience") }
        guard claims.expires > now else { throw Problem(message: "Invalid VAPID: the token has expired") }
        guard claims.expires <= now + 86_400 else { throw Problem(message: "The VAPID token expiration is too long") }
        return claims
    }

    /// The signature checked (or remembered as checked) and the claims read.
    private func verify(_ c: Credentials) throws(Problem) -> Claims {
        let memo = c.token + " " + Base64URL.encode(c.key)
        if let claims = verified[memo] { return claims }
        guard let jwt = JWT(c.token) else { throw Problem(message: "Invalid VAPID token: not a JWT") }
        guard jwt.header["alg"]?.stringValue == "ES256" else { throw Problem(message: "Invalid VAPID token: alg is not ES256") }
        guard jwt.signature.count == 64,
            crypto.verifyES256(message: jwt.signedPart, signature: jwt.signature, publicKey: c.key)
        else { throw Problem(message: "Invalid VAPID signature") }
        guard let audience = jwt.claims["aud"]?.stringValue else { throw Problem(message: "Missing VAPID audience") }
        guard let expires = jwt.seconds("exp") else { throw Problem(message: "Missing VAPID expiration") }
        let claims = Claims(audience: audience, expires: expires, subject: jwt.claims["sub"]?.stringValue)
        if verified.count >= Self.rememberedLimit { verified.removeAll() }
        verified[memo] = claims
        return claims
    }

    /// A 65-byte uncompressed P-256 point, in base64url (standard base64 and padding are
    /// taken too, as autopush takes them).
    private static func decodeKey(_ text: Substring) throws(Problem) -> [UInt8] {
        guard let key = Base64URL.decode(String(text).trimming(" \t\"")), key.count == 65, key[0] == 4 else {
            throw Problem(message: "Invalid VAPID public key")
        }
        return key
    }

    /// `Crypto-Key`: `,`-separated sections of `;`-separated `name=value` pairs, quotes
    /// stripped; the first value of `name`.
    static func cryptoKeyParameter(_ name: String, _ request: Request) -> String? {
        parameter(name, in: request.header("crypto-key"))
    }

    /// The first `name=value` in a header of `,`- and `;`-separated pairs (`Crypto-Key`,
    /// `Encryption`).
    static func parameter(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for section in header.split(whereSeparator: { $0 == "," || $0 == ";" }) {
            let pair = section.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).trimming(" \t").lowercased() == name else { continue }
            return String(pair[1]).trimming(" \t\"")
        }
        return nil
    }

    /// The scheme and the rest of an `Authorization` value.
    private static func split(_ value: String) -> (Substring, Substring) {
        let trimmed = value.drop { $0 == " " }
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed, "") }
        return (trimmed[..<space], trimmed[trimmed.index(after: space)...])
    }
}
