/// A device's topics: when it subscribed to each, and its place in that topic's list of
/// subscribers (`TopicMembers`), which the project's `TopicIndex` keeps in step. The first
/// topic is held in place and any others in a list: a device has a few topics (at most
/// `Topic.maxPerInstance`), and a million idle devices each carrying one would otherwise pay
/// for a list of one each (docs/PERFORMANCE.md). Reads as a dictionary of topic →
/// subscription time, in the order subscribed.
public struct TopicMemberships: Sequence {
    public typealias Element = (key: String, value: Timestamp)
    private struct Entry {
        let topic: String
        let since: Timestamp
        var place: Int
    }
    /// Nil only when `rest` is empty too.
    private var first: Entry?
    private var rest: [Entry] = []

    private var entries: [Entry] { first.map { [$0] + rest } ?? [] }

    public var count: Int { first == nil ? 0 : 1 + rest.count }
    public var keys: [String] { entries.map(\.topic) }

    /// When the device subscribed to `topic`; nil when it is not subscribed.
    public subscript(topic: String) -> Timestamp? {
        if let first, first.topic == topic { return first.since }
        return rest.first { $0.topic == topic }?.since
    }

    public func makeIterator() -> IndexingIterator<[Element]> { entries.map { ($0.topic, $0.since) }.makeIterator() }

    mutating func add(_ topic: String, since: Timestamp, place: Int) {
        let entry = Entry(topic: topic, since: since, place: place)
        if first == nil { first = entry } else { rest.append(entry) }
    }

    /// Takes the topic out; its place in the topic's list, nil when it was not there.
    mutating func remove(_ topic: String) -> Int? {
        if let f = first, f.topic == topic {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return f.place
        }
        guard let i = rest.firstIndex(where: { $0.topic == topic }) else { return nil }
        return rest.remove(at: i).place
    }

    /// The device was moved in the topic's list (another left it).
    mutating func move(_ topic: String, to place: Int) {
        if first?.topic == topic {
            first?.place = place
        } else if let i = rest.firstIndex(where: { $0.topic == topic }) {
            rest[i].place = place
        }
    }
}
