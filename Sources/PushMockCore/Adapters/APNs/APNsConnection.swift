/// What APNs keeps per connection (docs/reference/apns.md §E.1, §E.3), kept by the APNs module
/// in the connection's context (`ConnectionContext.state`): the team the connection's
/// first authenticated push bound it to, the provider token in use and since when, and the
/// last token and headers read. Loop thread only.
final class APNsConnection {
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

extension ConnectionContext {
    /// The APNs state of this connection, made on first use.
    var apns: APNsConnection { state(APNsConnection.init) }
}
