/// A decoded `/fcm/send` request (docs/reference/fcm-legacy.md §A.2–A.5), before any recipient is looked at.
struct LegacyRequest {
    enum Target {
        case to(String)
        case registrationIDs([String])
        case condition(String)
        /// No target field at all: every result is MissingRegistration.
        case none
    }

    var target: Target
    var content: PushContent
    var dryRun: Bool
    /// `time_to_live` was a number outside 0…2419200 or not whole: InvalidTtl.
    var invalidTTL: Bool
    /// A plain-text (form) request: answered in `id=` / `Error=` lines.
    var isForm: Bool
    /// What validation reads of `data` and `notification` (`LegacyValidation`). A send only
    /// weighs them where they lie in its body, and its `content` holds neither (its options
    /// say whether it had a notification); decoded to be rendered, both are built.
    var dataWeight: PayloadWeight?
    var notificationWeight: PayloadWeight?

    static let maxRegistrationIDs = 1000

    /// A whole-request rejection: HTTP 400 with FCM's plain-text reason.
    struct Rejection: Error {
        let text: String
    }

    /// Decodes by `Content-Type`: JSON for `application/json`, plain text otherwise (GCM's
    /// rule: an absent or form content type means the plain-text format).
    /// How a kept JSON or plain-text send decodes back into content (`Message.content`).
    static let jsonFormat = MessageFormat { (try? decodeJSON($0, building: true))?.content ?? PushContent() }
    static let formFormat = MessageFormat { (try? decodeForm($0))?.content ?? PushContent() }

    static func decode(_ request: Request) throws(Rejection) -> LegacyRequest {
        var send = request.hasMediaType("application/json") ? try decodeJSON(request.body) : try decodeForm(request.body)
        // GCM read request parameters from the query string as well as the body (a servlet's
        // parameters): `?dry_run=true` made any send a dry run (docs/reference/fcm-legacy.md §A.2).
        if let flag = request.queryValue("dry_run"), flag == "1" || flag.lowercased() == "true" { send.dryRun = true }
        return send
    }

