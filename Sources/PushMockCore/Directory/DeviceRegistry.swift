/// A project's devices: by id, in registration order for listings, and by every address
/// (`DeviceAddress`) through the directory's `AddressBook`, which it keeps in step with each
/// change of a device's addresses. Every change is recorded for the saved state. Loop thread
/// only.
public final class DeviceRegistry {
    /// By id (`ObjectTable`: 16 bytes a device).
    private var byID = ObjectTable<Device>()
    /// Devices in registration order.
    public private(set) var inOrder: [Device] = []
    private let projectID: String
    private let book: AddressBook
    /// The number the next `dN` id is tried from.
    private var nextNumber = 1
    private let changes: StateChanges

    init(projectID: String, book: AddressBook, changes: StateChanges) {
        self.projectID = projectID
        self.book = book
        self.changes = changes
    }

    public var count: Int { byID.count }
    /// A `dN` id is tried first at place N − 1 of the registration order, where it stays while
    /// the project's devices were numbered in turn and none was removed: a restart puts back
    /// two million events, each naming its device, and a look-up is a cache miss in a table of
    /// a million. Any other id, or one not there, is looked up.
    public subscript(id: String) -> Device? {
        if let n = Self.number(id), n >= 1, n <= inOrder.count, inOrder[n - 1].id == id { return inOrder[n - 1] }
        return byID.find(id) { $0.id == id }
    }

    /// The project's device an address names.
    func device(at address: DeviceAddress) -> Device? {
        guard let d = book.device(at: address), d.projectID == projectID else { return nil }
        return d
    }

    public func withToken(_ token: String) -> Device? { device(at: .registrationToken(token)) }
    public func withFID(_ fid: String) -> Device? { device(at: .installation(fid)) }

    /// The given id when it is free (a `dN` one moves the numbering past it), else nil; with
    /// none given, the next `dN`, free since every `dN` claimed is below the numbering.
    func claimID(_ given: String?) -> String? {
        if let given {
            // A `dN` at or past the numbering is free without a look-up (a restart claims a
            // million saved ids, in order); any other is looked up. (`d` and Int.max: no `dN`
            // can be claimed after it, and N + 1 would overflow.)
            guard let n = Self.number(given), n >= nextNumber, n < .max else { return self[given] == nil ? given : nil }
            nextNumber = n + 1
            return given
        }
        // No id `dN` with N ≥ nextNumber exists (a given one moved the numbering past it), so
        // the next is free without a look-up (a miss in a table of a million).
        defer { nextNumber += 1 }
        let id = Self.numbered(nextNumber)
        assert(self[id] == nil)
        return id
    }

    /// N of an id `dN` whose N is digits that fit an `Int`, read from its bytes (a restart
    /// claims a million saved ids); nil for any other id.
    private static func number(_ id: String) -> Int? {
        id.withBytes { b in
            guard b.count > 1, b[0] == UInt8(ascii: "d") else { return nil }
            var n = 0
            for c in b[1...] {
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                let (times10, o1) = n.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int(c - UInt8(ascii: "0")))
                guard !o1, !o2 else { return nil }
                n = sum
            }
            return n
        }
    }

    /// `d` and the number's digits, written into a buffer and made a string once (a batch
    /// registration numbers a million).
    private static func numbered(_ n: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 + DecimalDigits.maxCount) { id in
            let start = DecimalDigits.write(UInt64(n), endingAt: id.count, in: id) - 1
            id[start] = UInt8(ascii: "d")
            return String(decoding: UnsafeBufferPointer(rebasing: id[start...]), as: UTF8.self)
        }
    }

    /// Makes room for `n` devices in all, as a fixture or a saved state with many says it
    /// brings: the indexes every device is in do not grow a step at a time.
    func reserveCapacity(_ n: Int) {
        byID.reserveCapacity(n)
        inOrder.reserveCapacity(n)
        book.reserveCapacity(n)
        changes.reserveDevices(n - count)
    }

    func insert(_ device: Device) {
        byID.insert(device.id, device) { $0.id == device.id }
        inOrder.append(device)
        book.addAll(of: device)
        changes.device(device)
    }

    /// Gives the device a new registration token (nil: none) and, when given, a new
    /// installation (FID); the old ones no longer name it.
    func reassign(_ device: Device, token: String?, fid: String? = nil) {
        readdress(device, at: 0) { $0.readdress(token: token, fid: fid) }
    }

    /// Gives an iOS device a new APNs token (a reinstall); the old one is retired at `time`.
    func reassignAPNs(_ device: Device, token: String, at time: Timestamp) {
        readdress(device, at: time) { $0.readdress(apnsToken: token) }
    }

    /// Adds an address of a module's own kind to the device (a Web Push endpoint). Directly,
    /// not by comparing every address before and after: a real browser may hold a thousand.
    func add(_ address: DeviceAddress, to device: Device) {
        device.addAddress(address)
        book.add(address, of: device)
        changes.device(device)
    }

    /// Takes an address of a module's own kind from the device, retired at `time` if its kind
    /// retires.
    func remove(_ address: DeviceAddress, from device: Device, at time: Timestamp) {
        device.removeAddress(address)
        book.remove(address, of: device, at: time)
        changes.device(device)
    }

    /// Gives a Web device a new push subscription; the old one's endpoint is retired.
    func subscribe(_ device: Device, _ subscription: PushSubscription, at time: Timestamp) {
        readdress(device, at: time) { $0.resubscribe(subscription) }
    }

    /// Ends a Web device's push subscription (unsubscribed, permission withdrawn, expired):
    /// its endpoint is retired at `time` (410 Gone).
    func unsubscribe(_ device: Device, at time: Timestamp) {
        guard let s = device.pushSubscription else { return }
        remove(s.address, from: device, at: time)
    }

    /// Applies a change of the device's addresses and keeps the book in step: the addresses
    /// it no longer has are removed (retired at `time`, by kind), the new ones added.
    private func readdress(_ device: Device, at time: Timestamp, _ change: (Device) -> Void) {
        let before = device.addresses
        change(device)
        let after = device.addresses
        for a in before where !after.contains(a) { book.remove(a, of: device, at: time) }
        for a in after where !before.contains(a) { book.add(a, of: device) }
        changes.device(device)
    }

    /// Applies a new state (and APNs environment) to a device; what the change sets off is
    /// `Delivery.change`'s.
    func update(_ device: Device, state: DeviceState, apnsEnvironment: APNsEnvironment?) {
        device.apply(state, apnsEnvironment: apnsEnvironment)
        changes.device(device)
    }

    /// Removes a device; its addresses of kinds that retire are retired at `time`.
    func remove(_ device: Device, at time: Timestamp) {
        device.forEachAddress { book.remove($0, of: device, at: time) }
        byID.remove(device.id, device)
        if let i = inOrder.firstIndex(where: { $0 === device }) { inOrder.remove(at: i) }
        changes.device(device)
    }
}
