/// A legacy device group (`/fcm/notification`): a named set of registration tokens that a
/// send addresses through its notification key.
public final class DeviceGroup {
    public let name: String
    public let key: String
    /// Guarded by the loop thread.
    public var tokens: [String]

    init(name: String, key: String, tokens: [String]) {
        self.name = name
        self.key = key
        self.tokens = tokens
    }

    public static let maxMembers = 20
}
