/// The legacy per-recipient error codes (docs/reference/fcm-legacy.md §A.7), each with the BigQuery export
/// event it is logged as.
enum LegacyError: String, Error {
    case missingRegistration = "MissingRegistration"
    case invalidRegistration = "InvalidRegistration"
    case notRegistered = "NotRegistered"
    case invalidPackageName = "InvalidPackageName"
    case mismatchSenderID = "MismatchSenderId"
    case messageTooBig = "MessageTooBig"
    case invalidDataKey = "InvalidDataKey"
    case invalidTTL = "InvalidTtl"
    case invalidAPNsCredential = "InvalidApnsCredential"
    case deviceMessageRateExceeded = "DeviceMessageRateExceeded"
    case unavailable = "Unavailable"
    case internalServerError = "InternalServerError"

    var event: EventKind {
        switch self {
        case .missingRegistration: .missingRegistrations
        case .invalidRegistration, .notRegistered: .invalidRegistration
        case .invalidPackageName: .invalidPackageName
        case .mismatchSenderID: .mismatchSenderID
        case .messageTooBig: .payloadTooLarge
        case .invalidDataKey: .invalidParameters
        case .invalidTTL: .invalidTTL
        case .invalidAPNsCredential: .invalidAPNsCredential
        case .deviceMessageRateExceeded: .quotaExceeded
        case .unavailable, .internalServerError: .internalError
        }
    }

    /// The legacy result for a recipient delivery refused.
    init(_ refusal: Refusal) {
        switch refusal {
        case .noAddress: self = .missingRegistration
        case .malformedAddress: self = .invalidRegistration
        case .unregistered: self = .notRegistered
        case .otherSender: self = .mismatchSenderID
        case .wrongApp: self = .invalidPackageName
        case .missingCredential: self = .invalidAPNsCredential
        // The legacy API's word for a web token whose VAPID key is not the sender's (docs/reference/unconfirmed.md).
        case .pushServiceAuth: self = .mismatchSenderID
        case .rateLimited: self = .deviceMessageRateExceeded
        case .unavailable: self = .unavailable
        case .internalError: self = .internalServerError
        }
    }

    /// pushmock's `reason` column, telling apart codes that share an export event.
    var reason: String {
        switch self {
        case .notRegistered: "not_registered"
        case .invalidRegistration: "malformed_token"
        case .invalidDataKey: "reserved_data_key"
        default: rawValue
        }
    }
}

/// Checks that apply to the message as a whole, whoever receives it.
enum LegacyValidation {
    static let maxPayload = 4096
    static let maxTopicPayload = 2048

    /// InvalidTtl, then InvalidDataKey, then MessageTooBig.
    static func messageError(_ request: LegacyRequest, topicLike: Bool) -> LegacyError? {
        if request.invalidTTL { return .invalidTTL }
        if let data = request.content.data, data.entries.contains(where: { isReservedDataKey($0.key) }) { return .invalidDataKey }
        if payloadSize(request.content) > (topicLike ? maxTopicPayload : maxPayload) { return .messageTooBig }
        return nil
    }

    /// `from`, `message_type`, and anything starting with `google` or `gcm` (§A.4).
    static func isReservedDataKey(_ key: String) -> Bool {
        key.sameSpelling(as: "from") || key.sameSpelling(as: "message_type") || key.hasBytePrefix("google")
            || key.hasBytePrefix("gcm")
    }

    /// UTF-8 bytes of the keys and values of `data` and `notification`; non-string values
    /// count as their JSON text.
    static func payloadSize(_ content: PushContent) -> Int {
        size(content.data) + size(content.notification)
    }

    private static func size(_ obj: JSONObject?) -> Int {
        guard let entries = obj?.entries else { return 0 }
        var n = 0
        for entry in entries {
            n += entry.key.utf8.count
            if case .string(let s) = entry.value { n += s.utf8.count } else { n += JSONWriter.quotedJSON(entry.value).utf8.count }
        }
        return n
    }
}
