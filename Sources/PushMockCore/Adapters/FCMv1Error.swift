/// An HTTP v1 error in the `google.rpc.Status` shape with FCM's details (protocol.md §B.7).
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

    static func invalid(_ message: String, field: String? = nil, reason: String = "bad_request") -> V1Error {
        var e = V1Error(status: 400, canonical: "INVALID_ARGUMENT", message: message, fcmCode: "INVALID_ARGUMENT")
        if let field {
            e.details.append("{\"@type\":\"type.googleapis.com/google.rpc.BadRequest\",\"fieldViolations\":[{\"field\":\(JSONWriter.quoted(field)),\"description\":\(JSONWriter.quoted(message))}]}")
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
