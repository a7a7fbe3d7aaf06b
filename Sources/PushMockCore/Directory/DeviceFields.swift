/// A device's wire names, spelled in one place: what `POST .../devices`, a `--seed` fixture
/// and the saved state give (`spec`, `apply`), and how the control API, the bridges and the
/// saved state show a device (`write`).
enum DeviceFields {
    /// The settable state, taken by registration and by `PATCH`.
    static let state = Set(DeviceField.allCases.filter(\.isState).map(\.name))
    /// Everything a registration may give.
    static let registration = Set(DeviceField.allCases.map(\.name))

    /// The registration a JSON object asks for, its members' types and values checked.
    static func spec(_ obj: JSONObject) throws(RegistrationError) -> DeviceSpec {
        var members = DeviceMembers(obj)
        return try spec(taking: &members)
    }

    /// The registration the members ask for, their types and values checked; each field's
    /// value is taken out of `m`.
    static func spec(taking m: inout DeviceMembers) throws(RegistrationError) -> DeviceSpec {
        if let unknown = m.firstUnknown {
            throw .invalid("Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        guard let p = try string(&m, .platform) else {
            throw .invalid("Missing required field 'platform' (\(Platform.spelled)).")
        }
        guard let platform = Platform.spellings.find(p) else {
            throw .invalid("Invalid value at 'platform': \"\(p)\" is not \(Platform.spelled).")
        }
        var spec = DeviceSpec(platform: platform, app: try string(&m, .app) ?? "")
        spec.id = try string(&m, .id)
        spec.token = try string(&m, .token)
        spec.fid = try string(&m, .fid)
        spec.apnsToken = try string(&m, .apnsToken)
        let environment = try string(&m, .apnsEnvironment)
        if platform == .ios {
            spec.apnsEnvironment = try environment.map(Self.environment) ?? .sandbox
        } else if environment != nil || spec.apnsToken != nil {
            throw .invalid("'apns_environment' and 'apns_token' apply to iOS devices only.")
        }
        try apply(&m, to: &spec.state)
        try readWebPush(&m, into: &spec)
        return spec
    }

    /// The browser, its application server key, and a subscription given whole; Web only.
    private static func readWebPush(_ m: inout DeviceMembers, into spec: inout DeviceSpec) throws(RegistrationError) {
        guard m.hasWebPush else { return }
        guard spec.platform == .web else {
            throw .invalid("'browser', 'application_server_key' and the 'push_' fields apply to web devices only.")
        }
        func bytes(_ field: DeviceField) throws(RegistrationError) -> [UInt8]? {
            guard let s = try string(&m, field) else { return nil }
            guard let b = Base64URL.decode(s) else { throw .invalid("Invalid value at '\(field.name)': not base64url.") }
            return b
        }
        if let b = try string(&m, .browser) {
            guard let browser = Browser(rawValue: b) else {
                throw .invalid("Invalid value at 'browser': \"\(b)\" is not \(Browser.spelled).")
            }
            spec.browser = browser
        }
        spec.applicationServerKey = try bytes(.applicationServerKey)
        spec.pushOrigin = try string(&m, .pushOrigin)
        spec.pushToken = try string(&m, .pushToken)
        spec.pushPrivateKey = try bytes(.pushPrivateKey)
        spec.pushAuth = try bytes(.pushAuth)
        let given = [spec.pushToken != nil, spec.pushPrivateKey != nil, spec.pushAuth != nil]
        if given.contains(true), given.contains(false) {
            throw .invalid("A subscription given whole needs 'push_token', 'push_private_key' and 'push_auth'.")
        }
        if let origin = spec.pushOrigin, case .failure = WebhookURL.parse(origin + "/") {
            throw .invalid("Invalid value at 'push_origin': not an origin (scheme://host[:port]).")
        }
    }

    static func environment(_ s: String) throws(RegistrationError) -> APNsEnvironment {
        guard let env = APNsEnvironment(rawValue: s) else {
            throw .invalid("Invalid value at 'apns_environment': \"\(s)\" is not sandbox or production.")
        }
        return env
    }

    /// Applies the state members present in `obj`; a wrong type or value is refused.
    static func apply(_ obj: JSONObject, to state: inout DeviceState) throws(RegistrationError) {
        var members = DeviceMembers(obj)
        try apply(&members, to: &state)
    }

    private static func apply(_ m: inout DeviceMembers, to state: inout DeviceState) throws(RegistrationError) {
        if let v = try string(&m, .appState) {
            guard let s = AppState.spellings.find(v) else {
                throw .invalid("Invalid value at 'app_state': \"\(v)\" is not foreground, background, not_running or terminated.")
            }
            state.appState = s
        }
        if let v = try string(&m, .notifications) {
            guard let p = NotificationPermission.spellings.find(v) else {
                throw .invalid(
                    "Invalid value at 'notifications': \"\(v)\" is not authorized, denied, provisional or not_determined.")
            }
            state.notifications = p
        }
        if let b = try bool(m, .online) { state.online = b }
        if let b = try bool(m, .lowPowerMode) { state.lowPowerMode = b }
        if let b = try bool(m, .autoInitEnabled) { state.autoInitEnabled = b }
        if let v = m.take(.presentationOptions) {
            guard let items = v.arrayValue else {
                throw .invalid("Invalid value at 'presentation_options': expected a list of banner, list, sound, badge.")
            }
            var options: [PresentationOption] = []
            options.reserveCapacity(items.count)
            for item in items {
                guard let o = item.stringValue.flatMap(PresentationOption.spellings.find) else {
                    throw .invalid(
                        "Invalid value at 'presentation_options': \(JSONWriter.quotedJSON(item)) is not banner, list, sound or badge."
                    )
                }
                if !options.contains(o) { options.append(o) }
            }
            state.presentationOptions = options
        }
    }

    /// A device as the control API shows it.
    static func json(_ d: Device) -> String {
        var w = JSONWriter(capacity: 400)
        write(d, asFixture: false, to: &w)
        return w.text
    }

    /// A device as the control API shows it; `asFixture`: only what a registration takes
    /// (plus `topics`), without nulls, for the saved state.
    static func write(_ d: Device, asFixture: Bool, to w: inout JSONWriter) {
        w.beginObject()
        w.member("id", d.id)
        if !asFixture { w.member("project", d.projectID) }
        w.member("platform", d.platform.rawValue)
        w.member("app", d.app)
        // What a device does not have is null to the control API, and left out of a fixture.
        func optional(_ name: JSONKey, _ value: String?) {
            if let value { w.member(name, value) } else if !asFixture { w.member(name, .null) }
        }
        optional("token", d.token)
        w.member("fid", d.fid)
        optional("apns_token", d.apnsToken)
        optional("apns_environment", d.apnsEnvironment?.rawValue)
        w.array("topics", strings: d.topics.keys.sorted())
        writeState(d.state, asFixture: asFixture, to: &w)
        if d.platform == .web { writeWebPush(d, asFixture: asFixture, to: &w) }
        if !asFixture, let client = d.realClient { writeRealClient(client, to: &w) }
        if !asFixture {
            w.member("received", d.inbox.count + d.inboxDropped)
            w.member("pending", d.delivery.pending.count)
            w.member("held", d.delivery.held != nil)
            w.member("created_at", d.createdAt.rfc3339)
            w.member("last_seen", d.lastSeen.rfc3339)
        }
        w.endObject()
    }

    /// What a registration that gives no state gets.
    private static let defaultState = DeviceState()

    /// The device's state; a fixture leaves out each member at its default, which is what a
    /// registration without it gets: a saved row of a million is shorter, and a restart reads
    /// less.
    private static func writeState(_ s: DeviceState, asFixture: Bool, to w: inout JSONWriter) {
        let d = asFixture ? defaultState : nil
        if s.appState != d?.appState { w.member("app_state", s.appState.rawValue) }
        if s.online != d?.online { w.member("online", s.online) }
        if s.notifications != d?.notifications { w.member("notifications", s.notifications.rawValue) }
        if s.lowPowerMode != d?.lowPowerMode { w.member("low_power_mode", s.lowPowerMode) }
        if s.presentationOptions != d?.presentationOptions {
            w.array("presentation_options") { w in for o in s.presentationOptions { w.string(o.rawValue) } }
        }
        if s.autoInitEnabled != d?.autoInitEnabled { w.member("auto_init_enabled", s.autoInitEnabled) }
    }

    /// The browser and its push subscription: as `PushSubscription.toJSON()` gives it (null
    /// once ended) with the fake browser's private key, or for a fixture the parts that
    /// restore it; a real browser's own subscription has no private key here.
    private static func writeWebPush(_ d: Device, asFixture: Bool, to w: inout JSONWriter) {
        if d.realClient != nil, d.pushSubscription == nil {
            w.member("browser", d.app == Browser.firefox.rawValue ? "firefox" : "chrome")
            return
        }
        guard let sub = d.pushSubscription else { return }
        w.member("browser", sub.browser.rawValue)
        if let key = sub.applicationServerKey {
            w.member("application_server_key", Base64URL.encode(key))
        } else if !asFixture {
            w.member("application_server_key", .null)
        }
        if asFixture {
            guard d.isSubscribed else { return }
            w.member("push_origin", sub.origin)
            w.member("push_token", sub.token)
            w.member("push_private_key", Base64URL.encode(sub.privateKey))
            w.member("push_auth", Base64URL.encode(sub.auth))
            return
        }
        w.key("push_subscription")
        if d.isSubscribed { sub.write(to: &w) } else { w.value(.null) }
        w.member("push_private_key", d.isSubscribed && sub.hasKeys ? .string(Base64URL.encode(sub.privateKey)) : .null)
    }

    /// A real client: which kind, what it said it is, whether it is connected and when it last
    /// said anything, and the subscriptions it made (their keys are its own).
    private static func writeRealClient(_ client: RealClient, to w: inout JSONWriter) {
        w.key("real_client")
        w.beginObject()
        w.member("kind", client.kind.rawValue)
        w.member("client_id", client.clientID)
        // The Mozilla protocol's name for it.
        if client.kind == .mozillaPush { w.member("uaid", client.clientID) }
        w.member("user_agent", client.userAgent.map { .string($0) } ?? .null)
        if client.carrier != nil {
            w.member("connected", client.connected)
            w.member("last_heard", client.lastHeard.map { .string($0.rfc3339) } ?? .null)
            w.member("unacknowledged", client.unacknowledged)
        }
        w.key("subscriptions")
        w.beginArray()
        for sub in client.subscriptions.values.sorted(by: { ($0.channelID ?? $0.token) < ($1.channelID ?? $1.token) }) {
            w.beginObject()
            w.member("endpoint", sub.endpoint)
            w.member("channel_id", sub.channelID.map { .string($0) } ?? .null)
            w.member("application_server_key", sub.applicationServerKey.map { .string(Base64URL.encode($0)) } ?? .null)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    /// The longest string any control API field takes (a PEM key is the longest there is);
    /// each identifier has its own, shorter rule besides.
    static let maxString = 8192

    /// A string member, nil when absent; refused when present with another type or longer
    /// than `maxString`.
    static func string(_ obj: JSONObject, _ name: String) throws(RegistrationError) -> String? {
        try string(obj[name], name)
    }

    private static func string(_ m: inout DeviceMembers, _ field: DeviceField) throws(RegistrationError) -> String? {
        try string(m.take(field), field.name)
    }

    /// (The name is made only for an error: a restart reads a million devices' members.)
    private static func string(_ v: consuming JSONValue?, _ name: @autoclosure () -> String) throws(RegistrationError)
        -> String?
    {
        guard let v else { return nil }
        switch v {
        case .string(let s):
            guard s.utf8.count <= DeviceFields.maxString else {
                throw .invalid("Invalid value at '\(name())': longer than \(DeviceFields.maxString) bytes.")
            }
            return s
        case .null: return nil
        default: throw wrongType(v, name(), "TYPE_STRING")
        }
    }

    private static func bool(_ m: DeviceMembers, _ field: DeviceField) throws(RegistrationError) -> Bool? {
        guard let v = m[field] else { return nil }
        switch v {
        case .bool(let b): return b
        case .null: return nil
        default: throw wrongType(v, field.name, "TYPE_BOOL")
        }
    }

    /// A member present with a type its field does not take.
    private static func wrongType(_ v: JSONValue, _ name: String, _ type: String) -> RegistrationError {
        .invalid("Invalid value at '\(name)' (\(type)), \(JSONWriter.quotedJSON(v))")
    }
}

/// What a registration asks for; nil fields are pushmock's to choose.
struct DeviceSpec {
    var platform: Platform
    /// The bundle id, package name or web origin.
    var app: String
    /// iOS only.
    var apnsEnvironment: APNsEnvironment?
    var id: String?
    var token: String?
    var fid: String?
    var apnsToken: String?
    var state = DeviceState()
    /// Web: the browser (Chrome when not given) and the key its subscription is restricted to.
    var browser: Browser?
    var applicationServerKey: [UInt8]?
    /// Web: the origin the registration came to, where a new subscription's endpoint is.
    var pushOrigin: String?
    /// Web: a subscription given whole.
    var pushToken: String?
    var pushPrivateKey: [UInt8]?
    var pushAuth: [UInt8]?
}
