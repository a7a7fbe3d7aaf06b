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
/// columns from the `Device`, so a row stays small. What few rows carry (a reason, a delay,
/// ids the message does not hold) is kept apart, behind one reference: the log holds a
/// million rows, and each of a row's references is released when it is evicted. The fields
/// are declared widest first, so the one-byte ones share the padding at the end.
public struct Event {
    public let seq: Int64
    public let time: Timestamp
    public let projectNumber: Int64
    public let message: Message?
    public let device: Device?
    /// The token the sender addressed, or the device's token when the event was logged.
    public let token: String?
    private let extras: Extras?
    public let kind: EventKind
    public let messageType: MessageType?
    /// Whether `messageID` is the message's own id.
    private let namesItsMessage: Bool

    /// The columns most rows leave empty.
    private final class Extras {
        /// The project's id and the message id, when the message does not hold them (an
        /// event of no message, a multicast recipient's id).
        let projectID: String?
        let messageID: String?
        let reason: String?
        /// How long the message waited (stored offline or held) before this event.
        let delay: Timestamp?

        init(projectID: String?, messageID: String?, reason: String?, delay: Timestamp?) {
            self.projectID = projectID
            self.messageID = messageID
            self.reason = reason
            self.delay = delay
        }
    }

    public var projectID: String { extras?.projectID ?? message!.projectID }
    public var messageID: String? { namesItsMessage ? message!.id : extras?.messageID }
    public var reason: String? { extras?.reason }
    public var delay: Timestamp? { extras?.delay }

    init(
        seq: Int64, time: Timestamp, kind: EventKind, projectID: String, projectNumber: Int64, message: Message?,
        messageID: String?, messageType: MessageType?, device: Device?, token: String?, reason: String?, delay: Timestamp?
    ) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.projectNumber = projectNumber
        self.message = message
        namesItsMessage = messageID != nil && messageID == message?.id
        let ownProjectID = projectID == message?.projectID ? nil : projectID
        let ownMessageID = namesItsMessage ? nil : messageID
        extras =
            ownProjectID == nil && ownMessageID == nil && reason == nil && delay == nil
            ? nil : Extras(projectID: ownProjectID, messageID: ownMessageID, reason: reason, delay: delay)
        self.messageType = messageType
        self.device = device
        self.token = token
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
