/// What the transport knows about the connection a request arrived on, beyond the request
/// itself: HTTP/2 or not, the TLS client certificate and SNI, and what each service keeps per
/// connection (`state`). One per connection; loop thread only.
public final class ConnectionContext {
    public let isHTTP2: Bool
    public let clientCertificate: ClientCertificate?
    /// Whether the connection is TLS, and the host name its client asked for there (SNI).
    public let isTLS: Bool
    public let serverName: String?
    /// What services keep for this connection, one object per type (APNs: its provider token
    /// and team); a connection carries one or two services, so a list is searched.
    private var states: [AnyObject] = []
    /// Whether the connection has passed APNs' start-up limit of one stream: a valid provider
    /// token, a client certificate, or a request to another service (`Gateway.http2Policy`).
    public internal(set) var authenticated = false

    public init(isHTTP2: Bool, clientCertificate: ClientCertificate?, isTLS: Bool = true, serverName: String? = nil) {
        self.isHTTP2 = isHTTP2
        self.clientCertificate = clientCertificate
        self.isTLS = isTLS
        self.serverName = serverName
    }

    /// The connection's state of type `T`, made by `make` on first use.
    func state<T: AnyObject>(_ make: () -> T) -> T {
        // Compared by class, not cast: a push asks more than once, and a dynamic cast costs more.
        for s in states where ObjectIdentifier(type(of: s)) == ObjectIdentifier(T.self) {
            return unsafeDowncast(s, to: T.self)
        }
        let t = make()
        states.append(t)
        return t
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
