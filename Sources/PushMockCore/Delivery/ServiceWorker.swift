/// What a web app's service worker does with the data of a push that reached it directly
/// through its browser's push service (docs/device-model.md, "Web Push"). A push whose data
/// is the Firebase JS SDK's payload (a JSON object with `fcmMessageId`, which FCM always
/// adds) is handled by the SDK's worker, as for FCM sends: a visible page gets it and nothing
/// shows, else its `notification` shows. Any other push is taken by the app's own `push`
/// handler, modelled as the common one: a JSON object with a `title` (or `notification.title`)
/// is shown with `showNotification`, anything else is not shown.
enum ServiceWorker {
    /// What the worker shows for a push's data, if anything, and whether the SDK's worker took it.
    struct Handling {
        /// The notification shown: `title`, and `body`, `icon`, `image` when given.
        let notification: JSONObject?
        let byFirebase: Bool
    }

    static func handle(_ data: [UInt8]) -> Handling {
        guard let object = (try? JSONParser.parse(data))?.objectValue else {
            return Handling(notification: nil, byFirebase: false)
        }
        let byFirebase = object["fcmMessageId"] != nil
        let source = object["notification"]?.objectValue ?? (byFirebase ? nil : object)
        guard let source, source["title"]?.stringValue != nil else { return Handling(notification: nil, byFirebase: byFirebase) }
        let shown = source.entries.filter { ["title", "body", "icon", "image"].contains($0.key) && $0.value.stringValue != nil }
        return Handling(notification: JSONObject(shown), byFirebase: byFirebase)
    }
}
