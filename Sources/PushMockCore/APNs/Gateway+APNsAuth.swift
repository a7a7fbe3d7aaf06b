/// APNs provider authentication: a client certificate issued by pushmock's CA, or an ES256
/// provider token signed by a key registered in a project (protocol.md §E.3).
extension Gateway {
    /// Provider tokens older than this are expired.
    static let providerTokenLifetime: Timestamp = 3600 * 1_000_000
    /// A connection may switch to a new token at most this often.
    static let providerTokenMinInterval: Timestamp = 20 * 60 * 1_000_000

    /// The project the request's credential belongs to, or why it is refused.
    func authenticateAPNs(_ request: Request, _ headers: APNsHeaders, environment: APNsEnvironment) throws(APNsFailure) -> Project {
        if let certificate = request.connection?.clientCertificate {
            return try certificateProject(certificate, headers, environment: environment)
        }
        guard let auth = headers.authorization else { throw APNsFailure(.missingProviderToken) }
        let text: String
        if let context = request.connection, context.apns.authorization == auth, let token = context.apns.token {
            text = token
        } else {
            guard let token = Self.bearerToken(auth, trimmed: true) else { throw APNsFailure(.missingProviderToken) }
            text = token
        }
        let (key, iat) = try verifiedProviderToken(text, on: request.connection)
        if let only = key.environment, only != environment { throw APNsFailure(.badEnvironmentKeyIdInToken) }
        if let topics = key.topics, !topics.contains(headers.bundleID) { throw APNsFailure(.invalidProviderToken) }
        let now = clock.now()
        if now - Timestamp(iat * 1_000_000) > Self.providerTokenLifetime { throw APNsFailure(.expiredProviderToken) }
        guard let project = projects[key.projectID] else { throw APNsFailure(.invalidProviderToken) }
        if let context = request.connection {
            if let team = context.apns.teamID, team != key.teamID { throw APNsFailure(.unrelatedKeyIdInToken) }
            if let current = context.apns.token, current != text {
                guard now - context.apns.tokenSince >= Self.providerTokenMinInterval else {
                    throw APNsFailure(.tooManyProviderTokenUpdates)
                }
            }
            if context.apns.token != text {
                context.apns.token = text
                context.apns.tokenSince = now
            }
            context.apns.authorization = auth
            context.apns.teamID = key.teamID
        }
        return project
    }

    /// The key that signed a provider token, and its `iat`; a token already verified on the
    /// connection is not verified again.
    private func verifiedProviderToken(_ text: String, on context: ConnectionContext?) throws(APNsFailure) -> (APNsKey, Double) {
        if let v = context?.apns.verified, v.token == text, let key = apnsKeys[v.keyID] { return (key, v.iat) }
        guard let jwt = JWT(text), jwt.header["alg"]?.stringValue == "ES256", let kid = jwt.header["kid"]?.stringValue,
              let key = apnsKeys[kid], let iss = jwt.claims["iss"]?.stringValue, iss == key.teamID,
              let iat = jwt.seconds("iat"), let keys,
              keys.verifyES256(message: jwt.signedPart, signature: jwt.signature, publicKeyPEM: key.publicKeyPEM) else {
            throw APNsFailure(.invalidProviderToken)
        }
        context?.apns.verified = (text, kid, iat)
        return (key, iat)
    }

    /// Certificate auth: issued by pushmock's CA, for the other environment or not, and for
    /// the topic's bundle id.
    private func certificateProject(_ certificate: ClientCertificate, _ headers: APNsHeaders,
                                    environment: APNsEnvironment) throws(APNsFailure) -> Project {
        guard certificate.trusted, let bundle = certificate.userID, let team = certificate.organizationalUnit,
              let project = projects.values.first(where: { $0.teamID == team }) else {
            throw APNsFailure(.badCertificate)
        }
        if environment == .production, certificate.commonName?.hasPrefix("Apple Development") == true {
            throw APNsFailure(.badCertificateEnvironment)
        }
        guard headers.bundleID == bundle else { throw APNsFailure(.topicDisallowed) }
        return project
    }
}
