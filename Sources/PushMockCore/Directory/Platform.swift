/// The two client platforms pushmock simulates.
public enum Platform: String, Sendable {
    case ios, android

    /// The BigQuery export's `sdk_platform` value.
    public var sdkPlatform: String { self == .ios ? "IOS" : "ANDROID" }
}

/// The APNs environment a device token belongs to and a credential is valid for.
public enum APNsEnvironment: String, Sendable {
    case sandbox, production
}
