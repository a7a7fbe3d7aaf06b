/// A service account pushmock issued: the public half of its key, to verify the JWTs its
/// holder signs when it asks the token endpoint for an access token.
public struct ServiceAccount: Sendable {
    public let projectID: String
    public let email: String
    public let keyID: String
    public let clientID: String
    public let publicKeyPEM: String
}

/// An OAuth 2 access token handed out by `POST /token`.
public struct AccessToken: Sendable {
    public let projectID: String
    public let email: String
    public let expires: Timestamp
}
