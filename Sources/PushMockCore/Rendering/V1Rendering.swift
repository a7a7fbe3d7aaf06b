/// What a device receives from an HTTP v1 send: FCM merges the common `notification` and
/// `data` with the platform's own `apns` and `android` blocks (docs/reference/fcm-v1.md §B.4, §B.5, §D).
enum V1Rendering {
    /// The APNs request: `apns.payload` verbatim, `aps.alert` from `notification` unless the
    /// payload sets one, the image in `fcm_options`, data and FCM's keys at the top level;
    /// `apns.headers` as sent, with FCM's defaults for the rest.
    static func apns(_ m: JSONObject, message: Message, messageID: String, device: Device) -> APNsRendering {
        let payload = m.value(at: "apns", "payload")?.objectValue ?? JSONObject()
        var aps = payload["aps"]?.objectValue ?? JSONObject()
        if aps["alert"] == nil, let n = m["notification"]?.objectValue, n["title"] != nil || n["body"] != nil {
            var alert = JSONObject()
            if let t = n["title"] { alert.append("title", t) }
            if let b = n["body"] { alert.append("body", b) }
            aps.entries.insert(JSONObject.Entry("alert", .object(alert)), at: 0)
        }
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.member("aps", .object(aps))
        for entry in payload.entries where entry.key != "aps" { w.member(JSONKey(entry.key), entry.value) }
        for entry in m["data"]?.objectValue?.entries ?? [] { w.member(JSONKey(entry.key), entry.value) }
        let image =
            m.value(at: "apns", "fcm_options", "image")?.stringValue
            ?? m.value(at: "notification", "image")?.stringValue
        if let image {
            w.key("fcm_options")
            w.beginObject()
            w.member("image", image)
            w.endObject()
        }
        w.member("gcm.message_id", messageID)
        w.member("google.c.a.e", "1")
        if let label = message.options.analyticsLabel { w.member("google.c.a.m_l", label) }
        w.member("google.c.fid", device.fid)
        w.member("google.c.sender.id", String(message.projectNumber))
        w.endObject()

        let sent = m.value(at: "apns", "headers")?.objectValue ?? JSONObject()
        var headers: [(name: String, value: String)] = sent.entries.compactMap { e in e.value.stringValue.map { (e.key, $0) } }
        let alert = aps["alert"] != nil
        let defaults: [(String, String)] = [
            ("apns-push-type", alert ? "alert" : "background"),
            ("apns-priority", alert ? "10" : "5"),
            ("apns-expiration", String(message.expiry(on: .ios) / 1_000_000)),
            ("apns-topic", device.app),
        ]
        for (name, value) in defaults where sent[name] == nil { headers.append((name, value)) }
        return APNsRendering(headers: headers, payload: w.text)
    }

    /// The RemoteMessage: `data` overridden by `android.data`, the notification's title, body
    /// and image overlaid with `android.notification`, and the Android options.
    static func android(_ m: JSONObject, message: Message, messageID: String, device: Device, to w: inout JSONWriter) {
        let options = message.options
        w.beginObject()
        w.member("from", message.topic.map { Topic.prefix + $0 } ?? String(message.projectNumber))
        w.member("message_id", messageID)
        w.member("collapse_key", options.collapseKey ?? (options.isNotification ? device.app : "do_not_collapse"))
        w.member("priority", options.priority.rawValue)
        w.member("original_priority", options.priority.rawValue)
        w.member("ttl", options.ttl)
        w.member("sent_time", Int(message.receivedAt / 1000))
        var data = m["data"]?.objectValue ?? JSONObject()
        if let overrides = m.value(at: "android", "data")?.objectValue { data = overrides }
        data.entries.removeAll { !AndroidRendering.isAppDataKey($0.key) }
        w.member("data", .object(data))
        let common = m["notification"]?.objectValue
        let specific = m.value(at: "android", "notification")?.objectValue
        if common != nil || specific != nil {
            var merged = common ?? JSONObject()
            for entry in specific?.entries ?? [] { merged.put(entry.key, entry.value) }
            w.member("notification", .object(merged))
        }
        w.endObject()
    }
}
