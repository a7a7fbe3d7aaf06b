/// One name a push service knows a device by: an FCM registration token, a Firebase
/// installation ID, an APNs device token, and whatever kind a protocol module declares (a
/// Web Push endpoint). The directory indexes every kind the same way (`AddressBook`).
public struct DeviceAddress: Hashable, Sendable {
    /// A kind of address. `retires`: an address of this kind that stops being valid is
    /// remembered with when it stopped (APNs answers 410 with that time); other kinds are
    /// simply gone (FCM tells stale tokens by their shape, `Identifiers.looksLikeRegistrationToken`).
    public struct Kind: Hashable, Sendable {
        public let retires: Bool
        /// The name's 64-bit hash, which tells kinds apart (names are modules' constants); a
        /// lookup hashes one word.
        private let code: UInt64

        public init(_ name: String, retires: Bool = false) {
            self.retires = retires
            code = Identifiers.stableHash(name)
        }

        public static func == (a: Kind, b: Kind) -> Bool { a.code == b.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        public static let registrationToken = Kind("fcm_token")
        public static let installation = Kind("fid")
        public static let apnsToken = Kind("apns_token", retires: true)
    }

    /// How the value is compared: as text, or (APNs tokens) as the 32 bytes its hex spells,
    /// in either case.
    enum Key: Hashable, Sendable {
        case text(String)
        case apns(APNsToken)
    }

    public let kind: Kind
    let key: Key

    /// An APNs token hashes one of its words (its kind is always the same); text hashes its kind
    /// and the text.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .apns(let token): hasher.combine(token)
        case .text(let text):
            hasher.combine(kind)
            hasher.combine(text)
        }
    }

    /// An address of a module's own kind, compared as text.
    public init(_ kind: Kind, _ value: String) {
        self.kind = kind
        key = .text(value)
    }

    private init(kind: Kind, key: Key) {
        self.kind = kind
        self.key = key
    }

    static func registrationToken(_ token: String) -> DeviceAddress { DeviceAddress(.registrationToken, token) }
    static func installation(_ fid: String) -> DeviceAddress { DeviceAddress(.installation, fid) }
    static func apns(_ token: APNsToken) -> DeviceAddress { DeviceAddress(kind: .apnsToken, key: .apns(token)) }
    /// Nil unless `hex` is 64 hex digits.
    static func apns(_ hex: String) -> DeviceAddress? { APNsToken(hex).map(apns) }
}
