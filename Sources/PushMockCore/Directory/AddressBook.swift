/// Every device address of every project, in one index: the device each names, and the
/// addresses of kinds that retire with when they stopped being valid. A lookup in one
/// project checks the device's project; a lookup across projects (which project owns a
/// token, which device an APNs token names) is the same lookup. Text addresses are kept in
/// one table a kind, keyed by their text alone, and APNs tokens in one keyed by their bytes:
/// with a million devices an entry costs what the text costs, not a whole `DeviceAddress`.
/// Loop thread only.
final class AddressBook {
    private var texts: [DeviceAddress.Kind: [String: Device]] = [:]
    private var apnsTokens: [APNsToken: Device] = [:]
    /// Retired addresses: when each stopped being valid, and the device it named (deleted or
    /// not), so a push to it is logged for that device.
    private var retired: [DeviceAddress: Retirement] = [:]

    struct Retirement {
        let time: Timestamp
        let device: Device
    }

    func device(at address: DeviceAddress) -> Device? {
        switch address.key {
        case .text(let text): texts[address.kind]?[text]
        case .apns(let token): apnsTokens[token]
        }
    }

    /// When a retired address stopped being valid, and which device it named.
    func retirement(of address: DeviceAddress) -> Retirement? { retired[address] }

    /// Room for `n` devices' FCM tokens and installations.
    func reserveCapacity(_ n: Int) {
        for kind in [DeviceAddress.Kind.registrationToken, .installation] { texts[kind, default: [:]].reserveCapacity(n) }
    }

    func add(_ address: DeviceAddress, of device: Device) {
        set(address, device)
        if address.kind.retires, !retired.isEmpty { retired[address] = nil }
    }

    /// The address no longer names its device; one of a kind that retires is remembered.
    func remove(_ address: DeviceAddress, of device: Device, at time: Timestamp) {
        guard self.device(at: address) === device else { return }
        set(address, nil)
        if address.kind.retires { retired[address] = Retirement(time: time, device: device) }
    }

    private func set(_ address: DeviceAddress, _ device: Device?) {
        switch address.key {
        case .text(let text): texts[address.kind, default: [:]][text] = device
        case .apns(let token): apnsTokens[token] = device
        }
    }

    /// A project started over: its devices' addresses and its retired ones are forgotten.
    func forget(_ project: Project) {
        for d in project.devices.inOrder {
            d.forEachAddress { a in if device(at: a) === d { set(a, nil) } }
        }
        retired = retired.filter { $0.value.device.projectID != project.id }
    }
}
