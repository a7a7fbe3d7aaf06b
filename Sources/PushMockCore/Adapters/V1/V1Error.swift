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

    static func invalid(_ message: String, field: String? = nil, reason: String = "bad_request") -> V1Error {
        var e = V1Error(status: 400, canonical: "INVALID_ARGUMENT", message: message, fcmCode: "INVALID_ARGUMENT")
        if let field {
            e.details.append(
                "{\"@type\":\"type.googleapis.com/google.rpc.BadRequest\",\"fieldViolations\":[{\"field\":\(JSONWriter.quoted(field)),\"description\":\(JSONWriter.quoted(message))}]}"
            )
        }
        e.reason = reason
        return e
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
