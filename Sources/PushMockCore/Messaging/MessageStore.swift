/// The sends a project accepted, newest last, bounded: the oldest is evicted (and counted)
/// when full. Every recipient message id maps to its send.
public final class MessageStore {
    public let capacity: Int
    /// Loop thread only.
    private var order: [Message] = []
    private var head = 0
    private var byID: [String: Message] = [:]
    public private(set) var evicted = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        // Sized up front for the common case, so the index does not rehash under load.
        byID.reserveCapacity(min(self.capacity, 1 << 16) * 2)
    }

    public var count: Int { order.count }

    func add(_ message: Message) {
        if order.count < capacity {
            order.append(message)
        } else {
            forget(order[head])
            order[head] = message
            head = (head + 1) % capacity
            evicted += 1
        }
        byID[message.id] = message
    }

    /// Notes a recipient's message id on its send and makes the id find the send.
    func addRecipient(_ messageID: String, of message: Message) {
        message.recipientIDs.append(messageID)
        byID[messageID] = message
    }

    private func forget(_ message: Message) {
        byID[message.id] = nil
        for id in message.recipientIDs { byID[id] = nil }
    }

    public func message(id: String) -> Message? { byID[id] }

    /// Newest first, those `include` accepts.
    public func newest(limit: Int, where include: (Message) -> Bool = { _ in true }) -> [Message] {
        var out: [Message] = []
        var k = order.count - 1
        while k >= 0, out.count < limit {
            let m = order[(head + k) % order.count]
            if include(m) { out.append(m) }
            k -= 1
        }
        return out
    }

    func removeAll() {
        order.removeAll()
        byID.removeAll()
        head = 0
    }
}
