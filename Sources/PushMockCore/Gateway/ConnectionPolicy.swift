/// Why the transport could not read a request whole.
public enum FramingError: Sendable {
    /// A request line, header or chunk that does not parse.
    case malformed
    /// A head over its bound, or a body over `--max-body-bytes`.
    case tooLarge
}

/// What the gateway asks of an HTTP/2 connection beyond answering its requests: APNs' start
/// of a token-authenticated connection and its idle close (docs/reference/apns.md §E.1). The
/// transport applies it without knowing whose rules they are.
public struct HTTP2Policy: Sendable {
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` offered when the connection starts.
    public let initialStreams: UInt32
    /// Offered once the connection is `ConnectionContext.authenticated`.
    public let streams: UInt32
    /// A connection that receives nothing this long is sent GOAWAY with `idleGoAwayData`
    /// and closed.
    public let idleSeconds: Double
    public let idleGoAwayData: [UInt8]
}

extension Gateway {
    /// The most streams an HTTP/2 connection may have open at once.
    static let http2Streams: UInt32 = 1000
    /// APNs closes a connection idle this long, saying why.
    static let http2IdleSeconds = 3600.0

    /// The policy for a new HTTP/2 connection. APNs offers one stream until a connection's
    /// first valid provider token. pushmock serves every API on one port, so it applies that
    /// start where the client asked for APNs by name: TLS with an APNs host in SNI (as an
    /// official SDK pointed at pushmock by DNS sends), without a client certificate (which
    /// authenticates the connection from the start). Other connections (h2c, `localhost`, an
    /// IP address, Google's hosts) start with every stream, so load tools that open many
    /// streams before reading SETTINGS are not refused.
    public func http2Policy(_ context: ConnectionContext) -> HTTP2Policy {
        let apnsHost = context.serverName.map(APNsProvider.isAPNsHost) ?? false
        if !context.isTLS || !apnsHost || context.clientCertificate != nil { context.authenticated = true }
        return HTTP2Policy(
            initialStreams: context.authenticated ? Self.http2Streams : 1, streams: Self.http2Streams,
            idleSeconds: Self.http2IdleSeconds, idleGoAwayData: Array(#"{"reason":"IdleTimeout"}"#.utf8))
    }

    /// The answer to a request the transport could not read whole, in the shape of the API
    /// its path belongs to. `request` holds what was read: its method and path when the
    /// request line was, and no body. The connection closes after it.
    public func framingError(_ error: FramingError, _ request: Request?) -> Response {
        let family = request.map(family(of:)) ?? .site
        switch (family, error) {
        case (.apns, .tooLarge):
            return APNsProvider.error(APNsFailure(.payloadTooLarge), apnsID: apns.apnsID(for: request!))
        case (.control, .tooLarge):
            return .googleError(413, "INVALID_ARGUMENT", "The request is larger than --max-body-bytes allows.")
        case (.control, .malformed):
            return .googleError(400, "INVALID_ARGUMENT", "The request is not valid HTTP.")
        case (.apns, .malformed), (.legacy, _), (.google, _), (.site, _):
            // APNs reads HTTP/2 only, where nghttp2 refuses a malformed stream itself.
            return GoogleFrontEnd.framingError(error == .tooLarge ? 413 : 400)
        }
    }
}
