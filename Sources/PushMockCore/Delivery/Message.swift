/// FCM priority as the sender set it (or as FCM defaults it).
public enum Priority: String, Sendable {
    case high, normal

    /// The APNs priority FCM uses for it.
    public var apnsPriority: Int { self == .high ? 10 : 5 }
}

/// The delivery options of one send: what fan-out, the device model and the log columns
/// need. Small, so every accepted message keeps it.
///
/// Its optionals are spelled `Optional<T>`, as `PushContent`'s and `Request`'s are: a stored
/// `var x: T?` starts as nil before an initializer runs, and Swift then builds the struct in
/// memory and copies it out whole (docs/PERFORMANCE.md, fourteenth pass).
public struct PushOptions: Sendable {
    public var priority: Priority
    public var contentAvailable: Bool
    public var mutableContent: Bool
    public var collapseKey: Optional<String>
    /// Seconds.
    public var ttl: Int
    public var restrictedPackageName: Optional<String>
    public var analyticsLabel: Optional<String>
    public var isNotification: Bool
    /// HTTP v1: `apns.headers["apns-expiration"]` when the sender set it (epoch seconds; 0 is
    /// one attempt only).
    public var apnsExpiration: Optional<Int64>

    /// BigQuery's `message_type` for one recipient.
    public var messageType: MessageType { isNotification ? .displayNotification : .dataMessage }
}

/// The normalized content of one send, whichever API it came through: the options plus the
/// user-visible `notification` and the `data` map. Made in one step by its initializer (a
/// content made and then changed is copied out whole); its optionals as `PushOptions`'s.
public struct PushContent: Sendable {
    /// The `notification` object as sent (legacy keys, in order).
    public var notification: Optional<JSONObject>
    public var data: Optional<JSONObject>
    public var options: PushOptions
    /// A send that shapes each platform's payload itself (HTTP v1's `android`, `apns` and
    /// `webpush` blocks): the whole message, snake_case, as the renderers read it.
    public var perPlatform: Optional<JSONObject>
    /// A push that reaches a browser directly (Web Push): its data as the service worker gets
    /// it, decrypted; nil when it carried none or did not decrypt.
    public var payload: Optional<[UInt8]>
    /// Why a Web Push body did not decrypt: the browser drops it.
    public var payloadError: Optional<String>

    public init(
        notification: JSONObject? = nil, data: JSONObject? = nil, priority: Priority? = nil,
        contentAvailable: Bool = false, mutableContent: Bool = false, collapseKey: String? = nil,
        ttl: Int = PushContent.maxTTL, restrictedPackageName: String? = nil, analyticsLabel: String? = nil,
        isNotification: Bool? = nil, apnsExpiration: Int64? = nil, perPlatform: JSONObject? = nil,
        payload: [UInt8]? = nil, payloadError: String? = nil
    ) {
        self.notification = notification
        self.data = data
        options = PushOptions(
            priority: priority ?? Self.defaultPriority(notification: notification != nil),
            contentAvailable: contentAvailable, mutableContent: mutableContent,
            collapseKey: collapseKey, ttl: ttl, restrictedPackageName: restrictedPackageName,
            analyticsLabel: analyticsLabel, isNotification: isNotification ?? (notification != nil),
            apnsExpiration: apnsExpiration)
        self.perPlatform = perPlatform
        self.payload = payload
        self.payloadError = payloadError
    }

    /// FCM's default: high for notification messages (a top-level `notification`), normal
    /// for data messages.
    public static func defaultPriority(notification: Bool) -> Priority { notification ? .high : .normal }

    /// Four weeks, FCM's default and maximum TTL.
    public static let maxTTL = 2_419_200
}

/// The BigQuery export's `message_type` values.
public enum MessageType: String, Sendable {
    case displayNotification = "DISPLAY_NOTIFICATION"
    case dataMessage = "DATA_MESSAGE"
    case topic = "TOPIC"
    /// pushmock's own: a push an app server sent to a browser's push service directly (Web
    /// Push, RFC 8030), whose content only the browser sees.
    case webPush = "WEB_PUSH"
}

