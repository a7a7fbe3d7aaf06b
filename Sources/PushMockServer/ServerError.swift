/// Why the server could not start or keep running: which part failed, and what it said. The
/// kind tells a caller (and a test) where to look; the description is what `pushmock` prints.
public struct ServerError: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A libevent call failed (the loop, an event, a buffer, a listener).
        case libevent
        /// A socket could not be resolved, bound or read back.
        case socket
        /// An nghttp2 call failed.
        case nghttp2
        /// OpenSSL refused a key, a certificate or a TLS setting.
        case tls
        /// The certificate directory or the CA in it.
        case certificates
        /// The durable log under `--data-dir`.
        case store
        /// The configuration or a `--seed` fixture.
        case configuration
        /// A client command talking to a running pushmock (`pushmock service-account`).
        case client
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// A libevent call that returned failure.
    static func libevent(_ call: String) -> ServerError { ServerError(.libevent, "\(call) failed") }
    /// An nghttp2 call that returned an error code.
    static func nghttp2(_ call: String) -> ServerError { ServerError(.nghttp2, "\(call) failed") }
}
