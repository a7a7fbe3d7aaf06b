/// What carries bridged events out of the process: the server's workers (HTTP client,
/// processes), off the loop thread. The gateway hands it finished deliveries and collects
/// what became of each attempt.
public protocol BridgeCarrier: AnyObject {
    /// Whether the bridge's queue takes another delivery now (checked before one is made).
    func hasRoom(_ bridge: Bridge) -> Bool
    /// Queues a delivery; false when the bridge's queue is full (nothing is queued).
    func carry(_ delivery: BridgeDelivery) -> Bool
    /// The attempts finished since the last call, oldest first.
    func finishedAttempts() -> [BridgeAttempt]
    /// The bridge was removed: its waiting deliveries are dropped and its workers stop.
    func retire(bridgeID: String)
}

/// One event on its way through one bridge: everything the worker needs, made on the loop
/// thread.
public struct BridgeDelivery: Sendable {
    public let bridge: Bridge
    /// `<bridge id>-<event seq>`: the same on every retry (the webhook's `Idempotency-Key`).
    public let key: String
    public let eventName: String
    /// The JSON document sent: the log row, the device, and what it received.
    public let body: [UInt8]
    /// For commands: the event's main fields as `PUSHMOCK_*` variables.
    public let environment: [(name: String, value: String)]
    /// For the Simulator: the APNs payload with its `Simulator Target Bundle`.
    public let simulatorPayload: [UInt8]?
    /// The app it goes to in the Simulator (the bridge's, else the device's).
    public let simulatorBundleID: String?
    /// Where its attempts are logged.
    public let projectID: String
    public let messageID: String?
    public let deviceID: String?

    /// What it holds while it waits, about: its bytes, and a fixed share for the rest.
    public var heldBytes: Int {
        var n = 256 + key.utf8.count + body.count + (simulatorPayload?.count ?? 0)
        for (name, value) in environment { n += 32 + name.utf8.count + value.utf8.count }
        return n
    }

    /// A bridge's waiting deliveries may hold this much at most, and all bridges' together
    /// `totalHeldLimit` (docs/hardening.md): the count (`queue_limit`) bounds them too.
    public static let heldLimitPerBridge = 8 << 20
    public static let totalHeldLimit = 64 << 20
}

/// What became of one attempt to carry a delivery.
public struct BridgeAttempt: Sendable {
    public let delivery: BridgeDelivery
    /// 1 for the first try.
    public let number: Int
    public let succeeded: Bool
    /// No further attempt follows (it succeeded, or it was the last).
    public let final: Bool
    /// What happened, e.g. `HTTP 500 (3 ms), next in 0.5 s` or `exit 0 (12 ms): ok`.
    public let detail: String

    public init(delivery: BridgeDelivery, number: Int, succeeded: Bool, final: Bool, detail: String) {
        self.delivery = delivery
        self.number = number
        self.succeeded = succeeded
        self.final = final
        self.detail = detail
    }
}
