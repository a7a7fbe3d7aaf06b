/// How a send's protocol shapes what delivery keeps of it: how the request, kept as received,
/// decodes back into content when a payload is first rendered, and two rules that differ by
/// protocol. Each send API supplies its own; delivery and rendering only read it.
public struct MessageFormat: Sendable {
    /// The content of a request body as received (empty content when it does not decode).
    let decode: @Sendable ([UInt8]) -> PushContent
    /// An iOS device keeps it 30 days when the send sets no `apns-expiration` (HTTP v1 and the
    /// APNs provider API); otherwise its TTL applies.
    let appleDefaultExpiry: Bool
    /// The push reaches the device as it was sent (the APNs provider API), not as FCM renders it.
    public let direct: Bool

    public init(appleDefaultExpiry: Bool = false, direct: Bool = false, decode: @escaping @Sendable ([UInt8]) -> PushContent) {
        self.decode = decode
        self.appleDefaultExpiry = appleDefaultExpiry
        self.direct = direct
    }

    /// A send read back from `--data-dir`, whose log keeps no requests: no content.
    static let stored = MessageFormat(appleDefaultExpiry: true) { _ in PushContent() }
}

/// What a protocol keeps of a send besides its content, for what reaches a device as sent:
/// the APNs provider API's headers and push type.
public protocol MessageDetails {
    /// The headers a device is handed with the push, in order.
    func deviceHeaders(messageID: String) -> [(name: String, value: String)]
    /// What the message view shows of them (`details`), in order; none by default.
    var shown: [(key: String, value: JSONValue)] { get }
}

extension MessageDetails {
    public var shown: [(key: String, value: JSONValue)] { [] }
}
