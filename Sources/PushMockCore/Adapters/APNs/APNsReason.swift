/// Every `reason` the APNs provider API answers, with its status (docs/reference/apns.md §E.4).
public enum APNsReason: String, Sendable, CaseIterable {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    public var status: Int {
        switch self {
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        default: 400
        }
    }

    /// The log event a rejected push is recorded under.
    var event: EventKind {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered: .invalidRegistration
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicDisallowed:
            .authenticationError
        case .payloadTooLarge: .payloadTooLarge
        case .tooManyRequests, .tooManyProviderTokenUpdates: .quotaExceeded
        case .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout: .internalError
        default: .invalidParameters
        }
    }
}

/// A rejected APNs request: the reason, and for 410 when the token stopped being valid.
struct APNsFailure: Error {
    let reason: APNsReason
    var timestamp: Timestamp?
    /// The device the push was for, when known (for the log). Errors must be `Sendable`; this
    /// one never leaves the loop thread that owns the device.
    nonisolated(unsafe) var device: Device?
    /// Chaos or a device's script made it (logged with reason `chaos`).
    var injected = false

    init(_ reason: APNsReason, timestamp: Timestamp? = nil, device: Device? = nil, injected: Bool = false) {
        self.reason = reason
        self.timestamp = timestamp
        self.device = device
        self.injected = injected
    }
}
