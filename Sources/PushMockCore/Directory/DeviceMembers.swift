/// A registration's member names, as the wire spells them (`POST .../devices`, a fixture, the
/// saved state), each with its place in `DeviceMembers`.
enum DeviceField: Int, CaseIterable {
    case id, platform, app, apnsEnvironment, token, fid, apnsToken
    // The settable state, taken by registration and by `PATCH`.
    case appState, online, notifications, lowPowerMode, presentationOptions, autoInitEnabled
    // A Web device's browser and push subscription (the last four restore a subscription
    // whole: a fixture, the saved state, a test's known keys).
    case browser, applicationServerKey, pushOrigin, pushToken, pushPrivateKey, pushAuth

    var name: String { Self.names[rawValue] }
    /// How many fields there are (`allCases` makes an array each time).
    static let count = names.count
    var isState: Bool { (Self.appState.rawValue...Self.autoInitEnabled.rawValue).contains(rawValue) }
    var isWebPush: Bool { rawValue >= Self.browser.rawValue }

    private static let names = [
        "id", "platform", "app", "apns_environment", "token", "fid", "apns_token",
        "app_state", "online", "notifications", "low_power_mode", "presentation_options", "auto_init_enabled",
        "browser", "application_server_key", "push_origin", "push_token", "push_private_key", "push_auth",
    ]

    /// The field named `name`, nil for none.
    init?(name: String) {
        var name = name
        guard let i = name.withUTF8({ Self.wireNames.index(of: $0) }) else { return nil }
        self.init(rawValue: i)
    }

    /// The names matched on their bytes (a restart reads a million devices' members; only
    /// names of the same length are compared).
    static let wireNames = MemberNames(names)
}

/// A registration's members, each read once and then found by its field, so `spec` reads its
/// some twenty fields by place, not by looking each up among the members (a restart reads a
/// million rows; docs/PERFORMANCE.md). The last of a repeated name counts, as in
/// `JSONObject`'s lookup, and a null is as absent.
struct DeviceMembers {
    private var values = [JSONValue?](repeating: nil, count: DeviceField.count)
    /// The first member that is no registration field.
    private(set) var firstUnknown: String?

    init(_ obj: JSONObject) {
        for entry in obj.entries { set(DeviceField(name: entry.key), entry.key, entry.value) }
    }

    init() {}

    /// Reads an object's members from `p`; a member that is no field goes to `other`, which
    /// must consume its value (or it is read, and counts as unknown).
    init(
        reading p: inout JSONParser, other: (String, inout JSONParser) throws(JSONParseError) -> Bool
    ) throws(JSONParseError) {
        try read(&p, other: other)
    }

    /// As `init(reading:other:)`, into these members, after forgetting those read before: a
    /// restart reads a million rows into one, clearing each slot in place (freeing a whole
    /// array of members goes through the runtime's generic destruction, element by element).
    mutating func read(
        _ p: inout JSONParser, other: (String, inout JSONParser) throws(JSONParseError) -> Bool
    ) throws(JSONParseError) {
        for i in values.indices { if case .some = values[i] { values[i] = nil } }
        firstUnknown = nil
        try p.readMembers(DeviceField.wireNames) { (p, name) throws(JSONParseError) in
            switch name {
            case .known(let i): set(DeviceField(rawValue: i), "", try p.readValue())
            case .other(let name): if try !other(name, &p) { set(nil, name, try p.readValue()) }
            }
        }
    }

    private mutating func set(_ field: DeviceField?, _ name: String, _ value: JSONValue) {
        guard let field else {
            if firstUnknown == nil { firstUnknown = name }
            return
        }
        if case .null = value { values[field.rawValue] = nil } else { values[field.rawValue] = value }
    }

    subscript(_ field: DeviceField) -> JSONValue? { values[field.rawValue] }

    /// The field's value, moved out (the field is absent after): a registration takes each
    /// field once, and a moved String is not retained and released again.
    mutating func take(_ field: DeviceField) -> JSONValue? { values[field.rawValue].take() }

    /// Whether any of the Web device's fields (`isWebPush`, the last ones) is present.
    var hasWebPush: Bool { values[DeviceField.browser.rawValue...].contains { $0 != nil } }
}
