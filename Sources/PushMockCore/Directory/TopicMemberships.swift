/// A device's topics and when it subscribed to each: a short list (a device has a few topics,
/// at most `Topic.maxPerInstance`), which costs a million devices on one topic 64 bytes each
/// where a dictionary cost twice that. Reads as a dictionary does.
public struct TopicMemberships: Sequence {
    public typealias Element = (key: String, value: Timestamp)
    private var entries: [Element] = []

    public var count: Int { entries.count }
    public var keys: [String] { entries.map(\.key) }

    /// When the device subscribed to `topic`; nil when it is not subscribed. Setting nil
    /// unsubscribes.
    public subscript(topic: String) -> Timestamp? {
        get { entries.first { $0.key == topic }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == topic }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((topic, newValue))
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey topic: String) -> Timestamp? {
        guard let i = entries.firstIndex(where: { $0.key == topic }) else { return nil }
        return entries.remove(at: i).value
    }

    public func makeIterator() -> IndexingIterator<[Element]> { entries.makeIterator() }
}
