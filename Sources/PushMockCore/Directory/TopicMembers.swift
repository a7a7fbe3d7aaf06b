/// One topic's subscribers: the devices in a dense list, in the order they subscribed (a
/// removal moves the last into the gap), and each one's place by identity. A send to a topic
/// walks the list: devices registered together lie together in memory, so a million are read
/// in order, not in a hash table's scattered order (docs/PERFORMANCE.md, "Devices that cost
/// little"). Loop thread only.
public struct TopicMembers: Sequence {
    public private(set) var devices: [Device] = []
    private var place: [ObjectIdentifier: Int] = [:]

    public var count: Int { devices.count }
    public var isEmpty: Bool { devices.isEmpty }

    func contains(_ device: Device) -> Bool { place[ObjectIdentifier(device)] != nil }

    mutating func reserveCapacity(_ n: Int) {
        devices.reserveCapacity(n)
        place.reserveCapacity(n)
    }

    mutating func insert(_ device: Device) {
        guard place[ObjectIdentifier(device)] == nil else { return }
        place[ObjectIdentifier(device)] = devices.count
        devices.append(device)
    }

    mutating func remove(_ device: Device) {
        guard let i = place.removeValue(forKey: ObjectIdentifier(device)) else { return }
        let last = devices.removeLast()
        guard i < devices.count else { return }
        devices[i] = last
        place[ObjectIdentifier(last)] = i
    }

    public func makeIterator() -> IndexingIterator<[Device]> { devices.makeIterator() }
}