    /// Reads the members FCM knew, matched on their bytes (others are checked and passed,
    /// unbuilt), then refuses as FCM did: a body that is not JSON first, with the parser's
    /// reason, then the first member in order whose value has the wrong type. `data` and
    /// `notification` are built when `building`, else only weighed.
    static func decodeJSON(_ body: [UInt8], building: Bool = false) throws(Rejection) -> LegacyRequest {
        guard body.withUnsafeBufferPointer({ JSONParser($0).startsObject }) else {
            do { _ = try JSONParser.parse(body) } catch { throw Rejection(text: parseErrorText(error, body)) }
            throw Rejection(text: "JSON_PARSING_ERROR: Expected a JSON object at position 0.\n")
        }
        var to: String?
        var ids: [JSONValue]?
        var condition: String?
        var notificationKey: String?
        var collapseKey: String?
        var restricted: String?
        var contentAvailable: Bool?
        var mutableContent: Bool?
        var dryRun: Bool?
        var ttl: JSONNumber?
        var data: JSONObject?
        var notification: JSONObject?
        var dataWeight: PayloadWeight?
        var notificationWeight: PayloadWeight?
        var priority: Priority?
        var rejection: Rejection?
        // One pass over the members; a repeated member's last value wins, a null is as if
        // absent, and unknown members are ignored, as FCM did. (The members are locals, not a
        // struct's fields: those would be copied out and the struct dropped, a cost per send.)
        do {
            try body.withUnsafeBufferPointer { (buf) throws(JSONParseError) in
                try JSONParser.reading(buf) { (p) throws(JSONParseError) in
                    try p.readMembers(Member.spellings) { (p, member) throws(JSONParseError) in
                        guard let member, rejection == nil else { return try p.skip() }
                        if !building, member == .data || member == .notification, p.startsObject {
                            let weight = try PayloadWeight(reading: &p)
                            if member == .data { dataWeight = weight } else { notificationWeight = weight }
                            return
                        }
                        let v = try p.readValue()
                        if case .null = v { return }
                        let name = member.rawValue
                        do throws(Rejection) {
                            switch member {
                            case .to: to = try typed(name, v, "string", v.stringValue)
                            case .registrationIDs:
                                guard let array = v.arrayValue else {
                                    throw Rejection(text: "\"registration_ids\" field is not a JSON array\n")
                                }
                                ids = array
                            case .condition: condition = try typed(name, v, "string", v.stringValue)
                            case .notificationKey: notificationKey = try typed(name, v, "string", v.stringValue)
                            case .collapseKey: collapseKey = try typed(name, v, "string", v.stringValue)
                            case .restrictedPackageName: restricted = try typed(name, v, "string", v.stringValue)
                            case .contentAvailable: contentAvailable = try typed(name, v, "boolean", v.boolValue)
                            case .mutableContent: mutableContent = try typed(name, v, "boolean", v.boolValue)
                            case .dryRun: dryRun = try typed(name, v, "boolean", v.boolValue)
                            case .delayWhileIdle: _ = try typed(name, v, "boolean", v.boolValue)
                            case .timeToLive: ttl = try typed(name, v, "number", v.numberValue)
                            // GCM's texts call any JSON object a "JSON array".
                            case .data: data = try typed(name, v, "array", v.objectValue)
                            case .notification: notification = try typed(name, v, "array", v.objectValue)
                            case .priority: priority = try decodePriority(v)
                            }
                        } catch {
                            rejection = error
                        }
                    }
                }
            }
        } catch {
            throw Rejection(text: parseErrorText(error, body))
        }
        if let rejection { throw rejection }

        let targets = (to != nil || notificationKey != nil ? 1 : 0) + (ids != nil ? 1 : 0) + (condition != nil ? 1 : 0)
        if targets > 1 {
            throw Rejection(
                text: ids != nil && (to != nil || notificationKey != nil)
                    ? "Must use either \"registration_ids\" field or \"to\", not both\n"
                    : "Must use either \"condition\" field or \"to\", not both\n")
        }
        var target = Target.none
        if let t = to ?? notificationKey { target = .to(t) }
        if let condition { target = .condition(condition) }
        if let ids {
            var tokens: [String] = []
            tokens.reserveCapacity(ids.count)
            for v in ids {
                guard let s = v.stringValue else {
                    throw Rejection(
                        text: "Field \"registration_ids\" must be a JSON array of strings: \(JSONWriter.quotedJSON(v))\n")
                }
                tokens.append(s)
            }
            if tokens.isEmpty { throw Rejection(text: "\"registration_ids\" field cannot be empty\n") }
            if tokens.count > maxRegistrationIDs {
                throw Rejection(
                    text: "Number of messages on bulk (\(tokens.count)) exceeds maximum allowed (\(maxRegistrationIDs))\n")
            }
            target = .registrationIDs(tokens)
        }

        var ttlSeconds = PushContent.maxTTL
        var invalidTTL = false
        if let ttl {
            if let n = ttl.int, (0...PushContent.maxTTL).contains(n) { ttlSeconds = n } else { invalidTTL = true }
        }
        // Built objects are weighed here, before they are moved into the content.
        if building {
            dataWeight = data.map(PayloadWeight.init)
            notificationWeight = notification.map(PayloadWeight.init)
        }
        let hasNotification = notificationWeight != nil
        // The members the reading closure set are moved out (`take()`), not copied and then
        // released.
        return LegacyRequest(
            target: target,
            content: PushContent(
                notification: notification.take(), data: data.take(),
                priority: priority ?? PushContent.defaultPriority(notification: hasNotification),
                contentAvailable: contentAvailable ?? false, mutableContent: mutableContent ?? false,
                collapseKey: collapseKey.take(), ttl: ttlSeconds, restrictedPackageName: restricted.take(),
                isNotification: hasNotification),
            dryRun: dryRun ?? false, invalidTTL: invalidTTL, isForm: false,
            dataWeight: dataWeight, notificationWeight: notificationWeight)
    }

