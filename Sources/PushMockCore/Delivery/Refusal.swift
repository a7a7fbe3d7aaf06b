/// Why delivery will not take a message for one recipient, in no service's words. Delivery,
/// chaos and the device scripts decide a refusal; each send API renders it as its own wire
/// error (`LegacyError(_:)`, `V1Error(_:)`, APNs' reasons) and the log records it by `event`
/// and `reason`, whichever API it came through.
public enum Refusal: Error, Sendable, Equatable, CaseIterable {
    /// No address was given at all.
    case noAddress
    /// The address has no shape any token ever had.
    case malformedAddress
    /// A well-formed address no live device holds: uninstalled, refreshed, reset, or idle
    /// past its expiry (docs/reference/delivery-rules.md §F.2).
    case unregistered
    /// The address belongs to a device of another project.
    case otherSender
    /// The message is restricted to another app than the device's.
    case wrongApp
    /// The device's app has no APNs credential for the device's environment.
    case missingCredential
    /// The browser's push subscription is restricted to another VAPID key than the
    /// project's Web Push certificate, so its push service would refuse FCM.
    case pushServiceAuth
    /// The device has taken as many messages as its rate allows for now.
    case rateLimited
    /// The service is unavailable, or failed inside (made up by chaos or a device's script).
    case unavailable
    case internalError

    /// The BigQuery export event a refusal is logged as.
    public var event: EventKind {
        switch self {
        case .noAddress: .missingRegistrations
        case .malformedAddress, .unregistered: .invalidRegistration
        case .otherSender: .mismatchSenderID
        case .wrongApp: .invalidPackageName
        case .missingCredential: .invalidAPNsCredential
        case .pushServiceAuth: .authenticationError
        case .rateLimited: .quotaExceeded
        case .unavailable, .internalError: .internalError
        }
    }

    /// pushmock's `reason` column (docs/delivery-log.md): the legacy code's name, except where
    /// two refusals share an export event and need telling apart.
    public var reason: String {
        switch self {
        case .noAddress: "MissingRegistration"
        case .malformedAddress: "malformed_token"
        case .unregistered: "not_registered"
        case .otherSender: "MismatchSenderId"
        case .wrongApp: "InvalidPackageName"
        case .missingCredential: "InvalidApnsCredential"
        case .pushServiceAuth: "web_push_vapid_mismatch"
        case .rateLimited: "DeviceMessageRateExceeded"
        case .unavailable: "Unavailable"
        case .internalError: "InternalServerError"
        }
    }
}
