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
    var isState: Bool { (Self.appState.rawValue...Self.autoInitEnabled.rawValue).contains(rawValue) }
    var isWebPush: Bool { rawValue >= Self.browser.rawValue }

    private static let names = [
        "id", "platform", "app", "apns_environment", "token", "fid", "apns_token",
        "app_state", "online", "notifications", "low_power_mode", "presentation_options", "auto_init_enabled",
        "browser", "application_server_key", "push_origin", "push_token", "push_private_key", "push_auth",
    ]

    /// The field named `name`, nil for none: only names of its length are compared, where a set
    /// would hash every name (a restart reads a million devices' members).
    init?(name: String) {
        let length = name.utf8.count
        guard length < Self.byLength.count else { return nil }
        for i in Self.byLength[length] where Self.names[i] == name {
            self.init(rawValue: i)
            return
        }
        return nil
    }

    /// The fields' places by the length of their names.
    private static let byLength: [[Int]] = {
        var table = [[Int]](repeating: [], count: names.map(\.utf8.count).max()! + 1)
        for (i, name) in names.enumerated() { table[name.utf8.count].append(i) }
        return table
    }()
}

/// A registration's members, each read once and then found by its field, so `spec` reads its
/// some twenty fields by place, not by looking each up among the members (a restart reads a
/// million rows; docs/PERFORMANCE.md). The last of a repeated name counts, as in
/// `JSONObject`'s lookup, and a null is as absent.
struct DeviceMembers {
    private var values = [JSONValue?](repeating: nil, count: DeviceField.allCases.count)
    /// The first member that is no registration field.
    private(set) var firstUnknown: String?

    init(_ obj: JSONObject) {
        for (key, value) in obj.entries { set(DeviceField(name: key), key, value) }
    }

    /// Reads an object's members from `p`; a member that is no field goes to `other`, which
    /// must consume its value (or it is read, and counts as unknown).
    init(
        reading p: inout JSONParser, other: (String, inout JSONParser) throws(JSONParseError) -> Bool
    ) throws(JSONParseError) {
        try p.readMembers { (p, name) throws(JSONParseError) in
            let field = DeviceField(name: name)
            if field == nil, try other(name, &p) { return }
            set(field, name, try p.readValue())
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
}
