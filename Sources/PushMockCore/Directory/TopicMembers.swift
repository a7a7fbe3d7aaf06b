/// One topic's subscribers in a dense list, in the order they subscribed; a removal moves the
/// last into the gap. Each device keeps its own place in the list (`TopicMemberships`), so
/// there is no table beside it. A send to a topic walks the list: devices registered together
/// lie together in memory, so a million are read in order, not in a hash table's scattered
/// order (docs/PERFORMANCE.md, "Devices that cost little"). Changed only by `TopicIndex`.
/// Loop thread only.
public struct TopicMembers: Sequence {
    public private(set) var devices: [Device] = []

    public var count: Int { devices.count }
    public var isEmpty: Bool { devices.isEmpty }

    mutating func reserveCapacity(_ n: Int) { devices.reserveCapacity(n) }

    /// Adds the device at the end; its place.
    mutating func append(_ device: Device) -> Int {
        devices.append(device)
        return devices.count - 1
    }

    /// Takes out the device at `place`; the device moved into the gap, if any.
    mutating func remove(at place: Int) -> Device? {
        let last = devices.removeLast()
        guard place < devices.count else { return nil }
        devices[place] = last
        return last
    }

    public func makeIterator() -> IndexingIterator<[Device]> { devices.makeIterator() }
}