/// One accepted send, as the app server made it: the request exactly as received, its
/// options and its target. The full content that payloads are rendered from is decoded again
/// from the request when first needed (by its protocol's `MessageFormat`), so the log's many
/// messages stay small.
public final class Message {
    public enum Target {
        case token, multicast
        case topic(String)
        case condition(String)
        case group(String)

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

    // What evicting a send reads comes first, beside the reference count: a send is evicted
    // long after it was made, when it is out of the cache, and each other line read is a
    // wait for memory.
    /// The bytes of the request this send keeps (body, request line and headers) and of the
    /// send itself, which `--max-message-mb` bounds.
    let keptBytes: Int
    /// Message ids of the recipients that were accepted (token and multicast sends).
    public internal(set) var recipientIDs: [String] = []
    public let id: String
    /// The id's hash, computed once (`MessageKey.fold`): the message store finds sends by it.
    let idHash: UInt64
    public let projectID: String
    public let projectNumber: Int64
    public let api: String
    public let target: Target
    public let options: PushOptions
    public let format: MessageFormat
    /// The request body exactly as received; let go of when the send leaves the message store
    /// (`letGoOfRequest`).
    public private(set) var requestBytes: [UInt8]
    /// The request's method, path and headers as received (empty for a send read back from
    /// `--data-dir`, whose log keeps no requests).
    public let requestHead: RequestHead
    /// What a kept send holds besides its request: this object, its ids and options, its
    /// recipients' ids (about; measured in docs/hardening.md).
    static let heldBesides = 512
    public let receivedAt: Timestamp
    public let bulkID: Int64?
    public let dryRun: Bool
    /// How the request arrived, so a test can tell its client used HTTP/2 or TLS.
    public internal(set) var overHTTP2 = false
    public internal(set) var overTLS = false
    /// What the send's protocol keeps besides the content (APNs: the headers as read and the
    /// push type they resolve to).
    public internal(set) var details: (any MessageDetails)?
    /// A push FCM made for a browser: the FCM send it carries (`PushServiceRelay`).
    public internal(set) var forwarding: Message?
    /// Guarded by the loop thread.
    public internal(set) var accepted = 0
    public internal(set) var failed = 0

    init(
        id: String, projectID: String, projectNumber: Int64, api: String, target: Target, options: PushOptions,
        format: MessageFormat,
        requestBytes: [UInt8], requestHead: RequestHead, receivedAt: Timestamp, bulkID: Int64?, dryRun: Bool
    ) {
        self.id = id
        idHash = MessageKey.fold(id)
        self.projectID = projectID
        self.projectNumber = projectNumber
        self.api = api
        self.target = target
        self.options = options
        self.format = format
        // A body read in parts may have room to spare; a large spare is given back, so what
        // `--max-message-mb` counts is what is held.
        self.requestBytes = requestBytes.capacity - requestBytes.count > 4096 ? Array(requestBytes) : requestBytes
        self.requestHead = requestHead
        keptBytes = self.requestBytes.count + requestHead.bytes + Self.heldBesides
        self.receivedAt = receivedAt
        self.bulkID = bulkID
        self.dryRun = dryRun
    }

    public var requestContentType: String? { requestHead.headers.first { $0.name.lowercased() == "content-type" }?.value }

    public var topic: String? { if case .topic(let t) = target { t } else { nil } }

    /// The content payloads are rendered from, decoded from the request on first use.
    public var content: PushContent { decoded.content }

    /// How a browser sees this send: whether it carries a notification, its TTL and its
    /// collapse key (the Web Push `Topic`). Read from the content, once, on first use.
    public var web: WebOptions { decoded.web }

    /// What is decoded from the request on first use, held by one reference: most kept sends
    /// are never asked for it, and inline it would make every one of them larger.
    private final class Decoded {
        let content: PushContent
        lazy var web = WebOptions(content)

        init(_ content: PushContent) { self.content = content }
    }
    private var decodedOnce: Decoded?
    private var decoded: Decoded {
        if let decodedOnce { return decodedOnce }
        let new = Decoded(format.decode(requestBytes))
        decodedOnce = new
        return new
    }

