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
        if request.dataWeight?.hasReservedKey == true { return .invalidDataKey }
        let size = (request.dataWeight?.bytes ?? 0) + (request.notificationWeight?.bytes ?? 0)
        if size > (topicLike ? maxTopicPayload : maxPayload) { return .messageTooBig }
        return nil
    }

    /// `from`, `message_type`, and anything starting with `google` or `gcm` (§A.4).
    static func isReservedDataKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        key.spells("from") || key.spells("message_type") || key.hasBytePrefix("google") || key.hasBytePrefix("gcm")
    }
}

/// What validation reads of a send's `data` or `notification` object: the UTF-8 bytes of its
/// keys and values, a value that is not a string counting as its JSON text (the payload's
/// size, §A.8), and whether a key is one `data` may not use. Read from the request's bytes,
/// without building the object, on the send path; weighed from the object where it is built.
struct PayloadWeight {
    private(set) var bytes = 0
    private(set) var hasReservedKey = false

    init(reading p: inout JSONParser) throws(JSONParseError) {
        try p.readMemberLengths { key, value in add(key, value) }
    }

    init(_ object: JSONObject) {
        for entry in object.entries {
            let value: JSONParser.MemberLength =
                if case .string(let s) = entry.value { .string(utf8Count: s.utf8.count) } else { .other(entry.value) }
            entry.key.withBytes { add($0, value) }
        }
    }

    private mutating func add(_ key: UnsafeBufferPointer<UInt8>, _ value: JSONParser.MemberLength) {
        switch value {
        case .string(let count): bytes += key.count + count
        case .other(let v): bytes += key.count + JSONWriter.quotedJSON(v).utf8.count
        }
        hasReservedKey = hasReservedKey || LegacyValidation.isReservedDataKey(key)
    }
}
