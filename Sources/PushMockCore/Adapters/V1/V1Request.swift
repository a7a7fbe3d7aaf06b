/// A decoded, validated `POST /v1/projects/{p}/messages:send` body (docs/reference/fcm-v1.md §B.2–B.8).
struct V1Request {
    enum Target {
        case token(String)
        case fid(String)
        case topic(String)
        case condition(String, Condition)
    }

    let target: Target
    /// The `message`, with snake_case names.
    let message: JSONObject
    let validateOnly: Bool
    let content: PushContent

    /// The token the send addressed, if it named one.
    var token: String? {
        if case .token(let t) = target { t } else { nil }
    }

    /// How the send is kept in `GET .../messages`.
    var recordTarget: Message.Target {
        switch target {
        case .token, .fid: .token
        case .topic(let name): .topic(name)
        case .condition(let text, _): .condition(text)
        }
    }

    static let labelPattern = "^[a-zA-Z0-9-_.~%]{1,50}$"

    /// How a kept send decodes back into content (`Message.content`).
    static let format = MessageFormat(appleDefaultExpiry: true) { (try? decode($0))?.content ?? PushContent() }

    static func decode(_ body: [UInt8]) throws(V1Error) -> V1Request {
        let normalized: JSONValue
        let violations: [ProtoViolation]
        do { (normalized, violations) = try ProtoJSON.read(body, as: V1Schema.request) } catch {
            let why = LegacyRequest.parseErrorText(error, body).dropFirst("JSON_PARSING_ERROR: ".count)
            throw .frontEnd([
                ProtoViolation(field: "", description: "Invalid JSON payload received. \(String(why).trimming("\n"))")
            ])
        }
        // `read` hands back a root that is not an object as parsed; it is refused before its
        // violation is.
        guard let request = normalized.objectValue else {
            throw .frontEnd([
                ProtoViolation(
                    field: "", description: "Invalid JSON payload received. Unknown name \"\": Root element must be a message.")
            ])
        }
        if !violations.isEmpty { throw .frontEnd(violations) }
        let message = request["message"]?.objectValue ?? JSONObject()
        let target = try targetOf(message)
        try check(message, target: target)
        return V1Request(
            target: target, message: message, validateOnly: request["validate_only"]?.boolValue ?? false,
            content: content(of: message))
    }

    private static func targetOf(_ m: JSONObject) throws(V1Error) -> Target {
        var found: Target?
        for entry in m.entries where isTargetField(entry.key) {
            let (name, value) = (entry.key, entry.value)
            guard let s = value.stringValue, !s.isEmpty else { continue }
            if found != nil {
                // The proto parser's own refusal, like a wrong type: the front end's answer.
                throw .frontEnd([
                    ProtoViolation(
                        field: "message",
                        description:
                            "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(name)'")
                ])
            }
            switch name {
            case "token": found = .token(s)
            case "fid": found = .fid(s)
            case "topic":
                guard Topic.isValidName(s) else {
                    throw .invalid(
                        "Invalid topic name '\(s)': it must match [a-zA-Z0-9-_.~%]+, without the /topics/ prefix.",
                        field: "message.topic")
                }
                found = .topic(s)
            default:
                do { found = .condition(s, try Condition.parse(s)) } catch {
                    throw .invalid("Invalid condition expression provided.", field: "message.condition")
                }
            }
        }
        guard let found else { throw .invalid("Recipient of the message is not set.", field: "message") }
        return found
    }

    /// (Every member of every send's `message` passes here: `sameSpelling` compares lengths
    /// first.)
    private static func isTargetField(_ name: String) -> Bool {
        name.sameSpelling(as: "token") || name.sameSpelling(as: "topic") || name.sameSpelling(as: "condition")
            || name.sameSpelling(as: "fid")
    }

