/// Why a device cannot be registered or changed as asked, in no API's shape: the control API
/// answers it as Google's `INVALID_ARGUMENT`, `ALREADY_EXISTS` or `FAILED_PRECONDITION`, a
/// `--seed` fixture names it at its path, and an SDK-facing API in its own errors.
public struct RegistrationError: Error, Equatable {
    public enum Kind: Sendable {
        /// A field is missing, of the wrong type, or not a value the device can have.
        case invalid
        /// Another device already has the id, token or FID.
        case conflict
        /// The device or project is not in a state that allows it.
        case failedPrecondition
    }

    public let kind: Kind
    /// A sentence saying what is wrong, as the control API shows it.
    public let message: String

    static func invalid(_ message: String) -> RegistrationError { RegistrationError(kind: .invalid, message: message) }
    static func conflict(_ message: String) -> RegistrationError { RegistrationError(kind: .conflict, message: message) }
    static func failedPrecondition(_ message: String) -> RegistrationError {
        RegistrationError(kind: .failedPrecondition, message: message)
    }
}
