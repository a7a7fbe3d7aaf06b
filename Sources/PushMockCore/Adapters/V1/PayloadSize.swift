/// How FCM measures a v1 message against its size limits (docs/reference/fcm-v1.md §B.8): what
/// Android and the browser would receive, counted as FCM counts a payload (keys and values in
/// bytes), each platform's override standing in for the common field it overrides; and the
/// APNs payload as APNs counts it, the JSON's bytes.
struct PayloadSize {
    /// Keys and values FCM counts: the common message, and each platform's view of it.
    let common: Int
    let android: Int
    let webpush: Int
    /// Bytes of the JSON APNs would receive (`apns.payload` with `data` beside `aps`), and
    /// APNs' limit for its push type.
    let apnsJSON: Int
    let apnsLimit: Int

    init(_ m: JSONObject) {
        let data = m["data"]?.objectValue
        let notification = m["notification"]?.objectValue
        let android = m["android"]?.objectValue
        let webpush = m["webpush"]?.objectValue
        let apns = m["apns"]?.objectValue
        // Each map is measured once: a message may carry thousands of data pairs.
        let dataSize = Self.pairs(data)
        let notificationSize = Self.pairs(notification)
        common = dataSize + notificationSize
        // `android.data` replaces `data`; `android.notification` overlays `notification`.
        var androidNotificationSize = notificationSize
        if let specific = android?["notification"]?.objectValue {
            var merged = notification ?? JSONObject()
            for (k, v) in specific.entries {
                merged.entries.removeAll { $0.key == k }
                merged.entries.append((k, v))
            }
            androidNotificationSize = Self.pairs(merged)
        }
        self.android = ((android?["data"]?.objectValue).map(Self.pairs) ?? dataSize) + androidNotificationSize
        // `webpush.data` replaces `data`; `webpush.notification` is shown as sent.
        self.webpush =
            ((webpush?["data"]?.objectValue).map(Self.pairs) ?? dataSize) + notificationSize
            + (webpush?["notification"].map { JSONWriter.quotedJSON($0).utf8.count } ?? 0)
        apnsJSON = (apns?["payload"].map { JSONWriter.quotedJSON($0).utf8.count } ?? 2) + dataSize
        let voip = apns?["headers"]?.objectValue?.entries.contains {
            Request.equalsLowercased($0.key, "apns-push-type") && $0.value.stringValue == "voip"
        }
        apnsLimit = voip == true ? APNsProvider.maxVoIPPayload : APNsProvider.maxPayload
    }

    /// Over 4096 bytes (2048 to a topic or condition) on any platform, or over APNs' limit.
    func exceedsLimits(topicLike: Bool) -> Bool {
        let limit = topicLike ? LegacyValidation.maxTopicPayload : LegacyValidation.maxPayload
        return max(common, android, webpush) > limit || apnsJSON > apnsLimit
    }

    /// Bytes of a map's keys and string values (arrays of strings counted by their strings).
    static func pairs(_ object: JSONObject?) -> Int {
        var n = 0
        for (k, v) in object?.entries ?? [] {
            n += k.utf8.count
            switch v {
            case .string(let s): n += s.utf8.count
            case .array(let items): for case .string(let s) in items { n += s.utf8.count }
            default: break
            }
        }
        return n
    }
}
