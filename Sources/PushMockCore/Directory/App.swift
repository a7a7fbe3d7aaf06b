/// An app registered in a project: an iOS bundle id or an Android package name. iOS apps
/// record for which APNs environments a credential (auth key or certificate) was uploaded;
/// without one, FCM answers InvalidApnsCredential.
public final class App {
    public let platform: Platform
    public let name: String
    /// Guarded by the loop thread.
    public var apnsCredentials: Set<APNsEnvironment>

    public init(platform: Platform, name: String, apnsCredentials: Set<APNsEnvironment>) {
        self.platform = platform
        self.name = name
        self.apnsCredentials = apnsCredentials
    }

    /// The key apps are stored under in a project.
    public static func key(_ platform: Platform, _ name: String) -> String { platform.rawValue + "/" + name }
}

extension Platform {
    /// The Instance ID server's `platform` for a token: `ANDROID`, `IOS` or `CHROME`
    /// (docs/fcm-legacy.md, "Instance ID").
    var instanceIDPlatform: String {
        switch self {
        case .ios: "IOS"
        case .android: "ANDROID"
        case .web: "CHROME"
        }
    }
}

extension App {
    /// The Firebase app id, `1:<project number>:<platform>:<16 hex>`, stable for a name.
    public func appID(projectNumber: Int64) -> String {
        let hex = String(Identifiers.stableHash(name), radix: 16)
        return "1:\(projectNumber):\(platform.rawValue):" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }
}
