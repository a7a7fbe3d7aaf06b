/// A project's devices and the indexes that find one: by id, registration token, FID and
/// APNs device token, in registration order for listings; and the APNs tokens of
/// uninstalled or reinstalled apps with when they stopped being valid (APNs answers those
/// 410 Unregistered). Every change is recorded for the saved state. Loop thread only.
public final class DeviceRegistry {
    private var byID: [String: Device] = [:]
    /// Devices in registration order.
    public private(set) var inOrder: [Device] = []
    private var byToken: [String: Device] = [:]
    private var byFID: [String: Device] = [:]
    private var byAPNsToken: [APNsToken: Device] = [:]
    private var retiredAPNsTokens: [APNsToken: Timestamp] = [:]
    /// The number the next `dN` id is tried from.
    private var nextNumber = 1
    private let changes: StateChanges

    init(changes: StateChanges) {
        self.changes = changes
    }

    public var count: Int { byID.count }
    public subscript(id: String) -> Device? { byID[id] }
    public func withToken(_ token: String) -> Device? { byToken[token] }
    public func withFID(_ fid: String) -> Device? { byFID[fid] }
    func withAPNsToken(_ token: APNsToken) -> Device? { byAPNsToken[token] }
    func retirement(ofAPNsToken token: APNsToken) -> Timestamp? { retiredAPNsTokens[token] }

    /// The given id when it is free (a `dN` one moves the numbering past it), else nil; with
    /// none given, the next free `dN`.
    func claimID(_ given: String?) -> String? {
        if let given {
            guard byID[given] == nil else { return nil }
            if given.hasPrefix("d"), let n = Int(given.dropFirst()), n >= nextNumber { nextNumber = n + 1 }
            return given
        }
        while byID["d\(nextNumber)"] != nil { nextNumber += 1 }
        defer { nextNumber += 1 }
        return "d\(nextNumber)"
    }

    /// Makes room for `n` devices in all, as a fixture or a saved state with many says it
    /// brings: the indexes every device is in do not grow a step at a time.
    func reserveCapacity(_ n: Int) {
        byID.reserveCapacity(n)
        inOrder.reserveCapacity(n)
        byToken.reserveCapacity(n)
        byFID.reserveCapacity(n)
    }

    func insert(_ device: Device) {
        byID[device.id] = device
        inOrder.append(device)
        if let token = device.token { byToken[token] = device }
        if let apns = device.apnsToken.flatMap(APNsToken.init) { byAPNsToken[apns] = device }
        byFID[device.fid] = device
        changes.device(device)
    }

    /// Gives an iOS device a new APNs token (a reinstall); the old one is retired.
    func reassignAPNs(_ device: Device, token: String, at time: Timestamp) {
        if let old = device.apnsToken.flatMap(APNsToken.init) {
            byAPNsToken[old] = nil
            retiredAPNsTokens[old] = time
        }
        device.apnsToken = token
        if let key = APNsToken(token) { byAPNsToken[key] = device }
        changes.device(device)
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
        changes.device(device)
    }

    /// Applies a new state (and APNs environment) to a device; what the change sets off is
    /// `Delivery.change`'s.
    func update(_ device: Device, state: DeviceState, apnsEnvironment: APNsEnvironment?) {
        device.state = state
        device.apnsEnvironment = apnsEnvironment
        changes.device(device)
    }

    /// Removes a device; its APNs token is retired at `time`.
    func remove(_ device: Device, at time: Timestamp) {
        if let apns = device.apnsToken.flatMap(APNsToken.init) {
            byAPNsToken[apns] = nil
            retiredAPNsTokens[apns] = time
        }
        byID[device.id] = nil
        if let i = inOrder.firstIndex(where: { $0 === device }) { inOrder.remove(at: i) }
        if let token = device.token { byToken[token] = nil }
        byFID[device.fid] = nil
        changes.device(device)
    }
}
