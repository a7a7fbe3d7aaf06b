/// The three browser push services pushmock plays, each answering in its own shape
/// (docs/reference/web-push.md §2): FCM (Chrome) with plain-text errors, Mozilla's autopush
/// (Firefox) with JSON `errno` bodies, Apple's (Safari) with a JSON `reason`.
enum WebPushService {
    case fcm, autopush, apple

    var browser: Browser {
        switch self {
        case .fcm: .chrome
        case .autopush: .firefox
        case .apple: .safari
        }
    }

    /// The largest body each accepts: autopush's `max_data_bytes`; FCM's and Apple's
    /// documented 4096 (RFC 8030 §7.2's floor).
    var maxBody: Int { self == .autopush ? 5630 : 4096 }

    /// The longest a message is kept: autopush caps `TTL` at 30 days, FCM at its four weeks.
    var maxTTL: Int { self == .fcm ? 2_419_200 : 2_592_000 }

    /// The answer to an accepted push: 201 with the message's `Location` and the `TTL` kept.
    func created(origin: String, messageID: String, ttl: Int) -> Response {
        switch self {
        case .fcm:
            return Response(status: 201, headers: [("Location", origin + "/" + messageID), ("TTL", String(ttl))])
        case .autopush:
            return Response(status: 201, headers: [("Location", origin + "/m/" + messageID), ("TTL", String(ttl))])
        case .apple:
            return Response(
                status: 201,
                headers: [("Location", origin + "/m/" + messageID), ("TTL", String(ttl)), ("apns-id", messageID)])
        }
    }

    /// A refused push, in the service's words.
    func answer(_ refusal: WebPushRefusal) -> Response {
        let wording = refusal.wording
        switch self {
        case .autopush:
            var w = JSONWriter(capacity: 200)
            w.beginObject()
            w.member("code", wording.autopushStatus)
            w.member("errno", wording.errno)
            w.member("error", Self.reasonPhrase(wording.autopushStatus))
            w.member("message", wording.message)
            w.member("more_info", "http://autopush.readthedocs.io/en/latest/http.html#error-codes")
            w.endObject()
            var headers = Response.jsonHeaders
            if wording.autopushStatus == 410 { headers.append(("Cache-Control", "max-age=86400")) }
            if wording.autopushStatus == 503 { headers.append(("Retry-After", "120")) }
            return Response(status: wording.autopushStatus, headers: headers, body: w.bytes)
        case .fcm:
            var r = Response(
                status: wording.fcmStatus, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Array((wording.fcmText + "\n").utf8))
            if wording.fcmStatus == 503 || wording.fcmStatus == 429 { r.headers.append(("Retry-After", "60")) }
            return r
        case .apple:
            var w = JSONWriter(capacity: 64)
            w.beginObject()
            w.member("reason", wording.appleReason)
            if case .gone(let since) = refusal { w.member("timestamp", Int(since / 1000)) }
            w.endObject()
            return Response(status: wording.appleStatus, headers: [("Content-Type", "application/json")], body: w.bytes)
        }
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}

/// Why a push service refused a push (docs/web-push.md, "Answers").
enum WebPushRefusal: Error {
    /// No subscription has this endpoint.
    case invalidToken
    /// The subscription ended (unsubscribed, permission withdrawn, expired) at this time.
    case gone(since: Timestamp)
    case missingTTL, negativeTTL
    case topicTooLong, topicNotBase64URL
    case badUrgency
    case missingEncoding, unknownEncoding
    /// `aes128gcm` with the older coding's `Encryption` or `Crypto-Key: dh`.
    case legacyHeaders
    case missingSalt, missingSenderKey
    case tooLarge(limit: Int)
    /// A restricted subscription and no `Authorization`.
    case missingAuthorization
    case vapid(VAPID.Problem)
    /// Apple: `sub` is not a `mailto:` or `https:` contact it takes.
    case badSubject
    case unavailable, tooManyRequests, internalError

    /// Each service's status and words for it; what no source shows is marked in
    /// docs/reference/unconfirmed.md.
    struct Wording {
        var autopushStatus: Int
        var errno: Int
        var message: String
        var fcmStatus: Int
        var fcmText: String
        var appleStatus: Int
        var appleReason: String
    }

