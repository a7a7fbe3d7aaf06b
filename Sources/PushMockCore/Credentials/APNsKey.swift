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
