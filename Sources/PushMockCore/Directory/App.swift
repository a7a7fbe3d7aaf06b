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

extension App {
    /// A web app is named by its origin, where its service worker runs: push needs a secure
    /// context, so `https://host[:port]`, or `http://localhost` / `http://127.0.0.1` as
    /// browsers allow for development (docs/device-model.md, "Web").
    static func checkWebOrigin(_ name: String) throws(ControlError) {
        let rest: Substring
        if name.hasPrefix("https://") {
            rest = name.dropFirst(8)
        } else if name.hasPrefix("http://localhost") || name.hasPrefix("http://127.0.0.1") {
            rest = name.dropFirst(7)
        } else {
            throw Control.invalid(
                "Invalid value at 'app': a web app is its origin, https://host[:port] (or http://localhost), not \"\(name)\".")
        }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw Control.invalid("Invalid value at 'app': an origin has no path, query or fragment: \"\(name)\".")
        }
    }
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
