/// What the transport knows about the connection a request arrived on, beyond the request
/// itself: HTTP/2 or not, the TLS client certificate, and the APNs state a real APNs server
/// keeps per connection. One per connection; loop thread only.
public final class ConnectionContext {
    public let isHTTP2: Bool
    public let clientCertificate: ClientCertificate?
    /// Whether the connection is TLS, and the host name its client asked for there (SNI).
    public let isTLS: Bool
    public let serverName: String?
    /// Bound by the connection's first authenticated push (docs/reference/apns.md §E.1, §E.3).
    var apns = APNsConnectionState()
    /// Whether the connection has passed APNs' start-up limit of one stream: a valid provider
    /// token, a client certificate, or a request to another service (`Gateway.http2Policy`).
    public internal(set) var authenticated = false

    public init(isHTTP2: Bool, clientCertificate: ClientCertificate?, isTLS: Bool = true, serverName: String? = nil) {
        self.isHTTP2 = isHTTP2
        self.clientCertificate = clientCertificate
        self.isTLS = isTLS
        self.serverName = serverName
    }
}

/// A TLS client certificate as the handshake presented it.
public struct ClientCertificate: Sendable {
    /// Subject `UID`: the bundle id of an APNs certificate.
    public var userID: String?
    public var commonName: String?
    /// Subject `OU`: the team id of an APNs certificate.
    public var organizationalUnit: String?
    /// Whether it chains to pushmock's CA and is within its validity period.
    public var trusted: Bool

    public init(userID: String?, commonName: String?, organizationalUnit: String?, trusted: Bool) {
        self.userID = userID
        self.commonName = commonName
        self.organizationalUnit = organizationalUnit
        self.trusted = trusted
    }
}
