/// How FCM measures a v1 message against its size limits (docs/reference/fcm-v1.md §B.8): what
/// Android and the browser would receive, counted as FCM counts a payload (keys and values in
/// bytes), each platform's override standing in for the common field it overrides; and the
/// APNs payload as APNs counts it, the JSON's bytes.
enum PayloadSize {
    /// Whether any platform's payload is over its limit: 4096 bytes (2048 to a topic or
    /// condition) as FCM counts, or APNs' own limit for the APNs JSON. The platform blocks are
    /// passed as the caller has already looked them up; a message without them (most) costs
    /// one pass over `data` and `notification`, built or where they lie.
    static func exceedsLimits(
        data: V1Request.Member, notification: V1Request.Member, android: JSONObject?, webpush: JSONObject?,
        apns: JSONObject?, topicLike: Bool
    ) -> Bool {
        let limit = topicLike ? LegacyValidation.maxTopicPayload : LegacyValidation.maxPayload
        // Each map is measured once: a message may carry thousands of data pairs.
        let dataSize = data.pairsBytes
        let notificationSize = notification.pairsBytes
        if dataSize + notificationSize > limit { return true }
        if let android {
            // `android.data` replaces `data`; `android.notification` overlays `notification`.
            var notificationSeen = notificationSize
            if let specific = android["notification"]?.objectValue {
                var merged = notification.object ?? JSONObject()
                for entry in specific.entries { merged.put(entry.key, entry.value) }
                notificationSeen = pairs(merged)
            }
            if ((android["data"]?.objectValue).map(pairs) ?? dataSize) + notificationSeen > limit { return true }
        }
        if let webpush {
            // `webpush.data` replaces `data`; `webpush.notification` is shown as sent.
            let shown = webpush["notification"].map { JSONWriter.quotedJSON($0).utf8.count } ?? 0
            if ((webpush["data"]?.objectValue).map(pairs) ?? dataSize) + notificationSize + shown > limit { return true }
        }
        // APNs gets `apns.payload` with `data` beside `aps`.
        let payload = apns?["payload"].map { JSONWriter.quotedJSON($0).utf8.count } ?? 2
        let voip = apns?["headers"]?.objectValue?.entries.contains {
            Request.equalsLowercased($0.key, "apns-push-type") && $0.value.stringValue == "voip"
        }
        return payload + dataSize > (voip == true ? APNsProvider.maxVoIPPayload : APNsProvider.maxPayload)
    }

    /// Bytes of a map's keys and string values (arrays of strings counted by their strings).
    static func pairs(_ object: JSONObject?) -> Int {
        var n = 0
        guard let entries = object?.entries else { return 0 }
        for entry in entries {
            n += entry.key.utf8.count
            switch entry.value {
            case .string(let s): n += s.utf8.count
            case .array(let items): for case .string(let s) in items { n += s.utf8.count }
            default: break
            }
        }
        return n
    }
}
