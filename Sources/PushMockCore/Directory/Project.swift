/// A Firebase project as pushmock keeps it: identity, legacy server keys, apps, its devices
/// and topics, device groups, the sends it accepted, its quota and chaos settings. The unit
/// of reset: `DELETE .../projects/{p}` replaces it whole. Loop thread only.
public final class Project {
    public let id: String
    public let number: Int64
    public let serverKeys: [String]
    /// The Apple team the project's apps, APNs keys and certificates belong to.
    public let teamID: String
    public private(set) var apps: [String: App] = [:]
    public let devices: DeviceRegistry
    public let topics: TopicIndex
    public private(set) var groupsByKey: [String: DeviceGroup] = [:]
    private(set) var groupsByName: [String: DeviceGroup] = [:]
    let messages: MessageStore
    /// The current quota minute and how much of it is used.
    var quotaWindowStart: Timestamp = 0
    var quotaUsed = 0
    /// Failure injection for the project's requests (`--chaos`, `PUT .../chaos`).
    public internal(set) var chaos = ChaosSettings()
    /// Its Web Push certificate (VAPID key pair), made on first use (`Credentials.webPushKey`).
    public internal(set) var webPushKey: WebPushKeyPair?
    private let changes: StateChanges

    init(
        id: String, serverKeys: [String], maxMessages: Int, maxMessageBytes: Int = .max, budget: MessageBudget? = nil,
        addresses: AddressBook, changes: StateChanges
    ) {
        self.id = id
        self.number = Identifiers.projectNumber(for: id)
        self.teamID = Identifiers.teamID(for: id)
        self.serverKeys = serverKeys
        self.messages = MessageStore(capacity: maxMessages, maxBytes: maxMessageBytes, budget: budget)
        self.devices = DeviceRegistry(projectID: id, book: addresses, changes: changes)
        self.topics = TopicIndex(changes: changes)
        self.changes = changes
    }

    /// The server key an implicitly created project answers to.
    public static func defaultServerKey(for projectID: String) -> String {
        Configuration.defaultServerKey + "-" + projectID
    }

    /// The app found last: sends, and a restart putting back a million devices, ask for the
    /// same app again and again, which then builds no `platform/name` key (docs/PERFORMANCE.md).
    private var lastApp: App?

    public func app(_ platform: Platform, _ name: String) -> App? {
        if let last = lastApp, last.platform == platform, last.name == name { return last }
        let found = apps[App.key(platform, name)]
        if found != nil { lastApp = found }
        return found
    }

    @discardableResult
    func addApp(_ platform: Platform, _ name: String, credentials: Set<APNsEnvironment>) -> App {
        let app = App(platform: platform, name: name, apnsCredentials: platform == .ios ? credentials : [])
        apps[App.key(platform, name)] = app
        lastApp = app
        changes.project(id)
        return app
    }

    /// The app was uninstalled: the device leaves its topics and the registry; its APNs
    /// token is retired at `time`.
    func remove(_ device: Device, at time: Timestamp) {
        topics.unsubscribeAll(device)
        devices.remove(device, at: time)
    }

    func addGroup(_ group: DeviceGroup) {
        groupsByKey[group.key] = group
        groupsByName[group.name] = group
    }

    func removeGroup(_ group: DeviceGroup) {
        groupsByKey[group.key] = nil
        groupsByName[group.name] = nil
    }
}
