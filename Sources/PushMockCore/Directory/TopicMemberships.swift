/// A device's topics: when it subscribed to each, and its place in that topic's list of
/// subscribers (`TopicMembers`), which the project's `TopicIndex` keeps in step. A short list,
/// since a device has a few topics (at most `Topic.maxPerInstance`) and a million idle devices
/// each carry one (docs/PERFORMANCE.md). Reads as a dictionary of topic → subscription time.
public struct TopicMemberships: Sequence {
    public typealias Element = (key: String, value: Timestamp)
    private struct Entry {
        let topic: String
        let since: Timestamp
        var place: Int
    }
    private var entries: [Entry] = []

    public var count: Int { entries.count }
    public var keys: [String] { entries.map(\.topic) }

    /// When the device subscribed to `topic`; nil when it is not subscribed.
    public subscript(topic: String) -> Timestamp? { entries.first { $0.topic == topic }?.since }

    public func makeIterator() -> IndexingIterator<[Element]> { entries.map { ($0.topic, $0.since) }.makeIterator() }

    mutating func add(_ topic: String, since: Timestamp, place: Int) {
        entries.append(Entry(topic: topic, since: since, place: place))
    }

    /// Takes the topic out; its place in the topic's list, nil when it was not there.
    mutating func remove(_ topic: String) -> Int? {
        guard let i = entries.firstIndex(where: { $0.topic == topic }) else { return nil }
        return entries.remove(at: i).place
    }

    /// The device was moved in the topic's list (another left it).
    mutating func move(_ topic: String, to place: Int) {
        if let i = entries.firstIndex(where: { $0.topic == topic }) { entries[i].place = place }
    }
}
