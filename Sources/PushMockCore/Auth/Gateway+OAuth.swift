/// Service accounts and Google's OAuth 2 token endpoint (`oauth2.googleapis.com/token`,
/// JWT-bearer grant), as the Admin SDKs' google-auth uses them (clients.md).
extension Gateway {
    static let accessTokenLifetime: Timestamp = 3600 * 1_000_000
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let messagingScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]

    /// `GET /emulator/v1/projects/{p}/serviceAccount`: a service-account JSON with a fresh
    /// RSA key, accepted as is by `credentials.Certificate`; `token_uri` points at pushmock:
    /// Google's own token URI when asked as a Google host over TLS (pushmock answers there),
    /// else the host and scheme the request used.
    func serviceAccount(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        guard let keys else { throw ControlError(response: .googleError(500, "INTERNAL", "No key service is configured.")) }
        let pair: (privatePEM: String, publicPEM: String)
        do { pair = try keys.generateRSAKey() } catch {
            throw ControlError(response: .googleError(500, "INTERNAL", "Key generation failed: \(error)"))
        }
        let keyID = random.hex(40)
        let clientID = String(random.next() % 9_000_000_000_000_000_000 + 1_000_000_000_000_000_000)
        let email = "firebase-adminsdk-\(random.hex(5))@\(project.id).iam.gserviceaccount.com"
        serviceAccounts[email] = ServiceAccount(projectID: project.id, email: email, keyID: keyID, clientID: clientID,
                                                publicKeyPEM: pair.publicPEM)
        let host = request.header("host") ?? "\(configuration.host):\(configuration.port)"
        var w = JSONWriter(capacity: 2400)
        w.beginObject()
        w.member("type", "service_account")
        w.member("project_id", project.id)
        w.member("private_key_id", keyID)
        w.member("private_key", pair.privatePEM)
        w.member("client_email", email)
        w.member("client_id", clientID)
        w.member("auth_uri", "https://accounts.google.com/o/oauth2/auth")
        let googleHost = host.split(separator: ":").first.map { $0.hasSuffix(".googleapis.com") } ?? false
        w.member("token_uri", request.secure && googleHost ? "https://oauth2.googleapis.com/token"
            : (request.secure ? "https://" : "http://") + host + "/token")
        w.member("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs")
        w.member("client_x509_cert_url", "https://www.googleapis.com/robot/v1/metadata/x509/" + email.replacingOccurrences(of: "@", with: "%40"))
        w.member("universe_domain", "googleapis.com")
        w.endObject()
        return .response(.json(200, w))
    }

    private static func oauthError(_ error: String, _ description: String) -> Reply {
        .response(.json(400, "{\"error\":\(JSONWriter.quoted(error)),\"error_description\":\(JSONWriter.quoted(description))}"))
    }

    /// `POST /token`: verifies the RS256 assertion against the service accounts pushmock
    /// issued; checks `iss`, `scope`, `iat` and `exp` (not `aud`, which stays Google's).
    func token(_ request: Request) -> Reply {
        guard let text = String(validating: request.body, as: UTF8.self), let pairs = URLCoding.formPairs(text) else {
            return Self.oauthError("invalid_request", "The request body is not application/x-www-form-urlencoded.")
        }
        let form = Dictionary(pairs, uniquingKeysWith: { $1 })
        guard let grant = form["grant_type"] else { return Self.oauthError("invalid_request", "Missing required parameter: grant_type") }
        guard grant == Self.jwtBearerGrant else { return Self.oauthError("unsupported_grant_type", "Invalid grant_type: \(grant)") }
        guard let assertion = form["assertion"] else { return Self.oauthError("invalid_request", "Missing required parameter: assertion") }
        guard let jwt = JWT(assertion), jwt.header["alg"]?.stringValue == "RS256" else {
            return Self.oauthError("invalid_grant", "Invalid JWT: the assertion is not a signed RS256 JWT.")
        }
        guard let iss = jwt.claims["iss"]?.stringValue, let account = serviceAccounts[iss] else {
            return Self.oauthError("invalid_grant", "Invalid grant: account not found")
        }
        if let kid = jwt.header["kid"]?.stringValue, kid != account.keyID {
            return Self.oauthError("invalid_grant", "Invalid JWT Signature.")
        }
        guard keys?.verifyRS256(message: jwt.signedPart, signature: jwt.signature, publicKeyPEM: account.publicKeyPEM) == true else {
            return Self.oauthError("invalid_grant", "Invalid JWT Signature.")
        }
        let now = Double(clock.now()) / 1_000_000
        guard let iat = jwt.seconds("iat"), let exp = jwt.seconds("exp"), exp > now, iat <= now + 300, exp - iat <= 3600 else {
            return Self.oauthError("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
        }
        let scopes = Set((jwt.claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: Self.messagingScopes) else {
            return Self.oauthError("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        }
        let token = "ya29.c." + random.base64URL(160)
        accessTokens[token] = AccessToken(projectID: account.projectID, email: account.email,
                                          expires: clock.now() + Self.accessTokenLifetime)
        return .response(.json(200, "{\"access_token\":\"\(token)\",\"expires_in\":3599,\"token_type\":\"Bearer\"}"))
    }

    /// Why a bearer credential does not let the request act on `projectID`, in Google's
    /// error shape; nil when it does (or `--accept-any-token`).
    func bearerFailure(_ request: Request, projectID: String) -> Response? {
        if configuration.acceptAnyToken { return nil }
        guard let header = request.header("authorization") else {
            return Self.unauthenticated("Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.", invalidToken: false)
        }
        guard let token = accessToken(header), token.expires > clock.now() else {
            return Self.unauthenticated("Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.", invalidToken: true)
        }
        guard let project = apiProject(projectID), project.id == token.projectID else {
            return Self.permissionDenied(projectID)
        }
        return nil
    }

    /// The access token an `Authorization` value carries, if pushmock issued it; the last one
    /// found is remembered (a client sends the same one until it expires).
    private func accessToken(_ header: String) -> AccessToken? {
        accessTokenByAuthorization.value(for: header) { Self.bearerToken(header).flatMap { accessTokens[$0] } }
    }

    /// The token of `Bearer <token>` (scheme in any case), read on bytes; `trimmed` drops
    /// spaces around it (APNs takes them, Google's APIs do not), and an empty token is none.
    static func bearerToken(_ header: String, trimmed: Bool = false) -> String? {
        let u = header.utf8
        guard u.count > 7, Request.equalsLowercased(String(Substring(u.prefix(7))), "bearer ") else { return nil }
        var token = u.dropFirst(7)
        guard trimmed else { return String(Substring(token)) }
        while token.first == 0x20 { token = token.dropFirst() }
        while token.last == 0x20 { token = token.dropLast() }
        return token.isEmpty ? nil : String(Substring(token))
    }

    /// A project named in a Google API path, by id or by number; nil when there is none.
    func apiProject(_ idOrNumber: String) -> Project? {
        apiProjectByName.value(for: idOrNumber) {
            projects[idOrNumber] ?? projects.values.first { String($0.number) == idOrNumber }
        }
    }

    /// The project a Google API path names once its bearer passed: an existing one, or with
    /// `--accept-any-token` any valid id (created on first use, as the control API does).
    func googleAPIProject(_ idOrNumber: String) -> Project? {
        apiProject(idOrNumber) ?? (configuration.acceptAnyToken ? project(idOrNumber) : nil)
    }

    static func permissionDenied(_ projectID: String) -> Response {
        .googleError(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(projectID)' (or it may not exist).")
    }

    static func unauthenticated(_ message: String, invalidToken: Bool) -> Response {
        var r = Response.googleError(401, "UNAUTHENTICATED", message)
        if invalidToken {
            r.headers.append(("WWW-Authenticate", "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""))
        }
        return r
    }
}
