/// FCM priority as the sender set it (or as FCM defaults it).
public enum Priority: String, Sendable {
    case high, normal

    /// The APNs priority FCM uses for it.
    public var apnsPriority: Int { self == .high ? 10 : 5 }
}

/// The normalized content of one send, whichever API it came through.
public struct PushContent {
    /// The `notification` object as sent (legacy keys, in order).
    public var notification: JSONObject?
    public var data: JSONObject?
    public var priority: Priority
    public var contentAvailable: Bool
    public var mutableContent: Bool
    public var collapseKey: String?
    /// Seconds.
    public var ttl: Int
    public var restrictedPackageName: String?
    public var analyticsLabel: String?

    public var isNotification: Bool { notification != nil }

    public init(notification: JSONObject? = nil, data: JSONObject? = nil, priority: Priority? = nil,
                contentAvailable: Bool = false, mutableContent: Bool = false, collapseKey: String? = nil,
                ttl: Int = PushContent.maxTTL, restrictedPackageName: String? = nil, analyticsLabel: String? = nil) {
        self.notification = notification
        self.data = data
        // FCM's default: high for notification messages, normal for data messages.
        self.priority = priority ?? (notification != nil ? .high : .normal)
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.collapseKey = collapseKey
        self.ttl = ttl
        self.restrictedPackageName = restrictedPackageName
        self.analyticsLabel = analyticsLabel
    }

    /// Four weeks, FCM's default and maximum TTL.
    public static let maxTTL = 2_419_200

    /// BigQuery's `message_type` for one recipient.
    public var messageType: MessageType { isNotification ? .displayNotification : .dataMessage }
}

/// The BigQuery export's `message_type` values.
public enum MessageType: String, Sendable {
    case displayNotification = "DISPLAY_NOTIFICATION"
    case dataMessage = "DATA_MESSAGE"
    case topic = "TOPIC"
}

/// One accepted send, as the app server made it: the request exactly as received, the
/// normalized content every recipient's payload is rendered from, and its target.
public final class Message {
    public enum Target {
        case token, multicast, topic(String), condition(String), group(String)

        public var name: String {
            switch self {
            case .token: "token"
            case .multicast: "multicast"
            case .topic: "topic"
            case .condition: "condition"
            case .group: "device_group"
            }
        }
    }

    public let id: String
    public let projectID: String
    public let projectNumber: Int64
    public let api: String
    public let target: Target
    public let content: PushContent
    public let requestBody: String
    public let requestContentType: String?
    public let receivedAt: Timestamp
    public let bulkID: Int64?
    public let dryRun: Bool
    /// Message ids of the recipients that were accepted (token and multicast sends).
    public internal(set) var recipientIDs: [String] = []
    /// Guarded by the loop thread.
    public internal(set) var accepted = 0
    public internal(set) var failed = 0

    init(id: String, projectID: String, projectNumber: Int64, api: String, target: Target, content: PushContent,
         requestBody: String, requestContentType: String?, receivedAt: Timestamp, bulkID: Int64?, dryRun: Bool) {
        self.id = id
        self.projectID = projectID
        self.projectNumber = projectNumber
        self.api = api
        self.target = target
        self.content = content
        self.requestBody = requestBody
        self.requestContentType = requestContentType
        self.receivedAt = receivedAt
        self.bulkID = bulkID
        self.dryRun = dryRun
    }

    public var topic: String? { if case .topic(let t) = target { t } else { nil } }
}
