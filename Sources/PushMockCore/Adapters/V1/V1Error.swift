/// An HTTP v1 error in the `google.rpc.Status` shape with FCM's details (docs/reference/fcm-v1.md §B.7).
struct V1Error: Error {
    let status: Int
    let canonical: String
    let message: String
    /// `FcmError.errorCode`; nil for errors Google answers without one (auth, IAM).
    let fcmCode: String?
    /// More detail objects, already encoded (BadRequest, ApnsError, QuotaFailure).
    var details: [String] = []
    var retryAfter: Int?
    /// The log's event and reason for the rejection.
    var event: EventKind = .invalidParameters
    var reason: String = "bad_request"
    /// The device the send addressed, when it was found (for the log). Errors must be
    /// `Sendable`; this one never leaves the loop thread that owns the device.
    nonisolated(unsafe) var device: Device?

    /// FCM's own 400: its `FcmError`, and with `field` a `BadRequest` naming it.
    static func invalid(_ message: String, field: String? = nil, reason: String = "bad_request") -> V1Error {
        var e = V1Error(status: 400, canonical: "INVALID_ARGUMENT", message: message, fcmCode: "INVALID_ARGUMENT")
        if let field { e.details.append(badRequest([ProtoViolation(field: field, description: message)])) }
        e.reason = reason
        return e
    }

    /// The front end's 400 for a body it cannot read as the request (docs/reference/google-json.md
    /// §J.2): every violation, one line of the message and one `BadRequest` entry each, and no
    /// `FcmError` (the request never reached FCM).
    static func frontEnd(_ violations: [ProtoViolation]) -> V1Error {
        var e = V1Error(
            status: 400, canonical: "INVALID_ARGUMENT", message: violations.map(\.description).joined(separator: "\n"),
            fcmCode: nil)
        e.details.append(badRequest(violations))
        return e
    }

    /// A message over FCM's size limit: Google's generic text, no details (§B.8).
    static let tooBig: V1Error = {
        var e = V1Error(
            status: 400, canonical: "INVALID_ARGUMENT", message: "Request contains an invalid argument.", fcmCode: nil)
        e.event = .payloadTooLarge
        e.reason = "payload_too_large"
        return e
    }()

    /// APNs' refusal of what FCM passed on: FCM's 400 with APNs' status and reason in an
    /// `ApnsError` (docs/reference/fcm-v1.md §B.7).
    static func apnsRejected(_ reason: APNsReason) -> V1Error {
        var e = V1Error(
            status: 400, canonical: "INVALID_ARGUMENT", message: "Request contains an invalid argument.",
            fcmCode: "INVALID_ARGUMENT")
        e.details.append(
            "{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.ApnsError\",\"statusCode\":\(reason.status),\"reason\":\"\(reason.rawValue)\"}"
        )
        e.reason = "apns_" + reason.rawValue
        return e
    }

    /// `google.rpc.BadRequest`, a violation at the root without `field` (proto3 JSON omits
    /// an empty string).
    static func badRequest(_ violations: [ProtoViolation]) -> String {
        var w = JSONWriter()
        w.object { w in
            w.member("@type", "type.googleapis.com/google.rpc.BadRequest")
            w.key("fieldViolations")
            w.beginArray()
            for v in violations {
                w.object { w in
                    if !v.field.isEmpty { w.member("field", v.field) }
                    w.member("description", v.description)
                }
            }
            w.endArray()
        }
        return w.text
    }

    static func unregistered(_ reason: String = "not_registered") -> V1Error {
        var e = V1Error(status: 404, canonical: "NOT_FOUND", message: "Requested entity was not found.", fcmCode: "UNREGISTERED")
        e.event = .invalidRegistration
        e.reason = reason
        return e
    }

    var response: Response {
        let fcm = fcmCode.map { "{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.FcmError\",\"errorCode\":\"\($0)\"}" }
        var r = Response.googleError(status, canonical, message, details: (fcm.map { [$0] } ?? []) + details)
        if let retryAfter { r.headers.append(("Retry-After", String(retryAfter))) }
        return r
    }
}

extension V1Error {
    static func quotaExceeded(_ message: String, retryAfter: Timestamp) -> V1Error {
        var e = V1Error(status: 429, canonical: "RESOURCE_EXHAUSTED", message: message, fcmCode: "QUOTA_EXCEEDED")
        e.details.append(
            "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"subject\":\"fcm.googleapis.com\",\"description\":\(JSONWriter.quoted(message))}]}"
        )
        e.retryAfter = max(1, Int((retryAfter + 999_999) / 1_000_000))
        e.event = .quotaExceeded
        e.reason = "quota_exceeded"
        return e
    }

    /// HTTP v1's answer for a send over a quota.
    init(_ over: OverQuota) {
        switch over.scope {
        case .project:
            self = .quotaExceeded(
                "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com'.",
                retryAfter: over.retryAfter)
        case .device:
            self = .quotaExceeded("Device message rate exceeded.", retryAfter: over.retryAfter)
        }
    }

    /// HTTP v1's answer for a recipient delivery refused (docs/reference/fcm-v1.md §B.7).
    init(_ refusal: Refusal) {
        var e: V1Error
        switch refusal {
        case .unregistered, .noAddress:
            self = .unregistered()
            return
        case .malformedAddress:
            e = .invalid("The registration token is not a valid FCM registration token")
        case .otherSender:
            e = V1Error(status: 403, canonical: "PERMISSION_DENIED", message: "SenderId mismatch", fcmCode: "SENDER_ID_MISMATCH")
        case .missingCredential:
            e = V1Error(
                status: 401, canonical: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                fcmCode: "THIRD_PARTY_AUTH_ERROR")
            e.details.append(
                "{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.ApnsError\",\"statusCode\":403,\"reason\":\"InvalidProviderToken\"}"
            )
        case .pushServiceAuth:
            e = V1Error(
                status: 401, canonical: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                fcmCode: "THIRD_PARTY_AUTH_ERROR")
        case .wrongApp:
            e = .invalid("The restricted package name does not match the registration token's app.")
        case .rateLimited:
            self = .quotaExceeded("Device message rate exceeded.", retryAfter: 60_000_000)
            return
        case .unavailable:
            e = V1Error(
                status: 503, canonical: "UNAVAILABLE", message: "The service is currently unavailable.", fcmCode: "UNAVAILABLE")
            e.retryAfter = 1
        case .internalError:
            e = V1Error(status: 500, canonical: "INTERNAL", message: "Internal error encountered.", fcmCode: "INTERNAL")
        }
        e.event = refusal.event
        e.reason = refusal.reason
        self = e
    }
}
