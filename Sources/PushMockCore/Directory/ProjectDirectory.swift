/// Every project pushmock serves, and the lookups that find one: by id (created on first
/// use, as the Firebase emulators do), by a Google API path's id or number, by a legacy
/// server key, and the owner of a token. Loop thread only.
final class ProjectDirectory {
    private let configuration: Configuration
    private let changes: StateChanges
    private var byID: [String: Project] = [:]
    private var byServerKey: [String: Project] = [:]
    /// Every project's device addresses.
    private let addresses = AddressBook()
    /// What the kept sends of all projects hold (`--max-total-message-mb`).
    private let budget: MessageBudget
    /// The project a Google API path last named, and the one the last `Authorization` value
    /// with a server key named: clients repeat both on every request.
    private var lastAPIName = Remembered<String, Project>()
    private var lastServerKeyHeader = Remembered<String, Project>()
    /// Moves whenever a project is added or replaced, so what was looked up or verified
    /// against the old one is looked at again.
    private(set) var version = 0

    init(configuration: Configuration, changes: StateChanges) {
        self.configuration = configuration
        self.changes = changes
        budget = MessageBudget(limit: configuration.maxTotalMessageBytes)
        add(configuration.project, serverKeys: configuration.serverKeys)
    }

    var all: Dictionary<String, Project>.Values { byID.values }
    var count: Int { byID.count }

    /// The project `--project` names, which always exists.
    var defaultProject: Project { byID[configuration.project]! }

    /// Creates (or replaces, keeping nothing of the old one) a project with these keys.
    @discardableResult
    func add(_ id: String, serverKeys: [String]) -> Project {
        if let old = byID[id] {
            for key in old.serverKeys { byServerKey[key] = nil }
            addresses.forget(old)
        }
        let project = Project(
            id: id, serverKeys: serverKeys, maxMessages: configuration.maxMessages,
            maxMessageBytes: configuration.maxMessageBytes, budget: budget, addresses: addresses,
            changes: changes)
        project.chaos = configuration.chaos
        byID[id] = project
        for key in serverKeys { byServerKey[key] = project }
        lastAPIName.clear()
        lastServerKeyHeader.clear()
        version &+= 1
        changes.replaced(id)
        return project
    }

    /// Takes a project away entirely (its devices' addresses with it); the next use of its id
    /// creates it afresh.
    func remove(_ id: String) {
        guard let old = byID[id], id != configuration.project else { return }
        for key in old.serverKeys { byServerKey[key] = nil }
        addresses.forget(old)
        byID[id] = nil
        lastAPIName.clear()
        lastServerKeyHeader.clear()
        version &+= 1
        changes.replaced(id)
    }

    /// The project with this id, if it exists.
    subscript(id: String) -> Project? { byID[id] }

    /// The named project; any valid project id is served, created on first use while there
    /// are fewer than `--max-projects`.
    func project(_ id: String) -> Project? {
        if let p = byID[id] { return p }
        guard Configuration.isProjectID(id), !isFull else { return nil }
        return add(id, serverKeys: [Project.defaultServerKey(for: id)])
    }

    /// How many more devices the control API may register (`--max-devices` in all projects).
    var roomForDevices: Int { configuration.maxDevices - byID.values.reduce(0) { $0 + $1.devices.count } }

    /// No project can be created on first use: `--max-projects` exist.
    var isFull: Bool { byID.count >= configuration.maxProjects }

    /// A project named in a Google API path, by id or by number; nil when there is none.
    func apiProject(_ idOrNumber: String) -> Project? {
        lastAPIName.value(for: idOrNumber) {
            byID[idOrNumber] ?? byID.values.first { String($0.number) == idOrNumber }
        }
    }

    /// The project whose server key an `Authorization: key=...` value carries.
    func project(serverKeyAuthorization header: String) -> Project? {
        lastServerKeyHeader.value(for: header) { Authorization.serverKey(header).flatMap { byServerKey[$0] } }
    }

    /// The device an address names, in any project.
    func device(at address: DeviceAddress) -> Device? { addresses.device(at: address) }

    /// When an address of a kind that retires stopped being valid (an APNs token of an app
    /// that was uninstalled or reinstalled).
    func retirement(of address: DeviceAddress) -> AddressBook.Retirement? { addresses.retirement(of: address) }

    /// Whether a device of any project has this registration token or this FID.
    func holds(token: String, orFID fid: String) -> Bool { addresses.holds(token: token, orFID: fid) }

    /// The project a registration token belongs to, if any.
    func owner(ofToken token: String) -> Project? {
        addresses.device(at: .registrationToken(token)).flatMap { byID[$0.projectID] }
    }

    /// The project an Apple team id belongs to.
    func project(teamID: String) -> Project? { byID.values.first { $0.teamID == teamID } }
}
