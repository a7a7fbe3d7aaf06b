/// What the FCM SDK on an Android device hands the app as a `RemoteMessage` (docs/reference/fcm-to-apns.md §D,
/// §F.2): sender, message id, data (strings), notification, priority, TTL and collapse key.
enum AndroidRendering {
    /// Legacy `notification` keys an Android notification carries; `android_channel_id`
    /// shows as the SDK's `channel_id`.
    static let notificationKeys: [(String, JSONKey)] = [
        ("title", "title"), ("body", "body"), ("icon", "icon"), ("sound", "sound"), ("tag", "tag"),
        ("color", "color"), ("click_action", "click_action"), ("body_loc_key", "body_loc_key"),
        ("body_loc_args", "body_loc_args"), ("title_loc_key", "title_loc_key"),
        ("title_loc_args", "title_loc_args"), ("android_channel_id", "channel_id"), ("image", "image"),
    ]

    /// Whether a data key reaches the app in `RemoteMessage.getData()`. The SDK leaves out the
    /// keys that are FCM's own in the message's bundle: `from`, `message_type`, `collapse_key`
    /// (where FCM puts its own value, so a sender's `collapse_key` data key never arrives) and
    /// anything under `google.` or `gcm.` (docs/fcm-legacy.md, "Data keys named like FCM's").
    static func isAppDataKey(_ key: String) -> Bool {
        key != "collapse_key" && !isReservedKey(key)
    }

    /// A data key FCM keeps for itself: `from`, `message_type`, and anything under `google.` or
    /// `gcm.` (HTTP v1 refuses a send that uses one). Prefixes compared as bytes, as the SDK's
    /// Java compares code units (String's `hasPrefix` compares grapheme clusters, so `google.`
    /// with a combining mark after its dot would pass it).
    static func isReservedKey(_ key: String) -> Bool { key.withBytes(isReservedKey) }

    /// A key's UTF-8 bytes, as `isReservedKey(_:)` (a name read where it lies in a body).
    static func isReservedKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        key.spells("from") || key.spells("message_type") || key.hasBytePrefix("google.") || key.hasBytePrefix("gcm.")
    }

    /// The RemoteMessage for this device, from a legacy or an HTTP v1 send, written as one value.
    static func write(message: Message, messageID: String, device: Device, to w: inout JSONWriter) {
        if let v1 = message.content.perPlatform {
            V1Rendering.android(v1, message: message, messageID: messageID, device: device, to: &w)
        } else {
            writeLegacy(message: message, messageID: messageID, device: device, to: &w)
        }
    }

    private static func writeLegacy(message: Message, messageID: String, device: Device, to w: inout JSONWriter) {
        let content = message.content
        w.beginObject()
        w.member("from", message.topic.map { Topic.prefix + $0 } ?? String(message.projectNumber))
        w.member("message_id", messageID)
        let options = message.options
        w.member("collapse_key", options.collapseKey ?? (options.isNotification ? device.app : "do_not_collapse"))
        w.member("priority", options.priority.rawValue)
        w.member("original_priority", options.priority.rawValue)
        w.member("ttl", options.ttl)
        w.member("sent_time", Int(message.receivedAt / 1000))
        w.key("data")
        w.beginObject()
        if let data = content.data {
            // A Bundle holds strings: legacy non-string values arrive as their JSON text.
            for entry in data.entries where Self.isAppDataKey(entry.key) {
                w.member(JSONKey(entry.key), entry.value.stringValue ?? JSONWriter.quotedJSON(entry.value))
            }
        }
        w.endObject()
        if let n = content.notification {
            w.key("notification")
            w.beginObject()
            for (legacy, name) in Self.notificationKeys {
                if let v = n[legacy] { w.member(name, v) }
            }
            w.endObject()
        }
        w.endObject()
    }
}
