/// A service account pushmock issued: the public half of its key, to verify the JWTs its
/// holder signs when it asks the token endpoint for an access token.
public struct ServiceAccount: Sendable {
    public let projectID: String
    public let email: String
    public let keyID: String
    public let clientID: String
    public let publicKeyPEM: String
    /// The private key, for an account pushmock made (it hands the same JSON out again).
    public var privateKeyPEM: String? = nil
}

/// An OAuth 2 access token handed out by `POST /token`, with the scopes it was asked for.
public struct AccessToken: Sendable {
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    public static let cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"
    /// The scopes that let a token send messages (either will do).
    public static let messagingScopes: Set<String> = [messagingScope, cloudPlatformScope]

    public let projectID: String
    public let email: String
    public let expires: Timestamp
    public let scopes: Set<String>

    public init(
        projectID: String, email: String, expires: Timestamp,
        scopes: Set<String> = AccessToken.messagingScopes
    ) {
        self.projectID = projectID
        self.email = email
        self.expires = expires
        self.scopes = scopes
    }
}
