/// An APNs token-signing key (.p8) registered in a project: its 10-character key id, the
/// team it belongs to, its public key, and where it may be used (docs/reference/apns.md §E.3).
public struct APNsKey: Sendable {
    public let keyID: String
    public let teamID: String
    public let projectID: String
    public let publicKeyPEM: String
    /// Nil: both environments (a team key); else only this one.
    public let environment: APNsEnvironment?
    /// Nil: every topic of the team; else only these bundle ids (a topic-specific key).
    public let topics: [String]?
}

/// What an APNs server remembers about one connection (§E.1, §E.3): the team and key the
/// first authenticated push bound it to, and the provider token in use and since when.
struct APNsConnectionState {
    var teamID: String?
    var token: String?
    var tokenSince: Timestamp = 0
    /// The last provider token verified on the connection: APNs checks a connection's token
    /// once, not on every push.
    var verified: VerifiedProviderToken?
    /// The last push's headers as read, with the header list they were read from: HTTP/2
    /// hands a header block that repeats the last one over as the same list (shared, not
    /// copied), which then is not read again.
    var headers: (fields: [(name: String, value: String)], value: APNsHeaders)?
}

/// A provider token whose signature was checked, with what it resolved to, and the
/// `authorization` value it came in: the same value next time is neither read nor verified
/// again while the registered keys and projects are unchanged (`version`).
final class VerifiedProviderToken {
    let authorization: String
    let token: String
    let key: APNsKey
    let iat: Double
    /// The key's project, if it still exists.
    let project: Project?
    let version: Int

    init(authorization: String, token: String, key: APNsKey, iat: Double, project: Project?, version: Int) {
        self.authorization = authorization
        self.token = token
        self.key = key
        self.iat = iat
        self.project = project
        self.version = version
    }
}
