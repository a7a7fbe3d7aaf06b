/// The HTTP v1 `Message` resource's fields and types (docs/reference/fcm-v1.md §B.3–B.5, V1-DISCOVERY),
/// and the validation Google's JSON mapping does: unknown names and wrong types are 400
/// INVALID_ARGUMENT with the field's path. Names are accepted in snake_case and lowerCamelCase
/// and normalized to snake_case; free-form maps (`data`, `headers`, `apns.payload`) are kept
/// as sent.
indirect enum V1Type: Sendable {
    case string, bool, int, number, duration
    case stringMap, stringArray, freeObject, anyJSON
    case enumeration(Set<String>)
    /// Fields by name, found by a scan: a message has at most a few dozen.
    case object(KeyValuePairs<String, V1Type>)
    case array(V1Type)

    var protoName: String {
        switch self {
        case .string: "TYPE_STRING"
        case .bool: "TYPE_BOOL"
        case .int: "TYPE_INT32"
        case .number: "TYPE_FLOAT"
        case .duration: "type.googleapis.com/google.protobuf.Duration"
        case .enumeration: "TYPE_ENUM"
        case .stringMap, .freeObject, .object: "TYPE_MESSAGE"
        case .stringArray, .array: "TYPE_STRING"
        case .anyJSON: "TYPE_MESSAGE"
        }
    }
}

enum V1Schema {
    static let fcmOptions: V1Type = .object(["analytics_label": .string])
    static let androidNotification: V1Type = .object([
        "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
        "click_action": .string, "body_loc_key": .string, "body_loc_args": .stringArray, "title_loc_key": .string,
        "title_loc_args": .stringArray, "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .string,
        "local_only": .bool,
        "notification_priority": .enumeration([
            "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT",
            "PRIORITY_HIGH", "PRIORITY_MAX",
        ]),
        "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool,
        "vibrate_timings": .array(.duration),
        "visibility": .enumeration(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]),
        "light_settings": .object([
            "color": .object(["red": .number, "green": .number, "blue": .number, "alpha": .number]),
            "light_on_duration": .duration, "light_off_duration": .duration,
        ]),
        "image": .string, "notification_count": .int,
        "proxy": .enumeration(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
        "bypass_proxy_notification": .bool,
    ])
    static let android: V1Type = .object([
        "collapse_key": .string, "priority": .enumeration(["NORMAL", "HIGH", "normal", "high"]), "ttl": .duration,
        "restricted_package_name": .string, "data": .stringMap, "notification": androidNotification,
        "fcm_options": fcmOptions, "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool,
        "restricted_satellite_ok": .bool,
    ])
    static let webpush: V1Type = .object([
        "headers": .stringMap, "data": .stringMap, "notification": .freeObject,
        "fcm_options": .object(["link": .string, "analytics_label": .string]),
    ])
    static let apns: V1Type = .object([
        "headers": .stringMap, "payload": .freeObject,
        "fcm_options": .object(["analytics_label": .string, "image": .string]), "live_activity_token": .string,
    ])
    static let message: V1Type = .object([
        "name": .string, "data": .stringMap, "notification": .object(["title": .string, "body": .string, "image": .string]),
        "android": android, "webpush": webpush, "apns": apns, "fcm_options": fcmOptions,
        "token": .string, "topic": .string, "condition": .string, "fid": .string,
    ])
    static let request: V1Type = .object(["message": message, "validate_only": .bool])

    struct Violation: Error {
        let field: String
        let description: String
    }

    /// Validates `value` against `type` at `path` and returns it with snake_case names.
    static func normalize(_ value: JSONValue, _ type: V1Type, path: String) throws(Violation) -> JSONValue {
        try rewritten(value, type, at: { path }) ?? value
    }

    /// The value with snake_case names, or nil when it already has them (most requests: the
    /// tree is then not copied). The field path is only spelled out for an error.
    private static func rewritten(_ value: JSONValue, _ type: V1Type, at: () -> String) throws(Violation) -> JSONValue? {
        if case .null = value { return nil }
        func wrong() -> Violation {
            let path = at()
            return Violation(
                field: path, description: "Invalid value at '\(path)' (\(type.protoName)), \(JSONWriter.quotedJSON(value))")
        }
        switch type {
        case .string: guard value.stringValue != nil else { throw wrong() }
        case .bool: guard value.boolValue != nil else { throw wrong() }
        case .int: guard value.numberValue?.int != nil else { throw wrong() }
        case .number: guard value.numberValue != nil else { throw wrong() }
        case .duration: guard let s = value.stringValue, Duration.seconds(s) != nil else { throw wrong() }
        case .enumeration(let allowed): guard let s = value.stringValue, allowed.contains(s) else { throw wrong() }
        case .anyJSON: break
        case .freeObject: guard value.objectValue != nil else { throw wrong() }
        case .stringArray:
            guard let items = value.arrayValue else { throw wrong() }
            for (i, item) in items.enumerated() where item.stringValue == nil {
                let path = at()
                throw Violation(
                    field: "\(path)[\(i)]",
                    description: "Invalid value at '\(path)[\(i)]' (TYPE_STRING), \(JSONWriter.quotedJSON(item))")
            }
        case .array(let element):
            guard let items = value.arrayValue else { throw wrong() }
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                let new = try rewritten(item, element, at: { "\(at())[\(i)]" })
                if new != nil, out == nil { out = Array(items[..<i]) }
                out?.append(new ?? item)
            }
            return out.map { .array($0) }
        case .stringMap:
            guard let obj = value.objectValue else { throw wrong() }
            for (i, entry) in obj.entries.enumerated() where entry.value.stringValue == nil {
                let field = "\(at())[\(i)].value"
                throw Violation(
                    field: field, description: "Invalid value at '\(field)' (TYPE_STRING), \(JSONWriter.quotedJSON(entry.value))")
            }
        case .object(let fields):
            guard let obj = value.objectValue else { throw wrong() }
            var out: [(key: String, value: JSONValue)]?
            for (i, (key, item)) in obj.entries.enumerated() {
                let name = snakeCase(key)
                guard let fieldType = fields.first(where: { $0.key.utf8.count == name.utf8.count && $0.key == name })?.value
                else {
                    let path = at()
                    throw Violation(
                        field: path,
                        description:
                            "Invalid JSON payload received. Unknown name \"\(key)\"\(path.isEmpty ? "" : " at '\(path)'"): Cannot find field."
                    )
                }
                let new = try rewritten(
                    item, fieldType,
                    at: {
                        let p = at()
                        return p.isEmpty ? name : "\(p).\(name)"
                    })
                if new != nil || name != key, out == nil { out = Array(obj.entries[..<i]) }
                out?.append((name, new ?? item))
            }
            return out.map { .object(JSONObject($0)) }
        }
        return nil
    }

    /// `fcmOptions` → `fcm_options`; snake_case stays as it is.
    static func snakeCase(_ s: String) -> String {
        guard s.hasASCIIUppercase else { return s }
        var out = ""
        for c in s {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// `google.protobuf.Duration` in JSON: `"3.5s"`, at most nine fractional digits.
enum Duration {
    static func seconds(_ s: String) -> Double? {
        guard s.hasSuffix("s") else { return nil }
        let number = s.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first,
            !whole.isEmpty, whole.drop(while: { $0 == "-" }).allSatisfy(\.isASCIIDigit),
            parts.count == 1 || (1...9).contains(parts[1].count) && parts[1].allSatisfy(\.isASCIIDigit)
        else { return nil }
        return Double(number)
    }
}
