/// APNs provider authentication: a client certificate issued by pushmock's CA, or an ES256
/// provider token signed by a key registered in a project (docs/reference/apns.md §E.3).
extension APNsProvider {
    /// Provider tokens older than this are expired.
    static let providerTokenLifetime: Timestamp = 3600 * 1_000_000
    /// A connection may switch to a new token at most this often.
    static let providerTokenMinInterval: Timestamp = 20 * 60 * 1_000_000

    /// The project the request's credential belongs to, or why it is refused.
    func authenticate(_ request: Request, _ headers: APNsHeaders, environment: APNsEnvironment) throws(APNsFailure) -> Project {
        if let certificate = request.connection?.clientCertificate {
            return try certificateProject(certificate, headers, environment: environment)
        }
        guard let auth = headers.authorization else { throw APNsFailure(.missingProviderToken) }
        let context = request.connection
        let state = context?.apns
        // The usual case: the connection's bound token again, in the same `authorization`.
        if let state, let v = state.verified, v.version == credentials.apnsVersion, v.authorization == auth,
            state.token == v.token
        {
            return try checkProviderToken(v, headers, environment: environment, now: parts.clock.now())
        }
        guard let text = Authorization.bearerToken(auth, trimmed: true) else { throw APNsFailure(.missingProviderToken) }
        let v = try verifiedProviderToken(text, authorization: auth, on: state)
        let now = parts.clock.now()
        // A connection serves the team of its first token (§E.1).
        if let team = state?.teamID, team != v.key.teamID { throw APNsFailure(.unrelatedKeyIdInToken) }
        let project = try checkProviderToken(v, headers, environment: environment, now: now)
        if let context, let state {
            if let current = state.token, current != text {
                guard now - state.tokenSince >= Self.providerTokenMinInterval else {
                    throw APNsFailure(.tooManyProviderTokenUpdates)
                }
            }
            if state.token != text {
                state.token = text
                state.tokenSince = now
            }
            state.teamID = v.key.teamID
            context.authenticated = true
        }
        return project
    }

    /// The project a refused push is logged in when its token names no device: the one its
    /// credential belongs to (a provider token's key is looked up, not verified), if any.
    func senderProject(_ request: Request) -> Project? {
        if let certificate = request.connection?.clientCertificate {
            return certificate.organizationalUnit.flatMap { directory.project(teamID: $0) }
        }
        if let project = request.connection?.apns.verified?.project { return project }
        guard let text = request.header("authorization").flatMap({ Authorization.bearerToken($0, trimmed: true) }),
            let kid = JWT(text)?.header["kid"]?.stringValue, let key = credentials.apnsKeys[kid]
        else { return nil }
        return directory[key.projectID]
    }

    /// What is checked on every push, however often its token was seen: the key's
    /// environment and topics, the token's age, the key's project.
    private func checkProviderToken(
        _ v: VerifiedProviderToken, _ headers: APNsHeaders, environment: APNsEnvironment,
        now: Timestamp
    ) throws(APNsFailure) -> Project {
        if let only = v.key.environment, only != environment { throw APNsFailure(.badEnvironmentKeyIdInToken) }
        if let topics = v.key.topics, !topics.contains(headers.bundleID) { throw APNsFailure(.invalidProviderToken) }
        if now - Timestamp(v.iat * 1_000_000) > Self.providerTokenLifetime { throw APNsFailure(.expiredProviderToken) }
        guard let project = v.project else { throw APNsFailure(.invalidProviderToken) }
        // A valid token of another team (a key registered with another `team_id`): its project's
        // apps are not that team's topics (§E.3).
        guard v.key.teamID == project.teamID else { throw APNsFailure(.topicDisallowed) }
        return project
    }

    /// The key that signed a provider token, and its `iat`; a token already verified on the
    /// connection is not verified again.
    private func verifiedProviderToken(
        _ text: String, authorization: String,
        on state: APNsConnection?
    ) throws(APNsFailure) -> VerifiedProviderToken {
        if let v = state?.verified, v.version == credentials.apnsVersion, v.token == text {
            if v.authorization == authorization { return v }
            let again = VerifiedProviderToken(
                authorization: authorization, token: text, key: v.key, iat: v.iat,
                project: v.project, version: v.version)
            state?.verified = again
            return again
        }
        guard let jwt = JWT(text), jwt.header["alg"]?.stringValue == "ES256", let kid = jwt.header["kid"]?.stringValue,
            let key = credentials.apnsKeys[kid], let iss = jwt.claims["iss"]?.stringValue, iss == key.teamID,
            let iat = jwt.seconds("iat"), let keys = credentials.keys,
            keys.verifyES256(message: jwt.signedPart, signature: jwt.signature, publicKeyPEM: key.publicKeyPEM)
        else {
            throw APNsFailure(.invalidProviderToken)
        }
        let v = VerifiedProviderToken(
            authorization: authorization, token: text, key: key, iat: iat,
            project: directory[key.projectID], version: credentials.apnsVersion)
        state?.verified = v
        return v
    }

    /// Certificate auth: issued by pushmock's CA, for the other environment or not, and for
    /// the topic's bundle id.
    private func certificateProject(
        _ certificate: ClientCertificate, _ headers: APNsHeaders,
        environment: APNsEnvironment
    ) throws(APNsFailure) -> Project {
        guard certificate.trusted, let bundle = certificate.userID, let team = certificate.organizationalUnit,
            let project = directory.project(teamID: team)
        else {
            throw APNsFailure(.badCertificate)
        }
        if environment == .production, certificate.commonName?.hasPrefix("Apple Development") == true {
            throw APNsFailure(.badCertificateEnvironment)
        }
        guard headers.bundleID == bundle else { throw APNsFailure(.topicDisallowed) }
        return project
    }
}
