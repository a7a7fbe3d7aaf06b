/// Google's OAuth 2 token endpoint (`oauth2.googleapis.com/token`, JWT-bearer grant), as the
/// Admin SDKs' google-auth uses it (docs/reference/clients.md): a service account's signed
/// assertion in, an access token for Google's APIs out.
struct OAuthAPI: GatewayModule {
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    let credentials: Credentials
    let clock: Clock
    let random: RandomSource

    private static func oauthError(_ error: String, _ description: String) -> Reply {
        .response(.json(400, "{\"error\":\(JSONWriter.quoted(error)),\"error_description\":\(JSONWriter.quoted(description))}"))
    }

    /// `POST /token`: verifies the RS256 assertion against the service accounts pushmock
    /// issued; checks `iss`, `scope`, `iat` and `exp` (not `aud`, which stays Google's).
    func addRoutes(to routes: inout Routes) {
        routes.group("", GoogleFrontEndStyle.rest) { r in r.add("POST", "/token") { req, _ in token(req) } }
    }

    func token(_ request: Request) -> Reply {
        guard let text = String(validating: request.body, as: UTF8.self), let pairs = URLCoding.formPairs(text) else {
            return Self.oauthError("invalid_request", "The request body is not application/x-www-form-urlencoded.")
        }
        let form = Dictionary(pairs, uniquingKeysWith: { $1 })
        guard let grant = form["grant_type"] else {
            return Self.oauthError("invalid_request", "Missing required parameter: grant_type")
        }
        guard grant == Self.jwtBearerGrant else {
            return Self.oauthError("unsupported_grant_type", "Invalid grant_type: \(grant)")
        }
        guard let assertion = form["assertion"] else {
            return Self.oauthError("invalid_request", "Missing required parameter: assertion")
        }
        guard let jwt = JWT(assertion), jwt.header["alg"]?.stringValue == "RS256" else {
            return Self.oauthError("invalid_grant", "Invalid JWT: the assertion is not a signed RS256 JWT.")
        }
        guard let iss = jwt.claims["iss"]?.stringValue, let account = credentials.serviceAccounts[iss] else {
            return Self.oauthError("invalid_grant", "Invalid grant: account not found")
        }
        if let kid = jwt.header["kid"]?.stringValue, kid != account.keyID {
            return Self.oauthError("invalid_grant", "Invalid JWT Signature.")
        }
        guard
            credentials.keys?.verifyRS256(message: jwt.signedPart, signature: jwt.signature, publicKeyPEM: account.publicKeyPEM)
                == true
        else {
            return Self.oauthError("invalid_grant", "Invalid JWT Signature.")
        }
        let now = Double(clock.now()) / 1_000_000
        guard let iat = jwt.seconds("iat"), let exp = jwt.seconds("exp"), exp > now, iat <= now + 300, exp - iat <= 3600 else {
            return Self.oauthError(
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        let scopes = Set((jwt.claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: AccessToken.messagingScopes) else {
            return Self.oauthError("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        }
        let token = "ya29.c." + random.base64URL(160)
        credentials.issueAccessToken(token, for: account, scopes: scopes)
        return .response(.json(200, "{\"access_token\":\"\(token)\",\"expires_in\":3599,\"token_type\":\"Bearer\"}"))
    }
}
