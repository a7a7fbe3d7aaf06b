/// A Firebase project as pushmock keeps it: identity, legacy server keys, apps, devices,
/// topic subscriptions, device groups and the sends it accepted. Loop thread only.
public final class Project {
    public let id: String
    public let number: Int64
    public let serverKeys: [String]
    public internal(set) var apps: [String: App] = [:]
    public internal(set) var devices: [String: Device] = [:]
    /// Devices in registration order, for listings.
    public internal(set) var deviceOrder: [Device] = []
    var byToken: [String: Device] = [:]
    var byFID: [String: Device] = [:]
    /// iOS devices by APNs device token, and tokens of uninstalled or reinstalled apps with
    /// when they stopped being valid (APNs answers those 410 Unregistered).
    var byAPNsToken: [APNsToken: Device] = [:]
    var retiredAPNsTokens: [APNsToken: Timestamp] = [:]
    /// The Apple team the project's apps, APNs keys and certificates belong to.
    public let teamID: String
    /// Topic → subscribed devices by id.
    public internal(set) var topics: [String: [String: Device]] = [:]
    public internal(set) var groupsByKey: [String: DeviceGroup] = [:]
    var groupsByName: [String: DeviceGroup] = [:]
    let messages: MessageStore
    var nextDeviceNumber = 1
    /// The current quota minute and how much of it is used.
    var quotaWindowStart: Timestamp = 0
    var quotaUsed = 0
    /// Failure injection for the project's requests (`--chaos`, `PUT .../chaos`).
    public internal(set) var chaos = ChaosSettings()

    init(id: String, serverKeys: [String], maxMessages: Int) {
        self.id = id
        self.number = Identifiers.projectNumber(for: id)
        self.teamID = Identifiers.teamID(for: id)
        self.serverKeys = serverKeys
        self.messages = MessageStore(capacity: maxMessages)
    }

    /// The server key an implicitly created project answers to.
    public static func defaultServerKey(for projectID: String) -> String {
        Configuration.defaultServerKey + "-" + projectID
    }

    public func app(_ platform: Platform, _ name: String) -> App? { apps[App.key(platform, name)] }

    @discardableResult
    func addApp(_ platform: Platform, _ name: String, credentials: Set<APNsEnvironment>) -> App {
        let app = App(platform: platform, name: name, apnsCredentials: platform == .ios ? credentials : [])
        apps[App.key(platform, name)] = app
        return app
    }

    public func device(token: String) -> Device? { byToken[token] }
    public func device(fid: String) -> Device? { byFID[fid] }

    func insert(_ device: Device) {
        devices[device.id] = device
        deviceOrder.append(device)
        if let token = device.token { byToken[token] = device }
        if let apns = device.apnsToken.flatMap(APNsToken.init) { byAPNsToken[apns] = device }
        byFID[device.fid] = device
    }

    /// Gives an iOS device a new APNs token (a reinstall); the old one is retired.
    func reassignAPNs(_ device: Device, token: String, at time: Timestamp) {
        if let old = device.apnsToken.flatMap(APNsToken.init) {
            byAPNsToken[old] = nil
            retiredAPNsTokens[old] = time
        }
        device.apnsToken = token
        if let key = APNsToken(token) { byAPNsToken[key] = device }
    }

    /// Gives the device a new token (nil: none) and FID, keeping the indexes in step.
    func reassign(_ device: Device, token: String?, fid: String? = nil) {
        if let old = device.token { byToken[old] = nil }
        if let fid {
            byFID[device.fid] = nil
            device.fid = fid
            byFID[fid] = device
        }
        device.token = token
        if let token { byToken[token] = device }
    }

    /// Removes an uninstalled app's device; its APNs token is retired at `time`.
    func remove(_ device: Device, at time: Timestamp) {
        if let apns = device.apnsToken.flatMap(APNsToken.init) {
            byAPNsToken[apns] = nil
            retiredAPNsTokens[apns] = time
        }
        for topic in device.topics.keys { unsubscribe(device, from: topic) }
        devices[device.id] = nil
        if let i = deviceOrder.firstIndex(where: { $0 === device }) { deviceOrder.remove(at: i) }
        if let token = device.token { byToken[token] = nil }
        byFID[device.fid] = nil
    }

    /// Returns false when the device already has the maximum number of topics.
    func subscribe(_ device: Device, to topic: String, at time: Timestamp) -> Bool {
        if device.topics[topic] != nil { return true }
        guard device.topics.count < Topic.maxPerInstance else { return false }
        device.topics[topic] = time
        topics[topic, default: [:]][device.id] = device
        return true
    }

    func unsubscribe(_ device: Device, from topic: String) {
        guard device.topics.removeValue(forKey: topic) != nil else { return }
        topics[topic]?[device.id] = nil
        if topics[topic]?.isEmpty == true { topics[topic] = nil }
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
