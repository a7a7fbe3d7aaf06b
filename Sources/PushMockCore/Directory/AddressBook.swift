/// Every device address of every project, in one index: the device each names, and the
/// addresses of kinds that retire with when they stopped being valid. A lookup in one
/// project checks the device's project; a lookup across projects (which project owns a
/// token, which device an APNs token names) is the same lookup. Text addresses are kept in
/// one `ObjectTable` a kind, which holds each text's hash and asks the device whether it has
/// the address, and APNs tokens in one keyed by their bytes: with a million devices an entry
/// costs 16 bytes of table, not a copy of the address. An FCM token that begins with its
/// device's FID (`<fid>:APA91b…`, every token pushmock makes) is found under the FID and has
/// no entry of its own: one table fewer for a million devices.
/// Loop thread only.
final class AddressBook {
    private var texts = TextTables()
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
        case .text(let text):
            // A send names a device by its token: that check first, without the general one.
            address.kind == .registrationToken ? device(withToken: text) : texts[address.kind]?.find(text) { $0.has(address) }
        case .apns(let token): apnsTokens[token]
        }
    }

    /// The device with this FCM token: under the FID the token begins with, or (a token given
    /// that does not begin with its device's FID) under the token itself. The FID first:
    /// nearly every token is found there, and the tokens' own table is asked only when it is
    /// not. (No two devices share a token, so the order finds the same device.)
    private func device(withToken token: String) -> Device? {
        let underFID = texts[.installation].flatMap { fids in
            token.withBytes { bytes in Device.fid(inToken: bytes).flatMap { fid in fids.find(bytes: fid) { $0.token == token } } }
        }
        return underFID ?? ownEntry(token)
    }

    /// Whether a device has this FCM token or this FID. A token that begins with the FID is
    /// found under it, so one probe under the FID asks for either (a restart checks a million
    /// saved devices).
    func holds(token: String, orFID fid: String) -> Bool {
        let beginsWithFID = token.withBytes { t in Device.fid(inToken: t).map { fid.hasBytes($0) } ?? false }
        guard beginsWithFID else { return device(withToken: token) != nil || device(at: .installation(fid)) != nil }
        if ownEntry(token) != nil { return true }
        return texts[.installation]?.find(fid) { $0.token == token || $0.has(.installation(fid)) } != nil
    }

    /// The device with a token that has an entry of its own (one that does not begin with its
    /// device's FID); most tokens have none.
    private func ownEntry(_ token: String) -> Device? {
        guard let own = texts[.registrationToken], own.count > 0 else { return nil }
        return own.find(token) { $0.token == token }
    }

    /// When a retired address stopped being valid, and which device it named.
    func retirement(of address: DeviceAddress) -> Retirement? { retired[address] }

    /// Room for `n` devices' installations (and so the FCM tokens that begin with them).
    func reserveCapacity(_ n: Int) {
        texts.update(.installation) { $0.reserveCapacity($0.count + n) }
    }

    /// Adds every address a new device has. Its FID is hashed where its bytes lie (its token,
    /// or its own string): registering or restoring a million devices makes no String of it.
    func addAll(of device: Device) {
        device.withFID { fid in
            texts.update(.installation) { $0.insert(bytes: fid, device) { d in d.withFID { $0.sameBytes(as: fid) } } }
        }
        device.forEachAddress(withFID: false) { add($0, of: device) }
    }

    func add(_ address: DeviceAddress, of device: Device) {
        switch address.key {
        case .text(let text) where address.kind == .registrationToken:
            if !device.tokenHoldsFID { addOwnEntry(text, of: device) }
        case .text(let text):
            texts.update(address.kind) { $0.insert(text, device) { $0.has(address) } }
            // A new FID that the unchanged token does not begin with: the token needs its own entry.
            if address.kind == .installation, let token = device.token, !device.tokenHoldsFID { addOwnEntry(token, of: device) }
        case .apns(let token): apnsTokens[token] = device
        }
        if address.kind.retires, !retired.isEmpty { retired[address] = nil }
    }

    /// The address no longer names its device (which may already have another); one of a
    /// kind that retires is remembered.
    func remove(_ address: DeviceAddress, of device: Device, at time: Timestamp) {
        guard take(address, of: device) else { return }
        if address.kind.retires { retired[address] = Retirement(time: time, device: device) }
    }

    private func addOwnEntry(_ token: String, of device: Device) {
        texts.update(.registrationToken) { $0.insert(token, device) { $0.token == token } }
    }

    /// Takes the address out if it names the device; whether it did.
    private func take(_ address: DeviceAddress, of device: Device) -> Bool {
        switch address.key {
        case .text(let text) where address.kind == .registrationToken:
            // A token found under the FID has no entry to take: it stops naming the device as
            // the device's token changes. (Tokens do not retire, so what is returned is unused.)
            _ = texts.update(.registrationToken) { $0.remove(text, device) }
            return true
        case .text(let text): return texts.update(address.kind) { $0.remove(text, device) }
        case .apns(let token):
            guard apnsTokens[token] === device else { return false }
            apnsTokens[token] = nil
            return true
        }
    }

    /// A project started over: its devices' addresses and its retired ones are forgotten.
    func forget(_ project: Project) {
        for d in project.devices.inOrder {
            d.forEachAddress { a in _ = take(a, of: d) }
        }
        retired = retired.filter { $0.value.device.projectID != project.id }
    }
}

/// Each kind's table of text addresses. There are a few kinds (FCM tokens and FIDs, then those
/// modules declare), so a kind is found by a scan: a dictionary would hash the kind on every
/// look-up, and a send looks up two.
private struct TextTables {
    private var kinds: [DeviceAddress.Kind] = [.registrationToken, .installation]
    private var tables: [ObjectTable<Device>] = [ObjectTable(), ObjectTable()]

    subscript(kind: DeviceAddress.Kind) -> ObjectTable<Device>? {
        kinds.firstIndex(of: kind).map { tables[$0] }
    }

    /// Changes the kind's table in place; a kind not seen before starts with an empty one.
    mutating func update<R>(_ kind: DeviceAddress.Kind, _ change: (inout ObjectTable<Device>) -> R) -> R {
        if let i = kinds.firstIndex(of: kind) { return change(&tables[i]) }
        kinds.append(kind)
        tables.append(ObjectTable())
        return change(&tables[tables.count - 1])
    }
}
