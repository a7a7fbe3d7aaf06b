/// What a browser gets for one push (docs/rendering.md, "Web"): the message as the Firebase
/// JS SDK hands it to the page's `onMessage` or the service worker's `onBackgroundMessage`
/// (its `MessagePayload`), and the notification the service worker shows with it.
public struct WebRendering {
    /// The `MessagePayload`: `from`, `collapseKey`, `messageId`, `notification`, `data`,
    /// `fcmOptions`.
    public let payload: String
    /// `{"title": ..., "options": {...}}` as passed to `showNotification`, for a notification
    /// message; nil for data only.
    public let notification: String?
    /// Where a click on the notification leads: `fcmOptions.link`, else `click_action`.
    public let link: String?

    /// The message as FCM pushes it to the browser (the SDK's internal payload), then as the
    /// SDK passes it on.
    public static func render(message: Message, messageID: String, device: Device) -> WebRendering {
        if message.format.direct { return direct(message.content) }
        return externalize(internalPayload(message: message, messageID: messageID))
    }

    /// What FCM pushes to the browser for a send, encrypted for its subscription
    /// (docs/reference/web.md §W): `notification` (every Notification option), `data`,
    /// `fcmOptions`, `from`, `fcmMessageId`, `collapse_key`.
    public static func internalPayload(message: Message, messageID: String) -> JSONObject {
        let content = message.content
        var notification: JSONObject?
        var data: JSONObject?
        var fcmOptions: JSONObject?
        if let m = content.perPlatform {
            (notification, data, fcmOptions) = fromV1(m)
        } else {
            notification = content.notification.map { n in
                JSONObject(n.entries.filter { webNotificationKeys.contains($0.key) })
            }
            data = content.data
        }
        var out: [(key: String, value: JSONValue)] = []
        if let notification { out.append(("notification", .object(notification))) }
        if let data {
            // Push data is a JSON object of strings; legacy non-string values arrive as JSON text.
            let strings = data.entries.map { ($0.key, JSONValue.string($0.value.stringValue ?? JSONWriter.quotedJSON($0.value))) }
            out.append(("data", .object(JSONObject(strings))))
        }
        if let fcmOptions { out.append(("fcmOptions", .object(fcmOptions))) }
        out.append(("from", .string(message.topic.map { Topic.prefix + $0 } ?? String(message.projectNumber))))
        // As FCM's real pushes to GCM clients show them (docs/reference/web.md): the priority,
        // and a collapse key only when the send had one.
        out.append(("priority", .string(message.web.priority)))
        out.append(("fcmMessageId", .string(messageID)))
        if let key = message.web.collapseKey { out.append(("collapse_key", .string(key))) }
        return JSONObject(out)
    }

    /// The SDK's `externalizePayload`: the internal payload as `onMessage` and
    /// `onBackgroundMessage` get it (`MessagePayload`), with the notification its worker shows.
    static func externalize(_ p: JSONObject) -> WebRendering {
        let notification = p["notification"]?.objectValue
        let fcmOptions = p["fcmOptions"]?.objectValue
        let link = fcmOptions?["link"]?.stringValue ?? notification?["click_action"]?.stringValue
        var w = JSONWriter(capacity: 384)
        w.beginObject()
        w.member("from", p["from"] ?? .null)
        w.member("collapseKey", p["collapse_key"] ?? .null)
        w.member("messageId", p["fcmMessageId"] ?? .null)
        if let notification {
            // The SDK copies these four, and only when they are not empty.
            let shown = ["title", "body", "image", "icon"].compactMap { k in
                notification[k]?.stringValue.flatMap { $0.isEmpty ? nil : (k, JSONValue.string($0)) }
            }
            w.member("notification", .object(JSONObject(shown)))
        }
        if let data = p["data"] { w.member("data", data) }
        if fcmOptions != nil || link != nil {
            var options: [(key: String, value: JSONValue)] = []
            if let link, !link.isEmpty { options.append(("link", .string(link))) }
            if let label = fcmOptions?["analytics_label"]?.stringValue, !label.isEmpty {
                options.append(("analyticsLabel", .string(label)))
            }
            w.member("fcmOptions", .object(JSONObject(options)))
        }
        w.endObject()
        return WebRendering(payload: w.text, notification: notification.map(showNotification), link: link)
    }

    /// `showNotification(title, options)`'s arguments.
    private static func showNotification(_ n: JSONObject) -> String {
        var s = JSONWriter(capacity: 256)
        s.beginObject()
        s.member("title", n["title"]?.stringValue ?? "")
        s.member("options", .object(n))
        s.endObject()
        return s.text
    }

    /// A push that reached the browser directly (Web Push): what the SDK's worker makes of
    /// FCM's payload, or for any other push the service worker's `event.data` (JSON when it
    /// parses, else its text; null for an empty push or one that did not decrypt) and the
    /// notification it shows, if any (`ServiceWorker`).
    private static func direct(_ content: PushContent) -> WebRendering {
        guard let data = content.payload else { return WebRendering(payload: "null", notification: nil, link: nil) }
        let parsed = (try? JSONParser.parse(data))?.objectValue
        if let parsed, parsed["fcmMessageId"] != nil { return externalize(parsed) }
        let text = String(decoding: data, as: UTF8.self)
        let shown = ServiceWorker.handle(data).notification.map(showNotification)
        let isJSON = (try? JSONParser.parse(data)) != nil
        return WebRendering(payload: isJSON ? text : JSONWriter.quoted(text), notification: shown, link: nil)
    }

    /// The legacy `notification` keys a browser uses (docs/reference/fcm-legacy.md §A.3).
    static let webNotificationKeys: Set<String> = ["title", "body", "icon", "click_action"]

    /// HTTP v1: `notification` overlaid with `webpush.notification` (any Notification API
    /// option; its `title` and `body` win), `webpush.data` instead of `data` when present,
    /// and `webpush.fcm_options`, whose link FCM also writes into `click_action`.
    private static func fromV1(_ m: JSONObject) -> (JSONObject?, JSONObject?, JSONObject?) {
        let webpush = m["webpush"]?.objectValue
        var notification = m["notification"]?.objectValue
        if let specific = webpush?["notification"]?.objectValue {
            var merged = notification ?? JSONObject()
            for entry in specific.entries { merged.put(entry.key, entry.value) }
            notification = merged
        }
        var fcmOptions = webpush?["fcm_options"]?.objectValue
        if fcmOptions?["analytics_label"] == nil, let label = m["fcm_options"]?["analytics_label"] {
            fcmOptions = JSONObject((fcmOptions?.entries ?? []) + [JSONObject.Entry("analytics_label", label)])
        }
        if let link = fcmOptions?["link"], notification != nil, notification?["click_action"] == nil {
            notification?.append("click_action", link)
        }
        let data = webpush?["data"]?.objectValue ?? m["data"]?.objectValue
        return (notification, data, fcmOptions)
    }

    /// What the FCM service worker does when the user clicks the notification: it opens or
    /// focuses a window only for a link on the app's own origin (a relative link is).
    public static func opensPage(link: String?, origin: String) -> Bool {
        guard let link, !link.isEmpty else { return false }
        guard let scheme = link.range(of: "://") else { return true }
        let host = link[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let appHost = origin.range(of: "://").map { origin[$0.upperBound...] } ?? Substring(origin)
        return host.lowercased() == appHost.lowercased()
    }
}