    /// The plain-text format: `registration_id=…&collapse_key=…&data.key=value`.
    static func decodeForm(_ body: [UInt8]) throws(Rejection) -> LegacyRequest {
        guard let text = String(validating: body, as: UTF8.self), let pairs = URLCoding.formPairs(text) else {
            throw Rejection(text: "Invalid request: the body is not valid application/x-www-form-urlencoded text\n")
        }
        var fields: [String: String] = [:]
        var data: [(key: String, value: JSONValue)] = []
        for (k, v) in pairs {
            if k.hasPrefix("data.") { data.append((String(k.dropFirst(5)), .string(v))) } else { fields[k] = v }
        }
        var ttl = PushContent.maxTTL
        var invalidTTL = false
        if let t = fields["time_to_live"] {
            if let n = Int(t), (0...PushContent.maxTTL).contains(n) { ttl = n } else { invalidTTL = true }
        }
        let flag: (String) -> Bool = { fields[$0] == "1" || fields[$0]?.lowercased() == "true" }
        let priority: Priority? =
            switch fields["priority"] {
            case "high", "10": .high
            case "normal", "5": .normal
            default: nil
            }
        let content = PushContent(
            data: data.isEmpty ? nil : JSONObject(data), priority: priority,
            contentAvailable: flag("content_available"), collapseKey: fields["collapse_key"],
            ttl: ttl, restrictedPackageName: fields["restricted_package_name"])
        let target: Target = fields["registration_id"].map { .to($0) } ?? .none
        return LegacyRequest(
            target: target, content: content, dryRun: flag("dry_run"), invalidTTL: invalidTTL, isForm: true,
            dataWeight: content.data.map(PayloadWeight.init))
    }

    /// The request members FCM knew, by wire name.
    private enum Member: String, CaseIterable, Sendable {
        static let spellings = Spellings<Member>()

        case to, condition, priority, data, notification
        case registrationIDs = "registration_ids"
        case notificationKey = "notification_key"
        case collapseKey = "collapse_key"
        case restrictedPackageName = "restricted_package_name"
        case contentAvailable = "content_available"
        case mutableContent = "mutable_content"
        case dryRun = "dry_run"
        case delayWhileIdle = "delay_while_idle"
        case timeToLive = "time_to_live"
    }

    /// A member's value when it has the expected type, else FCM's 400 text.
    private static func typed<T>(_ name: String, _ v: JSONValue, _ type: String, _ value: T?) throws(Rejection) -> T {
        guard let value else {
            throw Rejection(text: "Field \"\(name)\" must be a JSON \(type): \(JSONWriter.quotedJSON(v))\n")
        }
        return value
    }

    /// `"high"`/`"normal"`, or the APNs numbers 10/5 that GCM also took.
    private static func decodePriority(_ v: JSONValue) throws(Rejection) -> Priority {
        switch v {
        case .string("high"), .string("10"): return .high
        case .string("normal"), .string("5"): return .normal
        case .number(let n) where n.int == 10: return .high
        case .number(let n) where n.int == 5: return .normal
        default:
            throw Rejection(text: "Invalid value for \"priority\": \(JSONWriter.quotedJSON(v)). Use \"normal\" or \"high\".\n")
        }
    }

    static func parseErrorText(_ e: JSONParseError, _ body: [UInt8]) -> String {
        switch e.kind {
        case .unexpectedCharacter(let c):
            let shown = c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "0x" + String(c, radix: 16)
            return "JSON_PARSING_ERROR: Unexpected character (\(shown)) at position \(e.position).\n"
        case .unexpectedEnd:
            return "JSON_PARSING_ERROR: Unexpected end of input at position \(e.position).\n"
        case .tooDeep:
            return "JSON_PARSING_ERROR: Nesting too deep at position \(e.position).\n"
        case .invalidUTF8:
            return "JSON_PARSING_ERROR: Invalid UTF-8 in string at position \(e.position).\n"
        case .loneSurrogate:
            return "JSON_PARSING_ERROR: Unpaired surrogate in a \\u escape at position \(e.position).\n"
        }
    }
}
