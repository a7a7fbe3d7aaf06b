/// The three client platforms FCM serves and pushmock simulates. A Web device is a browser
/// with a push subscription for one web app (docs/device-model.md, "Web").
public enum Platform: String, Sendable, CaseIterable {
    case ios, android, web

    /// The BigQuery export's `sdk_platform` value.
    public var sdkPlatform: String {
        switch self {
        case .ios: "IOS"
        case .android: "ANDROID"
        case .web: "WEB"
        }
    }

    /// The names, for error messages: "ios, android or web".
    static let spelled = "ios, android or web"
    static let spellings = Spellings<Platform>()
}

/// The APNs environment a device token belongs to and a credential is valid for.
public enum APNsEnvironment: String, Sendable {
    case sandbox, production
}
