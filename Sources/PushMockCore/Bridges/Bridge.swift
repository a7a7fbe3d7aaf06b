/// A delivery bridge: where pushmock also sends what a device received, when the device's
/// fate for a message is decided (docs/bridges.md). Configured per project through the
/// control API or a fixture, or for every project with `--webhook`.
public struct Bridge: Sendable {
    /// Which devices' events it forwards.
    public enum Scope: Sendable, Equatable {
        case project
        case device(String)
        /// The devices subscribed to a topic when the event happens.
        case topic(String)
        /// The devices of one app (a bundle id, package name or web origin).
        case app(String)
    }

    public enum Target: Sendable {
        case webhook(Webhook)
        /// `xcrun simctl push <udid> <bundle id> <payload file>` for what an iPhone displays;
        /// no bundle id: each device's app.
        case simulator(udid: String, bundleID: String?)
        case command(Command)

        public var name: String {
            switch self {
            case .webhook: "webhook"
            case .simulator: "simulator"
            case .command: "command"
            }
        }
    }

    public struct Webhook: Sendable {
        public let url: String
        /// The HMAC-SHA256 key of the `X-Pushmock-Signature` header.
        public let secret: String
        public let timeoutSeconds: Double
        public let maxAttempts: Int
    }

    public struct Command: Sendable {
        /// The program (looked up on `PATH`) and its arguments.
        public let argv: [String]
        public let timeoutSeconds: Double
        /// How many may run at once.
        public let concurrency: Int
    }

    public let id: String
    /// Nil: every project (`--webhook`).
    public let projectID: String?
    public let scope: Scope
    /// Only devices a real app's Firebase SDK registered (`RealClient` of kind `firebaseSDK`):
    /// the one setting that links an app in the iOS Simulator to pushmock (docs/fcm-clients.md).
    public let sdkDevicesOnly: Bool
    public let events: Set<EventKind>
    public let target: Target
    /// Deliveries waiting at most; more are counted and logged as `BRIDGE_OVERFLOW`.
    public let queueLimit: Int

    /// What a bridge forwards unless told otherwise: every fate of a message on a device.
    public static let fateEvents: Set<EventKind> = [
        .messageDelivered, .messageDisplayed, .messagePresented, .messageStored, .messageCollapsed,
        .messageExpired, .messageDropped, .messageOpen,
    ]
    /// What a Simulator shows: the notifications an iPhone displayed or presented.
    public static let shownEvents: Set<EventKind> = [.messageDisplayed, .messagePresented]

    static let defaultQueueLimit = 1000

    /// Unique in the process: `<project>/<id>`, `*/<id>` for `--webhook`'s.
    public let key: String
    /// `events` as bits by `EventKind.ordinal`, tested for every event while bridges exist.
    private let eventBits: UInt64

    init(
        id: String, projectID: String?, scope: Scope, events: Set<EventKind>, target: Target, queueLimit: Int,
        sdkDevicesOnly: Bool = false
    ) {
        self.id = id
        self.projectID = projectID
        self.scope = scope
        self.sdkDevicesOnly = sdkDevicesOnly
        self.events = events
        self.target = target
        self.queueLimit = queueLimit
        key = (projectID ?? "*") + "/" + id
        eventBits = Self.bits(events)
    }

    static func bits(_ kinds: Set<EventKind>) -> UInt64 { kinds.reduce(0) { $0 | 1 << UInt64($1.ordinal) } }
    static let fateBits = bits(fateEvents)

    /// Whether this bridge forwards an event of this kind on this device.
    func matches(_ kind: EventKind, projectID: String, device: Device) -> Bool {
        guard eventBits & 1 << UInt64(kind.ordinal) != 0, self.projectID == nil || self.projectID == projectID else {
            return false
        }
        if case .simulator = target, device.platform != .ios { return false }
        if sdkDevicesOnly, device.realClient?.kind != .firebaseSDK { return false }
        switch scope {
        case .project: return true
        case .device(let id): return device.id == id
        case .topic(let name): return device.topics[name] != nil
        case .app(let app): return device.app == app
        }
    }

    /// The bridge as `GET .../bridges` shows it and `POST .../bridges` takes it back.
    func write(to w: inout JSONWriter) {
        w.member("id", id)
        switch scope {
        case .project: break
        case .device(let d): w.member("device", d)
        case .topic(let t): w.member("topic", t)
        case .app(let a): w.member("app", a)
        }
        if sdkDevicesOnly { w.member("sdk_devices", true) }
        w.key("events")
        w.beginArray()
        for kind in EventKind.allCases where events.contains(kind) { w.string(kind.rawValue) }
        w.endArray()
        w.member("queue_limit", queueLimit)
        w.key(JSONKey(target.name))
        w.beginObject()
        switch target {
        case .webhook(let h):
            w.member("url", h.url)
            w.member("secret", h.secret)
            w.member("timeout_seconds", Self.seconds(h.timeoutSeconds))
            w.member("max_attempts", h.maxAttempts)
        case .simulator(let udid, let bundleID):
            w.member("udid", udid)
            if let bundleID { w.member("bundle_id", bundleID) }
        case .command(let c):
            w.key("argv")
            w.beginArray()
            for a in c.argv { w.string(a) }
            w.endArray()
            w.member("timeout_seconds", Self.seconds(c.timeoutSeconds))
            w.member("concurrency", c.concurrency)
        }
        w.endObject()
    }

    private static func seconds(_ s: Double) -> JSONValue {
        .number(JSONNumber(text: s == s.rounded() ? String(Int(s)) : String(s), double: s))
    }
}

extension Bridge {
    /// Why a webhook URL cannot be used, or nil: `http://` or `https://`, a host, an optional
    /// port and path.
    public static func webhookURLProblem(_ url: String) -> String? {
        if case .failure(let problem) = WebhookURL.parse(url) { return problem.sentence }
        return nil
    }
}
