/// The `event` column: FCM BigQuery export names, plus pushmock's error events for rejected
/// sends (the export's own error names).
public enum EventKind: String, Sendable, CaseIterable {
    case messageAccepted = "MESSAGE_ACCEPTED"
    case messageDelivered = "MESSAGE_DELIVERED"
    case messageDisplayed = "MESSAGE_DISPLAYED"
    case messagePresented = "MESSAGE_PRESENTED"
    case messageStored = "MESSAGE_STORED"
    case messageCollapsed = "MESSAGE_COLLAPSED"
    case messageExpired = "MESSAGE_EXPIRED"
    case messageDropped = "MESSAGE_DROPPED"
    case messageOpen = "MESSAGE_OPEN"
    case messageImpression = "MESSAGE_IMPRESSION"
    case missingRegistrations = "MISSING_REGISTRATIONS"
    case unauthorizedRegistration = "UNAUTHORIZED_REGISTRATION"
    case internalError = "MESSAGE_RECEIVED_INTERNAL_ERROR"
    case mismatchSenderID = "MISMATCH_SENDER_ID"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case invalidRegistration = "INVALID_REGISTRATION"
    case invalidPackageName = "INVALID_PACKAGE_NAME"
    case invalidAPNsCredential = "INVALID_APNS_CREDENTIAL"
    case invalidParameters = "INVALID_PARAMETERS"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case authenticationError = "AUTHENTICATION_ERROR"
    case invalidTTL = "INVALID_TTL"
    /// A call to a legacy endpoint under `--legacy-api shutdown`, answered 404.
    case legacyAPICall = "LEGACY_API_CALL"
    /// What became of one attempt to carry an event through a delivery bridge.
    case bridgeAttempt = "BRIDGE_ATTEMPT"
    /// An event a bridge could not take: its queue was full.
    case bridgeOverflow = "BRIDGE_OVERFLOW"

    /// The case's position in `allCases`: a case without a payload is stored as its
    /// declaration index (checked by a test). Counters index arrays with it, and hashing uses
    /// it, instead of hashing the name (the default for a String-backed enum): the send path
    /// counts every event by kind.
    public var ordinal: Int { Int(withUnsafeBytes(of: self) { $0[0] }) }

    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    /// The export's error events, for rejected sends.
    public var isError: Bool {
        switch self {
        case .messageAccepted, .messageDelivered, .messageDisplayed, .messagePresented, .messageStored,
            .messageCollapsed, .messageExpired, .messageDropped, .messageOpen, .messageImpression:
            false
        default: true
        }
    }
}

/// One row of the delivery log. Message-level columns come from the shared `Message`, device
/// columns from the `Device`, so a row stays small. The fields are declared widest first, so
/// the one-byte ones share the padding after `delay` (the log holds a million rows).
public struct Event {
    public let seq: Int64
    public let time: Timestamp
    public let projectNumber: Int64
    public let message: Message?
    public let device: Device?
    /// The project's id and the message id are kept only when the message does not hold them
    /// (an event of no message, a multicast recipient's id): each of a send's events would
    /// otherwise hold both again, a reference counted once when logged and once when evicted.
    private let ownProjectID: String?
    private let ownMessageID: String?
    /// The token the sender addressed, when there is no device (e.g. an unknown token).
    public let token: String?
    public let reason: String?
    /// How long the message waited (stored offline or held) before this event.
    public let delay: Timestamp?
    public let kind: EventKind
    public let messageType: MessageType?
    /// Whether `messageID` is the message's own id.
    private let namesItsMessage: Bool

    public var projectID: String { ownProjectID ?? message!.projectID }
    public var messageID: String? { namesItsMessage ? message!.id : ownMessageID }

    init(
        seq: Int64, time: Timestamp, kind: EventKind, projectID: String, projectNumber: Int64, message: Message?,
        messageID: String?, messageType: MessageType?, device: Device?, token: String?, reason: String?, delay: Timestamp?
    ) {
        self.seq = seq
        self.time = time
        self.kind = kind
        ownProjectID = projectID == message?.projectID ? nil : projectID
        self.projectNumber = projectNumber
        self.message = message
        namesItsMessage = messageID != nil && messageID == message?.id
        ownMessageID = namesItsMessage ? nil : messageID
        self.messageType = messageType
        self.device = device
        self.token = token
        self.reason = reason
        self.delay = delay
    }
}

extension Event {
    /// Whether the event names `token`: the address the sender used (an FCM token, or an APNs
    /// token the device has since lost), or any address the device holds now (its FCM token,
    /// APNs token or installation id).
    public func concerns(token: String) -> Bool {
        self.token == token || device?.token == token || device?.apnsToken == token
            || device?.withFID { token.hasBytes($0) } == true
    }
}
