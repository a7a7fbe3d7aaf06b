/// Which parts of the state a restart keeps changed since the server last saved them, so
/// `--data-dir` writes only those (docs/durable-store.md, "A restart resumes"): a project's
/// row (server keys, apps, APNs keys, service accounts, bridges) or one device's row (its
/// tokens, state and topics). The component that makes a change records it here, oldest
/// first. Loop thread only.
public final class StateChanges {
    public struct DeviceKey: Hashable, Sendable {
        public let projectID: String
        public let deviceID: String
    }

    /// What `take` hands over: projects started over (all their saved devices go first),
    /// projects whose row changed, and devices whose row changed or that are gone.
    public struct Taken {
        public var replaced: [String] = []
        public var projects: [String] = []
        public var devices: ArraySlice<DeviceKey> = []
    }

    private var replaced: [String] = []
    private var projects: [String] = []
    private var projectSet: Set<String> = []
    /// Devices in the order first changed; those before `nextDevice` were taken.
    private var devices: [DeviceKey] = []
    private var nextDevice = 0
    private var deviceSet: Set<DeviceKey> = []

    /// Off while the saved state is put back at start: what is resumed is what was saved.
    var recording = true

    public init() {}

    public var isEmpty: Bool { replaced.isEmpty && projects.isEmpty && nextDevice == devices.count }

    func project(_ id: String) {
        guard recording else { return }
        if projectSet.insert(id).inserted { projects.append(id) }
    }

    /// A project declared afresh (created, reset, or seeded): none of its saved devices stays.
    func replaced(_ id: String) {
        guard recording else { return }
        replaced.append(id)
        project(id)
    }

    /// Room for `n` more changed devices (a batch registration), made at once.
    func reserveDevices(_ n: Int) {
        guard recording else { return }
        deviceSet.reserveCapacity(deviceSet.count + n)
        devices.reserveCapacity(devices.count + n)
    }

    func device(_ d: Device) {
        guard recording else { return }
        let key = DeviceKey(projectID: d.projectID, deviceID: d.id)
        if deviceSet.insert(key).inserted { devices.append(key) }
    }

    /// Takes every project change and up to `limit` device changes, oldest first.
    func take(limit: Int) -> Taken {
        // (`limit` may be `Int.max`: everything, at shutdown; added to a count it would overflow.)
        let end = nextDevice + min(limit, devices.count - nextDevice)
        let taken = Taken(replaced: replaced, projects: projects, devices: devices[nextDevice..<end])
        for key in taken.devices { deviceSet.remove(key) }
        nextDevice = end
        if nextDevice == devices.count {
            devices.removeAll()
            nextDevice = 0
        }
        replaced.removeAll()
        projects.removeAll()
        projectSet.removeAll()
        return taken
    }

    /// Forgets every change: the state as it stands is what was saved (it was just resumed).
    func markSaved() {
        _ = take(limit: .max)
    }
}
