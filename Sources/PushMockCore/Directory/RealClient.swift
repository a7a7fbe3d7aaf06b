/// A real client that registered itself over its own protocol (a real Firefox over the Mozilla
/// push protocol), as opposed to a fake device whose fate the device model decides: pushmock
/// delivers over the client's connection and records what the client says became of each push
/// (docs/ARCHITECTURE.md, "Fake and real devices"). A real browser makes its subscriptions'
/// keys itself, so pushmock knows their endpoints and application server keys only. Owned by
/// its device; loop thread only.
public final class RealClient {
    /// The client's own id for itself across connections (autopush's `uaid`).
    public let clientID: String
    /// What it said it is (its `User-Agent`).
    public internal(set) var userAgent: String?
    /// Its push subscriptions (one per origin and service worker), by endpoint token.
    public internal(set) var subscriptions: [String: PushSubscription] = [:]
    /// How many pushes went to it and were not acknowledged yet.
    public internal(set) var unacknowledged = 0

    init(clientID: String, userAgent: String?) {
        self.clientID = clientID
        self.userAgent = userAgent
    }
}
