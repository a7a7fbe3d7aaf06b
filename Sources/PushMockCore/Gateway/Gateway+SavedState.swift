/// The state `--data-dir` keeps so a restart resumes with the same projects, keys, apps, APNs
/// keys, service accounts, bridges, devices (tokens, states) and subscriptions, as rows: one
/// per project and one per device, each a piece of a `--seed` fixture. Only the rows that
/// changed are written (`StateChanges`); at start the projects' rows are put back together
/// into one fixture and restored through `seed`, and each device from its row
/// (docs/durable-store.md, "A restart resumes").
public struct StateRows: Sendable {
    public struct ProjectRow: Sendable {
        public let id: String
        public let json: [UInt8]

        public init(id: String, json: [UInt8]) {
            self.id = id
            self.json = json
        }
    }

    public struct DeviceRow: Sendable {
        public let projectID: String
        public let deviceID: String
        /// Nil when the device is gone.
        public let json: [UInt8]?
    }

    /// Projects started over: every saved device of theirs goes before the rows below.
    public var replacedProjects: [String] = []
    public var projects: [ProjectRow] = []
    public var devices: [DeviceRow] = []

    public var isEmpty: Bool { replacedProjects.isEmpty && projects.isEmpty && devices.isEmpty }

    /// The fixture the saved project rows make (their devices are restored from their own rows).
    public static func fixture(projects: [ProjectRow]) -> [UInt8] {
        var out = Array("{\"projects\":[".utf8)
        for (i, p) in projects.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += p.json
        }
        out += Array("]}".utf8)
        return out
    }
}

extension Gateway {
    /// The rows of what changed since the last call: every changed project and up to `limit`
    /// changed devices (the rest on the next call).
    public func changedState(limit: Int) -> StateRows {
        let taken = changes.take(limit: limit)
        var rows = StateRows(replacedProjects: taken.replaced)
        for id in taken.projects {
            if let p = directory[id] { rows.projects.append(.init(id: id, json: projectRow(p))) }
        }
        for key in taken.devices {
            let device = directory[key.projectID]?.devices[key.deviceID]
            // A real client is what it says on its next connection, not saved state.
            let row = device.flatMap { $0.realClient == nil ? Self.deviceRow($0) : nil }
            rows.devices.append(.init(projectID: key.projectID, deviceID: key.deviceID, json: row))
        }
        return rows
    }

    /// After resuming from the saved state: nothing changed since, but every project's row
    /// is written again (a project the configuration created afresh has none yet).
    public func resumedSavedState() {
        changes.markSaved()
        for p in directory.all { changes.project(p.id) }
    }

    /// Every row, as a first save after a migration needs them. Like `changedState`, what it
    /// hands over counts as saved: the changes recorded so far are forgotten.
    public func allState() -> StateRows {
        var rows = StateRows()
        for p in directory.all.sorted(by: { $0.id < $1.id }) {
            rows.replacedProjects.append(p.id)
            rows.projects.append(.init(id: p.id, json: projectRow(p)))
            for d in p.devices.inOrder where d.realClient == nil {
                rows.devices.append(.init(projectID: p.id, deviceID: d.id, json: Self.deviceRow(d)))
            }
        }
        changes.markSaved()
        return rows
    }

    /// A project as a fixture's project without its devices.
    func projectRow(_ p: Project) -> [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.member("id", p.id)
        ControlJSON.writeKeysAndApps(p, projectNumber: nil, to: &w)
        w.key("apns_keys")
        w.beginArray()
        for key in credentials.apnsKeys.values.filter({ $0.projectID == p.id }).sorted(by: { $0.keyID < $1.keyID }) {
            w.raw(ControlJSON.apnsKeyJSON(key, privatePEM: nil))
        }
        w.endArray()
        w.array("service_accounts") { w in
            // The project's own account first, with its private key: a restart hands out the
            // same one.
            let own = credentials.projectAccounts[p.id]
            let accounts = credentials.serviceAccounts.values.filter { $0.projectID == p.id }
                .sorted { ($0.email == own ? "" : $0.email) < ($1.email == own ? "" : $1.email) }
            for a in accounts {
                w.object { w in
                    let fields: [(JSONKey, String)] = [
                        ("client_email", a.email), ("private_key_id", a.keyID), ("client_id", a.clientID),
                        ("public_key", a.publicKeyPEM),
                    ]
                    for (name, value) in fields { w.member(name, value) }
                    if let key = a.privateKeyPEM { w.member("private_key", key) }
                }
            }
        }
        if let key = p.webPushKey {
            w.member("web_push_key", .object(JSONObject([("private_key", .string(Base64URL.encode(key.privateKey)))])))
        }
        w.array("bridges") { w in for b in bridges.forSavedState(p.id) { w.object { b.write(to: &$0) } } }
        if let clients = fcmClients?.savedState(of: p) { w.member("clients", clients) }
        w.endObject()
        return w.bytes
    }

    /// A device as a fixture's device (with its id, tokens, state and topics).
    static func deviceRow(_ d: Device) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        DeviceFields.write(d, asFixture: true, to: &w)
        return w.bytes
    }
}
