/// A decoded, validated `POST /v1/projects/{p}/messages:send` body (docs/reference/fcm-v1.md §B.2–B.8).
struct V1Request {
    enum Target {
        case token(String)
        case fid(String)
        case topic(String)
        case condition(String, Condition)
    }

    let target: Target
    /// The `message`, with snake_case names; without `data` and `notification` when they were
    /// left unbuilt (below).
    let message: JSONObject
    /// `message.data` and `message.notification`: a send usually leaves them unbuilt, and
    /// weighs them where they lie in its body; decoded to be rendered, they are built.
    let data: Member
    let notification: Member
    let validateOnly: Bool
    let content: PushContent

    /// `message.data` or `message.notification` as the send has it: absent, built, or left
    /// unbuilt where it lies in the body (`ProtoJSON.Unbuilt`), weighed and its first
    /// reserved key found as it was checked.
    enum Member {
        case absent
        case built(JSONObject)
        case unbuilt(ProtoJSON.Unbuilt.Part, in: [UInt8])

        init(_ value: JSONValue?) { self = value?.objectValue.map { .built($0) } ?? .absent }

        var isPresent: Bool {
            if case .absent = self { false } else { true }
        }

        /// The object if it was built (what a send's content keeps).
        var built: JSONObject? {
            if case .built(let object) = self { object } else { nil }
        }

        /// The object, built from its bytes if it was left unbuilt.
        var object: JSONObject? {
            switch self {
            case .absent: nil
            case .built(let object): object
            case .unbuilt(let part, let body): (try? JSONParser.parse(Array(body[part.span])))?.objectValue
            }
        }

        /// Bytes of its keys and string values, as FCM counts a payload (`PayloadSize.pairs`).
        var pairsBytes: Int {
            if case .unbuilt(let part, _) = self { part.pairBytes } else { PayloadSize.pairs(built) }
        }

        /// Its first key that FCM keeps for itself (`AndroidRendering.isReservedKey`).
        var reservedKey: String? {
            switch self {
            case .absent: nil
            case .built(let object): object.entries.first { AndroidRendering.isReservedKey($0.key) }?.key
            case .unbuilt(let part, let body): part.marked.map { String(decoding: body[$0], as: UTF8.self) }
            }
        }
    }

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
    static let format = MessageFormat(appleDefaultExpiry: true) { (try? decode($0, building: true))?.content ?? PushContent() }

    /// What a send leaves unbuilt when its body is canonical: `message.data` and
    /// `message.notification`, each weighed and its reserved keys found as it is checked.
    private static let unbuilt = ProtoJSON.Unbuilt(
        ["data", "notification"], of: V1Schema.messageFields, marking: AndroidRendering.isReservedKey)

    /// `data` and `notification` are built when `building`; otherwise they are left unbuilt
    /// when the body is canonical.
    static func decode(_ body: [UInt8], building: Bool = false) throws(V1Error) -> V1Request {
        let normalized: JSONValue
        let violations: [ProtoViolation]
        var unbuilt = building ? nil : Self.unbuilt
        do { (normalized, violations) = try ProtoJSON.read(body, as: V1Schema.request, leaving: &unbuilt) } catch {
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
        let data = unbuilt?.part(0).map { Member.unbuilt($0, in: body) } ?? Member(message["data"])
        let notification = unbuilt?.part(1).map { Member.unbuilt($0, in: body) } ?? Member(message["notification"])
        let target = try targetOf(message)
        try check(message, data: data, notification: notification, target: target)
        return V1Request(
            target: target, message: message, data: data, notification: notification,
            validateOnly: request["validate_only"]?.boolValue ?? false,
            content: content(of: message, data: data, notification: notification))
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

    private static func check(_ m: JSONObject, data: Member, notification: Member, target: Target) throws(V1Error) {
        // Looked up once each, without the variadic `value(...)`, which allocates per call.
        let android = m["android"]?.objectValue
        let apns = m["apns"]?.objectValue
        let webpush = m["webpush"]?.objectValue
        func checkKeys(_ data: Member, _ path: StaticString) throws(V1Error) {
            if let key = data.reservedKey {
                throw .invalid(
                    "Invalid data payload key: \(key). Keys may not be from, message_type, or start with google. or gcm.",
                    field: "\(path)", reason: "reserved_data_key")
            }
        }
        // What an Android app receives is `android.data` when set, so its keys are checked too.
        try checkKeys(data, "message.data")
        try checkKeys(Member(android?["data"]), "message.android.data")
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
        if PayloadSize.exceedsLimits(
            data: data, notification: notification, android: android, webpush: webpush, apns: apns, topicLike: topicLike)
        {
            throw .tooBig
        }
    }

    /// `^[a-zA-Z0-9-_.~%]{1,50}$`, without a regular-expression engine on the hot path.
    static func isAnalyticsLabel(_ s: String) -> Bool {
        s.utf8.count <= 50 && Topic.isValidName(s)
    }

    /// The options the device model and the log need, from the message and its overrides;
    /// `notification` and `data` as they were built (on the send path, usually neither).
    static func content(of m: JSONObject, data: Member, notification: Member) -> PushContent {
        // Each override object looked up once (the variadic `value(...)` allocates per call).
        let android = m["android"]?.objectValue
        let apns = m["apns"]?.objectValue
        let apnsHeaders = apns?["headers"]?.objectValue
        let aps = apns?["payload"]?["aps"]?.objectValue
        // A `notification` the message holds counts even when null, as an unbuilt one does.
        let isNotification =
            notification.isPresent || m["notification"] != nil || android?["notification"] != nil || aps?["alert"] != nil
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
            notification: notification.built, data: data.built,
            priority: priority ?? PushContent.defaultPriority(notification: notification.isPresent),
            contentAvailable: aps?["content-available"]?.numberValue?.int == 1,
            mutableContent: aps?["mutable-content"]?.numberValue?.int == 1,
            collapseKey: android?["collapse_key"]?.stringValue, ttl: ttl,
            restrictedPackageName: android?["restricted_package_name"]?.stringValue,
            analyticsLabel: label, isNotification: isNotification,
            apnsExpiration: apnsHeaders?["apns-expiration"]?.stringValue.flatMap({ Int64($0) }), perPlatform: m)
    }
}