    private static func check(_ m: JSONObject, target: Target) throws(V1Error) {
        // Looked up once each, without the variadic `value(...)`, which allocates per call.
        let android = m["android"]?.objectValue
        let apns = m["apns"]?.objectValue
        let webpush = m["webpush"]?.objectValue
        func checkKeys(_ data: JSONValue?, _ path: StaticString) throws(V1Error) {
            for entry in data?.objectValue?.entries ?? [] where AndroidRendering.isReservedKey(entry.key) {
                throw .invalid(
                    "Invalid data payload key: \(entry.key). Keys may not be from, message_type, or start with google. or gcm.",
                    field: "\(path)", reason: "reserved_data_key")
            }
        }
        // What an Android app receives is `android.data` when set, so its keys are checked too.
        try checkKeys(m["data"], "message.data")
        try checkKeys(android?["data"], "message.android.data")
        func checkLabel(_ options: JSONValue?, _ path: StaticString) throws(V1Error) {
            if let label = options?["analytics_label"]?.stringValue, !isAnalyticsLabel(label) {
                throw .invalid("Analytics label must match \(labelPattern).", field: "message.\(path).analytics_label")
            }
        }
        try checkLabel(m["fcm_options"], "fcm_options")
        try checkLabel(android?["fcm_options"], "android.fcm_options")
        try checkLabel(apns?["fcm_options"], "apns.fcm_options")
        try checkLabel(webpush?["fcm_options"], "webpush.fcm_options")
        if let ttl = android?["ttl"]?.stringValue, let s = Duration.seconds(ttl), s < 0 || s > Double(PushContent.maxTTL) {
            throw .invalid(
                "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"\(ttl)\": TTL must be 0 to 2419200 seconds.",
                field: "message.android.ttl", reason: "invalid_ttl")
        }
        if let link = webpush?["fcm_options"]?["link"]?.stringValue, !link.lowercased().hasPrefix("https://") {
            throw .invalid("The webpush link must be an HTTPS URL: \(link)", field: "message.webpush.fcm_options.link")
        }
        // FCM passes `apns.headers` on to APNs, which checks each as it checks its own requests.
        if let headers = apns?["headers"]?.objectValue {
            let fields = headers.entries.compactMap { e in e.value.stringValue.map { (name: e.key, value: $0) } }
            if let reason = APNsHeaders.problem(passedOn: fields) { throw .apnsRejected(reason) }
        }
        let topicLike: Bool =
            switch target {
            case .topic, .condition: true
            default: false
            }
        if PayloadSize.exceedsLimits(m, android: android, webpush: webpush, apns: apns, topicLike: topicLike) {
            throw .tooBig
        }
    }

    /// `^[a-zA-Z0-9-_.~%]{1,50}$`, without a regular-expression engine on the hot path.
    static func isAnalyticsLabel(_ s: String) -> Bool {
        s.utf8.count <= 50 && Topic.isValidName(s)
    }

    /// The options the device model and the log need, from the message and its overrides.
    static func content(of m: JSONObject) -> PushContent {
        // Each override object looked up once (the variadic `value(...)` allocates per call).
        let android = m["android"]?.objectValue
        let apns = m["apns"]?.objectValue
        let apnsHeaders = apns?["headers"]?.objectValue
        let aps = apns?["payload"]?["aps"]?.objectValue
        let isNotification = m["notification"] != nil || android?["notification"] != nil || aps?["alert"] != nil
        var priority: Priority?
        switch android?["priority"]?.stringValue?.lowercased() {
        case "high"?: priority = .high
        case "normal"?: priority = .normal
        default:
            switch apnsHeaders?["apns-priority"]?.stringValue {
            case "10"?: priority = .high
            case "5"?, "1"?: priority = .normal
            default: priority = nil
            }
        }
        let ttl = android?["ttl"]?.stringValue.flatMap(Duration.seconds).map { Int($0) } ?? PushContent.maxTTL
        let label =
            m["fcm_options"]?["analytics_label"]?.stringValue
            ?? android?["fcm_options"]?["analytics_label"]?.stringValue
            ?? apns?["fcm_options"]?["analytics_label"]?.stringValue
        // A send without a priority is high only with a top-level `notification` (which
        // makes it a notification message too): the content's default.
        return PushContent(
            notification: m["notification"]?.objectValue, data: m["data"]?.objectValue,
            priority: priority, contentAvailable: aps?["content-available"]?.numberValue?.int == 1,
            mutableContent: aps?["mutable-content"]?.numberValue?.int == 1,
            collapseKey: android?["collapse_key"]?.stringValue, ttl: ttl,
            restrictedPackageName: android?["restricted_package_name"]?.stringValue,
            analyticsLabel: label, isNotification: isNotification,
            apnsExpiration: apnsHeaders?["apns-expiration"]?.stringValue.flatMap({ Int64($0) }), perPlatform: m)
    }
}
