/// A project's topics: topic → its subscribed devices (`TopicMembers`), kept in step with
/// each device's own list. Every change is recorded for the saved state. Loop thread only.
public final class TopicIndex {
    private var subscribers: [String: TopicMembers] = [:]
    private let changes: StateChanges

    init(changes: StateChanges) {
        self.changes = changes
    }

    public var count: Int { subscribers.count }
    public var names: Dictionary<String, TopicMembers>.Keys { subscribers.keys }
    /// Device-topic pairs.
    public var subscriptionCount: Int { subscribers.values.reduce(0) { $0 + $1.count } }

    /// The topic's devices, as the index holds them (not copied: a topic may have a million).
    public subscript(topic: String) -> TopicMembers? { subscribers[topic] }

    /// Room for `n` more subscribers of `topic`, made at once (a batch of devices), so the
    /// table is not rebuilt as it grows a device at a time.
    func reserve(_ n: Int, for topic: String) {
        let held = subscribers[topic]?.count ?? 0
        subscribers[topic, default: TopicMembers()].reserveCapacity(held + n)
    }

    /// Returns false when the device already has the maximum number of topics.
    func subscribe(_ device: Device, to topic: String, at time: Timestamp) -> Bool {
        if device.topics[topic] != nil { return true }
        guard device.topics.count < Topic.maxPerInstance else { return false }
        let place = subscribers[topic, default: TopicMembers()].append(device)
        device.topics.add(topic, since: time, place: place)
        changes.device(device)
        return true
    }

    func unsubscribe(_ device: Device, from topic: String) {
        guard let place = device.topics.remove(topic) else { return }
        if let moved = subscribers[topic]?.remove(at: place) { moved.topics.move(topic, to: place) }
        if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
        changes.device(device)
    }

    func unsubscribeAll(_ device: Device) {
        for topic in Array(device.topics.keys) { unsubscribe(device, from: topic) }
    }
}
