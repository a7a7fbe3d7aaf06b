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

    /// The policy for a new HTTP/2 connection: every stream from the start, unless a module
    /// says the connection starts in its service's start-up limit (APNs, docs/reference/apns.md
    /// §E.1); then one, and all once the connection is authenticated.
    public func http2Policy(_ context: ConnectionContext) -> HTTP2Policy {
        if !modules.contains(where: { $0.limitsConnectionStart(context) }) { context.authenticated = true }
        return HTTP2Policy(
            initialStreams: context.authenticated ? Self.http2Streams : 1, streams: Self.http2Streams,
            idleSeconds: Self.http2IdleSeconds, idleGoAwayData: Array(#"{"reason":"IdleTimeout"}"#.utf8))
    }

    /// The answer to a request the transport could not read whole, in the style of the API
    /// its path belongs to. `request` holds what was read: its method and path when the
    /// request line was, and no body. The connection closes after it.
    public func framingError(_ error: FramingError, _ request: Request?) -> Response {
        guard let request else { return Self.siteStyle.framingError(error, Request(method: "GET", target: "/")) }
        logUnread(request, error)
        return style(of: request).framingError(error, request)
    }
}
