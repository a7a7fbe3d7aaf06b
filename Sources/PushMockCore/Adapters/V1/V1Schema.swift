/// The HTTP v1 `SendMessageRequest` and its `Message` resource, field by field, as Google's
/// front end reads them (docs/reference/fcm-v1.md §B.3–B.5, docs/reference/google-json.md):
/// `ProtoJSON` checks a body against it. Free-form maps (`data`, `headers`) and Structs
/// (`apns.payload`, `webpush.notification`) are kept as sent.
enum V1Schema {
    static let package = "google.firebase.fcm.v1."

    static func message(_ name: String, _ fields: ProtoFields) -> ProtoType {
        .message(package + name, fields)
    }

    static let fcmOptions = message("FcmOptions", ["analytics_label": .string])
    static let notification = message("Notification", ["title": .string, "body": .string, "image": .string])
    static let androidNotification = message(
        "AndroidNotification",
        [
            "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
            "click_action": .string, "body_loc_key": .string, "body_loc_args": .repeated(.string), "title_loc_key": .string,
            "title_loc_args": .repeated(.string), "channel_id": .string, "ticker": .string, "sticky": .bool,
            "event_time": .timestamp, "local_only": .bool,
            "notification_priority": .enumeration(
                package + "AndroidNotification.NotificationPriority",
                ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]),
            "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool,
            "vibrate_timings": .repeated(.duration),
            "visibility": .enumeration(
                package + "AndroidNotification.Visibility", ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]),
            "light_settings": message(
                "LightSettings",
                [
                    "color": .message(
                        "google.type.Color", ["red": .float, "green": .float, "blue": .float, "alpha": .float]),
                    "light_on_duration": .duration, "light_off_duration": .duration,
                ]),
            "image": .string, "notification_count": .int32,
            "proxy": .enumeration(
                package + "AndroidNotification.Proxy", ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
            "bypass_proxy_notification": .bool,
        ])
    static let android = message(
        "AndroidConfig",
        [
            "collapse_key": .string,
            // The Admin SDKs send the lower-case names, which FCM takes.
            "priority": .enumeration(package + "AndroidMessagePriority", ["NORMAL", "HIGH"], aliases: ["normal", "high"]),
            "ttl": .duration, "restricted_package_name": .string, "data": .stringMap(package + "AndroidConfig.DataEntry"),
            "notification": androidNotification, "fcm_options": message("AndroidFcmOptions", ["analytics_label": .string]),
            "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool, "restricted_satellite_ok": .bool,
        ])
    static let webpush = message(
        "WebpushConfig",
        [
            "headers": .stringMap(package + "WebpushConfig.HeadersEntry"),
            "data": .stringMap(package + "WebpushConfig.DataEntry"),
            "notification": .structValue,
            "fcm_options": message("WebpushFcmOptions", ["link": .string, "analytics_label": .string]),
        ])
    static let apns = message(
        "ApnsConfig",
        [
            "headers": .stringMap(package + "ApnsConfig.HeadersEntry"), "payload": .structValue,
            "fcm_options": message("ApnsFcmOptions", ["analytics_label": .string, "image": .string]),
            "live_activity_token": .string,
        ])
    static let messageFields: ProtoFields = [
        "name": .string, "data": .stringMap(package + "Message.DataEntry"), "notification": notification,
        "android": android, "webpush": webpush, "apns": apns, "fcm_options": fcmOptions,
        "token": .string, "topic": .string, "condition": .string, "fid": .string,
    ]
    static let messageType = message("Message", messageFields)
    static let request = message("SendMessageRequest", ["message": messageType, "validate_only": .bool])
}
