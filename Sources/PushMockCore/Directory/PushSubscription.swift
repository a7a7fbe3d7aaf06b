/// Which browser a Web device is, and so whose push service its subscription belongs to
/// (docs/web-push.md): Chrome's is FCM, Firefox's Mozilla's autopush, Safari's Apple's.
public enum Browser: String, Sendable, CaseIterable {
    case chrome, firefox, safari

    /// The push service's own origin, for endpoints handed out with `--web-push-hosts real`.
    public var serviceOrigin: String {
        switch self {
        case .chrome: "https://fcm.googleapis.com"
        case .firefox: "https://updates.push.services.mozilla.com"
        case .safari: "https://web.push.apple.com"
        }
    }

    static let spelled = "chrome, firefox or safari"
}

/// A browser's push subscription as `PushSubscription.toJSON()` shows it: an endpoint on its
/// push service, and the keys a sender encrypts for (RFC 8291 §2): the P-256 public key
/// (`p256dh`) and the 16-byte `auth` secret. pushmock plays the browser, so it keeps the
/// private key too. A subscription made with an `applicationServerKey` (a VAPID public key) is
/// restricted to senders signing with it (RFC 8292 §4). Fixed once made; a new subscription
/// is a new value. Its endpoint token is the device's address of kind `webPushEndpoint`.
public final class PushSubscription {
    public let browser: Browser
    /// Where the endpoint is: pushmock's own address, or the push service's real host.
    public let origin: String
    /// The endpoint's last path segment, which names the subscription.
    public let token: String
    public let applicationServerKey: [UInt8]?
    public let privateKey: [UInt8]
    public let publicKey: [UInt8]
    public let auth: [UInt8]
    /// A real browser's name for the subscription (the Mozilla protocol's `channelID`); its
    /// keys are the browser's own, so the three above are empty.
    public let channelID: String?
    /// A real browser's subscription that an FCM registration carries (the Firebase SDK's
    /// `getToken`): the path of its endpoint as the browser gave it, wherever it is.
    public let remotePath: String?
    /// The browser builds the endpoint from the token itself (Chrome's GCM subscriptions, on
    /// `https://fcm.googleapis.com/fcm/send/` or another of FCM's hosts and paths): the push
    /// service takes it on any of them.
    public let builtByBrowser: Bool

    init(
        browser: Browser, origin: String, token: String, applicationServerKey: [UInt8]?, privateKey: [UInt8],
        publicKey: [UInt8], auth: [UInt8], channelID: String? = nil, remotePath: String? = nil, builtByBrowser: Bool = false
    ) {
        self.channelID = channelID
        self.remotePath = remotePath
        self.builtByBrowser = builtByBrowser
        self.browser = browser
        self.origin = origin
        self.token = token
        self.applicationServerKey = applicationServerKey
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.auth = auth
    }

    /// The endpoint's path, shaped as each push service shapes it (docs/reference/web-push.md
    /// §2): FCM's `/fcm/send/` (or `/wp/` with an application server key), autopush's
    /// `/wpush/v1/` (`/wpush/v2/` with a key), Apple's token at the root.
    public var path: String { remotePath ?? Self.pathPrefix(browser, restricted: applicationServerKey != nil) + token }

    /// Whether this is a real browser's subscription an FCM registration carries.
    public var isRemote: Bool { remotePath != nil }

    public var endpoint: String { origin + path }

    public var address: DeviceAddress { DeviceAddress(.webPushEndpoint, token) }

    public static func pathPrefix(_ browser: Browser, restricted: Bool) -> String {
        switch browser {
        case .chrome: restricted ? "/wp/" : "/fcm/send/"
        case .firefox: restricted ? "/wpush/v2/" : "/wpush/v1/"
        case .safari: "/"
        }
    }

    /// Whether pushmock holds the keys (a fake browser) and so decrypts what is sent to it.
    public var hasKeys: Bool { !privateKey.isEmpty }

    /// `PushSubscription.toJSON()`: endpoint, `expirationTime` (null, as Chrome, Firefox and
    /// Safari give it) and the keys, base64url without padding.
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.member("endpoint", endpoint)
        w.member("expirationTime", .null)
        w.key("keys")
        w.beginObject()
        w.member("p256dh", Base64URL.encode(publicKey))
        w.member("auth", Base64URL.encode(auth))
        w.endObject()
        w.endObject()
    }
}

extension DeviceAddress.Kind {
    /// A Web Push endpoint's token; an ended subscription's is remembered (410 Gone).
    public static let webPushEndpoint = DeviceAddress.Kind("web_push_endpoint", retires: true)
}
