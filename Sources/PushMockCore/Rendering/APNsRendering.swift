/// The APNs request FCM makes for one iOS recipient of a legacy send (docs/reference/fcm-to-apns.md §D):
/// headers and the JSON payload the device's `userInfo` shows.
public struct APNsRendering {
    public let headers: [(name: String, value: String)]
    public let payload: String

    /// Legacy `notification` keys that become `aps.alert` members, in APNs spelling.
    static let alertKeys: [(String, JSONKey)] = [
        ("title", "title"), ("subtitle", "subtitle"), ("body", "body"),
        ("title_loc_key", "title-loc-key"), ("title_loc_args", "title-loc-args"),
        ("body_loc_key", "loc-key"), ("body_loc_args", "loc-args"),
    ]
    /// Keys that only mean something on Android or the web; FCM leaves them out for iOS.
    static let nonAppleKeys: Set<String> = ["icon", "tag", "color", "android_channel_id"]
    /// Keys mapped to `aps` members or flags.
    static let apsKeys: Set<String> = ["sound", "badge", "click_action", "mutable_content", "content_available"]
    /// Every key with a meaning above; any other `notification` key travels as
    /// `gcm.notification.<key>` (the seed's `image_url`).
    static let mappedKeys = Set(alertKeys.map(\.0)).union(apsKeys).union(nonAppleKeys)

    init(headers: [(name: String, value: String)], payload: String) {
        self.headers = headers
        self.payload = payload
    }

    /// What FCM sends APNs for this device, from a legacy or an HTTP v1 send.
    public static func render(message: Message, messageID: String, device: Device) -> APNsRendering {
        if message.format.direct { return APNsRendering(direct: message) }
        if let v1 = message.content.perPlatform {
            return V1Rendering.apns(v1, message: message, messageID: messageID, device: device)
        }
        return APNsRendering(message: message, messageID: messageID, device: device)
    }

    init(message: Message, messageID: String, device: Device) {
        let content = message.content
        let notification = content.notification
        let options = message.options
        let mutable = options.mutableContent || notification?["mutable_content"]?.boolValue == true
        let available = options.contentAvailable || notification?["content_available"]?.boolValue == true

        var w = JSONWriter(capacity: 384)
        w.beginObject()
        w.key("aps")
        w.beginObject()
        if let notification {
            Self.writeAlert(notification, to: &w)
            if let badge = notification["badge"].flatMap(Self.badgeNumber) { w.member("badge", badge) }
            if let sound = notification["sound"]?.stringValue { w.member("sound", sound) }
            if let category = notification["click_action"]?.stringValue { w.member("category", category) }
        }
        if available { w.member("content-available", 1) }
        if mutable { w.member("mutable-content", 1) }
        w.endObject()
        if let data = content.data {
            for entry in data.entries { w.member(JSONKey(entry.key), entry.value) }
        }
        if let notification {
            for entry in notification.entries where !Self.mappedKeys.contains(entry.key) {
                let v = entry.value
                w.member(JSONKey("gcm.notification." + entry.key), v.stringValue ?? JSONWriter.quotedJSON(v))
            }
        }
        w.member("gcm.message_id", messageID)
        w.member("google.c.a.e", "1")
        if let label = options.analyticsLabel { w.member("google.c.a.m_l", label) }
        w.member("google.c.fid", device.fid)
        w.member("google.c.sender.id", String(message.projectNumber))
        w.endObject()
        payload = w.text

        let expiration = options.ttl == 0 ? "0" : String(message.receivedAt.seconds + Int64(options.ttl))
        headers = [
            ("apns-push-type", notification != nil ? "alert" : "background"),
            ("apns-priority", String(options.priority.apnsPriority)),
            ("apns-expiration", expiration),
            ("apns-topic", device.app),
        ]
    }

    private static func writeAlert(_ n: JSONObject, to w: inout JSONWriter) {
        guard alertKeys.contains(where: { n[$0.0] != nil }) else { return }
        w.key("alert")
        w.beginObject()
        for (legacy, apns) in alertKeys {
            guard let v = n[legacy] else { continue }
            if legacy.hasSuffix("_args"), case .string(let s) = v, let parsed = try? JSONParser.parse(s), parsed.arrayValue != nil
            {
                // Older docs sent the arguments as a JSON array inside a string.
                w.member(apns, parsed)
            } else {
                w.member(apns, v)
            }
        }
        w.endObject()
    }

    /// `badge` arrives as a string in the docs and as a number in real requests (the seed);
    /// APNs needs a number. A value that is not a whole number is left out.
    static func badgeNumber(_ v: JSONValue) -> Int? {
        switch v {
        case .number(let n): n.int
        case .string(let s): Int(s)
        default: nil
        }
    }
}

extension JSONWriter {
    /// A value's compact JSON text.
    public static func quotedJSON(_ v: JSONValue) -> String {
        var w = JSONWriter(capacity: 32)
        w.value(v)
        return w.text
    }
}

extension APNsRendering {
    /// A push made through the APNs provider API reaches the device as it was sent: its
    /// headers and its payload (shown as a string when it is not JSON).
    init(direct message: Message) {
        let headers = message.details?.deviceHeaders(messageID: message.id) ?? []
        let isJSON = (try? JSONParser.parse(message.requestBytes)) != nil
        self.init(headers: headers, payload: isJSON ? message.requestBody : JSONWriter.quoted(message.requestBody))
    }
}
