/// A real client that registered itself over its own protocol (a real Firefox over the
/// Mozilla push protocol, a GCM client over MCS, a Firebase SDK through Google's registration
/// APIs), as opposed to a fake device whose fate the device model decides: pushmock delivers
/// over the client's connection (`carrier`) and records what the client says became of each
/// push (docs/ARCHITECTURE.md, "Fake and real devices"). A client without a connection of its
/// own (an app whose SDK registered its token) is delivered to as a fake device is. A real
/// browser makes its subscriptions' keys itself, so pushmock knows their endpoints and
/// application server keys only. Owned by its device; loop thread only.
public final class RealClient {
    /// Which kind of client, as the control API and the dashboard name it.
    public enum Kind: String, Sendable {
        /// A browser over the Mozilla push protocol (Firefox).
        case mozillaPush = "mozilla_push"
        /// A GCM client over MCS (Chrome's GCM driver, firebase-messaging).
        case mcs
        /// A Firebase SDK that registered its token (the JS SDK's FCM registration, the iOS SDK).
        case firebaseSDK = "firebase_sdk"
    }

    public let kind: Kind
    /// The client's own id for itself across connections (autopush's `uaid`, GCM's android id,
    /// the SDK's installation id).
    public let clientID: String
    /// What it said it is (its `User-Agent`, its SDK version).
    public internal(set) var userAgent: String?
    /// Its push subscriptions (one per origin and service worker), by endpoint token.
    public internal(set) var subscriptions: [String: PushSubscription] = [:]
    /// How many pushes went to it and were not acknowledged yet.
    public internal(set) var unacknowledged = 0
    /// Whether its connection is open now, and when it last said anything on it (a heartbeat).
    public internal(set) var connected = false
    public internal(set) var lastHeard: Timestamp?
    /// Where a push that reaches it goes: the module holding its connection (weak: that module
    /// outlives its clients); nil for a client without a connection of its own.
    weak var carrier: (any ClientDelivery)?

    init(kind: Kind, clientID: String, userAgent: String?, carrier: (any ClientDelivery)?) {
        self.kind = kind
        self.clientID = clientID
        self.userAgent = userAgent
        self.carrier = carrier
    }
}