    var wording: Wording {
        switch self {
        case .invalidToken:
            Wording(
                autopushStatus: 404, errno: 102, message: "Invalid token", fcmStatus: 404,
                fcmText:
                    "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/dHIoDxE7Hdg:APA91bH1Zj0kNa...",
                appleStatus: 400, appleReason: "BadDeviceToken")
        case .gone:
            Wording(
                autopushStatus: 410, errno: 106, message: "No such subscription", fcmStatus: 410,
                fcmText: "push subscription has unsubscribed or expired.", appleStatus: 410, appleReason: "Unregistered")
        case .missingTTL:
            Self.bad(111, "Missing TTL value", fcm: "TTL header must be specified.", apple: "BadExpirationDate")
        case .negativeTTL:
            Self.bad(
                114, "TTL must be greater than 0", fcm: "TTL header must be a non-negative integer.", apple: "BadExpirationDate")
        case .topicTooLong:
            Self.bad(
                113, "Topic must be no greater than 32 characters", fcm: "Topic header must be at most 32 characters.",
                apple: "BadCollapseId")
        case .topicNotBase64URL:
            Self.bad(
                113, "Topic must be URL and Filename safe Base64 alphabet",
                fcm: "Topic header must use the URL and filename safe base64 alphabet.", apple: "BadCollapseId")
        case .badUrgency:
            Self.bad(
                110, "Invalid Urgency header", fcm: "Urgency header must be very-low, low, normal or high.", apple: "BadPriority")
        case .missingEncoding:
            Self.bad(
                110, "Missing Content-Encoding header", fcm: "Content-Encoding header must be specified.", apple: "BadRequest")
        case .unknownEncoding:
            Self.bad(
                110, "Unknown Content-Encoding header", fcm: "Content-Encoding must be aes128gcm or aesgcm.", apple: "BadRequest")
        case .legacyHeaders:
            Self.bad(
                110, "Do not include 'salt' or 'dh' in Encryption or Crypto-Key headers for aes128gcm",
                fcm: "Encryption and Crypto-Key dh must not be sent with aes128gcm.", apple: "BadRequest")
        case .missingSalt:
            Self.bad(
                110, "Missing Encryption header", fcm: "Encryption header with a salt must be specified.", apple: "BadRequest")
        case .missingSenderKey:
            Self.bad(
                110, "Missing Crypto-Key header", fcm: "Crypto-Key header with a dh value must be specified.", apple: "BadRequest"
            )
        case .tooLarge(let limit):
            Wording(
                autopushStatus: 413, errno: 104, message: "Data payload must be smaller than \(limit) bytes", fcmStatus: 413,
                fcmText: "Payload is larger than \(limit) bytes.", appleStatus: 413, appleReason: "PayloadTooLarge")
        case .missingAuthorization:
            Wording(
                autopushStatus: 401, errno: 109, message: "Missing Authorization Header", fcmStatus: 401,
                fcmText: "authorization header must be specified.", appleStatus: 403, appleReason: "BadJwtToken")
        case .vapid(let problem):
            if problem.missingP256ECDSA {
                Self.bad(
                    110, problem.message, fcm: "Crypto-Key header with p256ecdsa must be specified.", apple: "BadJwtToken",
                    appleStatus: 403)
            } else {
                Wording(
                    autopushStatus: 401, errno: 109, message: problem.message, fcmStatus: 403,
                    fcmText: problem.keyMismatch
                        ? "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions."
                        : "the VAPID credentials in the authorization header are not valid: \(problem.message).",
                    appleStatus: 403, appleReason: "BadJwtToken")
            }
        case .badSubject:
            Wording(
                autopushStatus: 401, errno: 109, message: "Invalid VAPID subject", fcmStatus: 403,
                fcmText: "the VAPID subject is not valid.", appleStatus: 403, appleReason: "BadJwtToken")
        case .unavailable:
            Wording(
                autopushStatus: 503, errno: 202, message: "Service temporarily unavailable", fcmStatus: 503,
                fcmText: "The service is currently unavailable.", appleStatus: 503, appleReason: "ServiceUnavailable")
        case .tooManyRequests:
            // autopush never answers 429 (docs/reference/web-push.md §2.2): it answers 503.
            Wording(
                autopushStatus: 503, errno: 202, message: "Service temporarily unavailable", fcmStatus: 429,
                fcmText: "Too many requests.", appleStatus: 429, appleReason: "TooManyRequests")
        case .internalError:
            Wording(
                autopushStatus: 500, errno: 999, message: "An unexpected server error occurred", fcmStatus: 500,
                fcmText: "Internal error encountered.", appleStatus: 500, appleReason: "InternalServerError")
        }
    }

    /// A 400 in each service's words (autopush's `errno`).
    private static func bad(_ errno: Int, _ message: String, fcm: String, apple: String, appleStatus: Int = 400) -> Wording {
        Wording(
            autopushStatus: 400, errno: errno, message: message, fcmStatus: 400, fcmText: fcm, appleStatus: appleStatus,
            appleReason: apple)
    }
}
