/// Every device address of every project, in one index: the device each names, and the
/// addresses of kinds that retire with when they stopped being valid. A lookup in one
/// project checks the device's project; a lookup across projects (which project owns a
/// token, which device an APNs token names) is the same lookup. Loop thread only.
final class AddressBook {
    private var devices: [DeviceAddress: Device] = [:]
    /// Retired addresses: when each stopped being valid, and whose project it was.
    private var retired: [DeviceAddress: (time: Timestamp, projectID: String)] = [:]

    func device(at address: DeviceAddress) -> Device? { devices[address] }

    /// When a retired address stopped being valid.
    func retirement(of address: DeviceAddress) -> Timestamp? { retired[address]?.time }

    func reserveCapacity(_ n: Int) { devices.reserveCapacity(n) }

    func add(_ address: DeviceAddress, of device: Device) {
        devices[address] = device
        retired[address] = nil
    }

    /// The address no longer names its device; one of a kind that retires is remembered.
    func remove(_ address: DeviceAddress, of device: Device, at time: Timestamp) {
        guard devices[address] === device else { return }
        devices[address] = nil
        if address.kind.retires { retired[address] = (time, device.projectID) }
    }

    /// A project started over: its devices' addresses and its retired ones are forgotten.
    func forget(_ project: Project) {
        for d in project.devices.inOrder {
            d.forEachAddress { a in if devices[a] === d { devices[a] = nil } }
        }
        retired = retired.filter { $0.value.projectID != project.id }
    }
}