    /// The send left the message store (evicted or removed), but its events and the devices'
    /// inboxes still refer to it: a body larger than a payload can be (4 KiB), which may be a
    /// megabyte the bound no longer counts, is let go, what they render decoded first. A
    /// smaller one stays (decoding it would cost every send of a full store more than it
    /// holds), as does an APNs body, which is the payload itself.
    func letGoOfRequest() {
        // The size kept is read first: it is on this object, while the body's own storage is
        // long out of the cache when a send is evicted, and is then touched only for a large one.
        guard keptBytes - Self.heldBesides > 4096, !format.direct, requestBytes.count > 4096 else { return }
        _ = content
        _ = web
        requestBytes = []
    }

    /// Whether the device is sent a notification (not only data). HTTP v1's `webpush.notification`
    /// makes a notification for browsers alone.
    public func isNotification(on platform: Platform) -> Bool {
        platform == .web ? web.isNotification : options.isNotification
    }

    /// BigQuery's `message_type` for one recipient on a platform.
    func messageType(on platform: Platform?) -> MessageType {
        if format.direct, platform == .web { return .webPush }
        return platform == .web ? (web.isNotification ? .displayNotification : .dataMessage) : options.messageType
    }

    /// When the message stops being worth delivering to a platform: `apns-expiration` for
    /// iOS when set (HTTP v1 defaults it to 30 days), the Web Push `TTL` for browsers, else
    /// the TTL. A message that expires when it was received is now-or-never.
    public func expiry(on platform: Platform) -> Timestamp {
        if platform == .web { return receivedAt + Timestamp(web.ttl) * 1_000_000 }
        if platform == .ios {
            if let exp = options.apnsExpiration {
                if exp == 0 { return receivedAt }
                // Seconds past year 294,000 (which `apns-expiration` may well say) stay far off.
                let (micros, overflow) = exp.multipliedReportingOverflow(by: 1_000_000)
                return overflow ? (exp > 0 ? .max : .min) : micros
            }
            if format.appleDefaultExpiry { return receivedAt + 30 * 86_400 * 1_000_000 }
        }
        return receivedAt + Timestamp(options.ttl) * 1_000_000
    }

    /// The request body as text (invalid UTF-8 shows as U+FFFD).
    public var requestBody: String { String(decoding: requestBytes, as: UTF8.self) }
}

/// A send's options as a browser's push service applies them (docs/device-model.md, "Web").
/// Legacy options apply to every platform; HTTP v1 gives browsers their own in `webpush`:
/// the `TTL` and `Topic` headers of the Web Push protocol (RFC 8030 §5.2, §5.4), and a
/// `webpush.notification` that makes a notification for browsers alone.
public struct WebOptions {
    public let isNotification: Bool
    /// Seconds the push service keeps the message for a browser that is not connected.
    public let ttl: Int
    /// A stored message replaces an older one with the same key.
    public let collapseKey: String?
    /// HTTP v1's `webpush.headers.Urgency` (RFC 8030 §5.3), as the sender gave it.
    public let urgency: String?
    /// The priority FCM's push to a browser says it had (its payload's `priority`): `high` for
    /// `Urgency: high` (legacy: `priority: high`), else `normal`.
    public let priority: String

    init(_ content: PushContent) {
        guard let m = content.perPlatform else {
            isNotification = content.options.isNotification
            ttl = content.options.ttl
            collapseKey = content.options.collapseKey
            urgency = nil
            priority = content.options.priority == .high ? "high" : "normal"
            return
        }
        let webpush = m["webpush"]?.objectValue
        isNotification = m["notification"] != nil || webpush?["notification"] != nil
        let headers = webpush?["headers"]?.objectValue?.entries ?? []
        func header(_ name: String) -> String? {
            headers.last { $0.key.lowercased() == name.lowercased() }?.value.stringValue
        }
        // FCM's own default and ceiling, four weeks, where the header is absent or unreadable.
        ttl = header("TTL").flatMap { Int($0) }.map { min(max($0, 0), PushContent.maxTTL) } ?? PushContent.maxTTL
        collapseKey = header("Topic")
        urgency = header("Urgency")
        priority = urgency == "high" ? "high" : "normal"
    }
}

/// What a send's request said besides its body: shown by `GET .../messages/{id}`.
public struct RequestHead: Sendable {
    public var method = ""
    public var path = ""
    public var headers: [(name: String, value: String)] = []

    var bytes: Int { headers.reduce(method.utf8.count + path.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count } }
}
