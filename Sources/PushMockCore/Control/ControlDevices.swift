/// The control API for fake devices: register, list, inspect, change, uninstall, subscribe,
/// and read what a device received; what a user or the SDK does on one is
/// `ControlDevices+Actions.swift`. Loop thread only.
final class ControlDevices {
    static let deviceFields = Set(["id", "platform", "app", "apns_environment", "token", "fid", "apns_token"])
        .union(DeviceStateFields.names)

    let directory: ProjectDirectory
    let delivery: Delivery
    let chaos: Chaos
    let clock: Clock
    let random: RandomSource
    let log: EventLog
    private let configuration: Configuration

    init(
        directory: ProjectDirectory, delivery: Delivery, chaos: Chaos, log: EventLog, clock: Clock, random: RandomSource,
        configuration: Configuration
    ) {
        self.directory = directory
        self.delivery = delivery
        self.chaos = chaos
        self.clock = clock
        self.random = random
        self.log = log
        self.configuration = configuration
    }

    func create(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: Self.deviceFields)
        return .response(.json(201, ControlJSON.deviceJSON(try register(obj, in: project))))
    }

    /// Registers a device from its fields: the body of `POST .../devices`, or a device of a
    /// seed fixture or of the saved state (which `Gateway.seed` hands over without HTTP).
    func register(_ obj: JSONObject, in project: Project) throws(ControlError) -> Device {
        try Control.onlyKnown(obj, allowed: Self.deviceFields)
        var fields: [String: String] = [:]
        for name in Self.deviceFields where !DeviceStateFields.names.contains(name) {
            fields[name] = try Control.string(obj, name)
        }
        var state = DeviceState()
        try DeviceStateFields.apply(obj, to: &state)
        return try makeDevice(fields, state: state, in: project)
    }

    /// `POST .../devices:batchCreate` with `{"platform", "app", "count", "topics"}`: many
    /// identical devices at once, for load tests. Answers the count and the id range.
    func batchCreate(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: ["platform", "app", "apns_environment", "count", "topics"])
        guard let count = obj["count"]?.numberValue?.int, (1...Self.maxBatchCreate).contains(count) else {
            throw Control.invalid("Field 'count' must be a whole number in 1...\(Self.maxBatchCreate).")
        }
        let topics = obj["topics"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard topics.count == (obj["topics"]?.arrayValue?.count ?? 0), topics.allSatisfy(Topic.isValidName) else {
            throw Control.invalid("Field 'topics' must be a list of valid topic names.")
        }
        var fields: [String: String] = [:]
        for name in ["platform", "app", "apns_environment"] { fields[name] = try Control.string(obj, name) }
        var first: Device?
        var last: Device?
        for _ in 0..<count {
            let d = try makeDevice(fields, in: project)
            for t in topics { _ = project.topics.subscribe(d, to: t, at: d.createdAt) }
            first = first ?? d
            last = d
        }
        return .response(.json(201, "{\"created\":\(count),\"first\":\"\(first!.id)\",\"last\":\"\(last!.id)\"}"))
    }

    static let maxBatchCreate = 1_000_000

    static func apnsEnvironment(_ s: String) throws(ControlError) -> APNsEnvironment {
        guard let env = APNsEnvironment(rawValue: s) else {
            throw Control.invalid("Invalid value at 'apns_environment': \"\(s)\" is not sandbox or production.")
        }
        return env
    }

    /// Validates the registration fields and registers one device.
    private func makeDevice(
        _ fields: [String: String], state: DeviceState = DeviceState(),
        in project: Project
    ) throws(ControlError) -> Device {
        guard let p = fields["platform"] else {
            throw Control.invalid("Missing required field 'platform' (\(Platform.spelled)).")
        }
        guard let platform = Platform(rawValue: p) else {
            throw Control.invalid("Invalid value at 'platform': \"\(p)\" is not \(Platform.spelled).")
        }
        guard let appName = fields["app"], !appName.isEmpty else {
            throw Control.invalid("Missing required field 'app' (a bundle id, package name or web origin).")
        }
        if platform == .web { try App.checkWebOrigin(appName) }
        try DeviceStateFields.check(state, for: platform)
        var environment: APNsEnvironment? = nil
        if platform == .ios {
            environment = try Self.apnsEnvironment(fields["apns_environment"] ?? APNsEnvironment.sandbox.rawValue)
        } else if fields["apns_environment"] != nil || fields["apns_token"] != nil {
            throw Control.invalid("'apns_environment' and 'apns_token' apply to iOS devices only.")
        }
        if project.app(platform, appName) == nil {
            guard !configuration.strictApps else {
                throw Control.failedPrecondition(
                    "App \(platform.rawValue)/\(appName) is not registered in project \(project.id) (--strict-apps).")
            }
            project.addApp(platform, appName, credentials: [.sandbox, .production])
        }
        let fid = fields["fid"] ?? Identifiers.fid(random)
        let token = fields["token"] ?? Identifiers.registrationToken(fid: fid, random)
        if let t = fields["token"], !Identifiers.looksLikeRegistrationToken(t) {
            throw Control.invalid("Invalid value at 'token': not a registration token.")
        }
        if let a = fields["apns_token"],
            a.utf8.count != 64 || !a.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            throw Control.invalid("Invalid value at 'apns_token': expected 64 lower-case hex digits.")
        }
        if fields["token"] != nil && !state.autoInitEnabled {
            throw Control.invalid("A device with 'auto_init_enabled': false has no token yet; do not give one.")
        }
        if fields["token"] != nil && !state.hasPushSubscription(on: platform) {
            throw Control.invalid("A web device without notification permission has no push subscription; do not give a token.")
        }
        if directory.owner(ofToken: token) != nil || project.devices.withFID(fid) != nil {
            throw Control.conflict("A device with this token or fid already exists.")
        }
        let id = try deviceID(fields["id"], in: project)
        let device = Device(
            id: id, platform: platform, app: appName, projectID: project.id,
            fid: fid, token: state.autoInitEnabled && state.hasPushSubscription(on: platform) ? token : nil,
            apnsToken: platform == .ios ? (fields["apns_token"] ?? Identifiers.apnsToken(random)) : nil,
            apnsEnvironment: environment, createdAt: clock.now())
        device.state = state
        project.devices.insert(device)
        return device
    }

    /// The given id (checked, unique; a `dN` one moves the numbering past it), or the next `dN`.
    private func deviceID(_ given: String?, in project: Project) throws(ControlError) -> String {
        if let given {
            guard (1...64).contains(given.utf8.count),
                given.utf8.allSatisfy({ c in
                    (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
                })
            else { throw Control.invalid("Invalid value at 'id': use 1-64 letters, digits, '-' or '_'.") }
        }
        guard let id = project.devices.claimID(given) else {
            throw Control.conflict("A device with id \(given ?? "") already exists.")
        }
        return id
    }

    func list(_ params: [String: String]) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        var w = JSONWriter(capacity: 64 + project.devices.count * 400)
        w.beginObject()
        w.key("devices")
        w.beginArray()
        for d in project.devices.inOrder { w.raw(ControlJSON.deviceJSON(d)) }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    func get(_ params: [String: String]) throws(ControlError) -> Reply {
        let (_, d) = try directory.device(params)
        return .response(.json(200, ControlJSON.deviceJSON(d)))
    }

    /// Changes the device's state; the transitions have consequences: back online delivers
    /// what was stored, launching the app hands over a held background push, force-quit
    /// discards it.
    func patch(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        let obj = try Control.body(request, allowed: DeviceStateFields.names.union(["apns_environment"]))
        // Everything is validated before anything changes.
        var state = d.state
        try DeviceStateFields.apply(obj, to: &state)
        try DeviceStateFields.check(state, for: d.platform)
        var environment = d.apnsEnvironment
        if let e = try Control.string(obj, "apns_environment") {
            guard d.platform == .ios else { throw Control.invalid("'apns_environment' applies to iOS devices only.") }
            environment = try Self.apnsEnvironment(e)
        }
        delivery.change(d, to: state, apnsEnvironment: environment, project: project)
        return .response(.json(200, ControlJSON.deviceJSON(d)))
    }

    /// The app was uninstalled: the device is gone and its token answers NotRegistered.
    func delete(_ params: [String: String]) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        delivery.dropWaiting(d, project: project)
        project.remove(d, at: clock.now())
        return .response(.json(200, "{}"))
    }

    /// The client SDK's `subscribe(toTopic:)` / `unsubscribe(fromTopic:)`.
    func topic(_ params: [String: String], subscribe: Bool) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        try setTopic(params["topic"]!, of: d, in: project, subscribed: subscribe)
        return .response(.json(200, ControlJSON.deviceJSON(d)))
    }

    /// The client SDK's subscribe or unsubscribe (also a seed fixture's `topics`).
    func setTopic(_ name: String, of d: Device, in project: Project, subscribed subscribe: Bool) throws(ControlError) {
        let topic = Topic.bareName(name)
        guard Topic.isValidName(topic) else {
            throw Control.invalid("Invalid topic name '\(topic)': it must match [a-zA-Z0-9-_.~%]+.")
        }
        if subscribe {
            guard project.topics.subscribe(d, to: topic, at: clock.now()) else {
                throw Control.failedPrecondition(
                    "TOO_MANY_TOPICS: a device can subscribe to at most \(Topic.maxPerInstance) topics.")
            }
        } else {
            project.topics.unsubscribe(d, from: topic)
        }
    }

    /// What the device received, oldest first, each with the exact payload it saw.
    func notifications(_ params: [String: String]) throws(ControlError) -> Reply {
        let (_, d) = try directory.device(params)
        var w = JSONWriter(capacity: 128 + d.inbox.count * 512)
        w.beginObject()
        w.key("notifications")
        w.beginArray()
        for entry in d.inbox {
            w.beginObject()
            w.member("message_id", entry.messageID)
            w.member("received_at", entry.receivedAt.rfc3339)
            w.member("shown", entry.shown.rawValue)
            w.member("opened", entry.opened)
            ControlJSON.writeRendering(entry.message, entry.messageID, d, to: &w)
            w.endObject()
        }
        w.endArray()
        w.member("dropped_from_inbox", d.inboxDropped)
        w.endObject()
        return .response(.json(200, w))
    }
}
