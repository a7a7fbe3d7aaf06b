/// The sends a project accepted, newest last, bounded: the oldest is evicted (and counted)
/// when full. Every recipient message id maps to its send.
public final class MessageStore {
    public let capacity: Int
    /// Loop thread only.
    private var order: [Message] = []
    private var head = 0
    private var byID: [MessageKey: Message] = [:]
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
        byID[MessageKey(message)] = message
    }

    /// Notes a recipient's message id on its send and makes the id find the send.
    func addRecipient(_ messageID: String, of message: Message) {
        message.recipientIDs.append(messageID)
        byID[MessageKey(messageID)] = message
    }

    private func forget(_ message: Message) {
        byID[MessageKey(message)] = nil
        for id in message.recipientIDs { byID[MessageKey(id)] = nil }
    }

    public func message(id: String) -> Message? { byID[MessageKey(id)] }

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

/// A message id as the store's index keys it: the id and a hash of its bytes made by a quick
/// multiply-and-fold, which a message computes once. Adding a send and evicting the one
/// 100,000 sends older then hash one word each; SipHash over both ids' 36 bytes, the older
/// one long out of the cache, cost more than the rest of storing a send.
struct MessageKey: Hashable {
    let id: String
    let hash: UInt64

    init(_ id: String) {
        self.id = id
        hash = Self.fold(id)
    }

    init(_ message: Message) {
        id = message.id
        hash = message.idHash
    }

    static func == (a: MessageKey, b: MessageKey) -> Bool { a.hash == b.hash && a.id == b.id }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// Eight bytes at a time: each word mixed in with a multiply and a shift.
    static func fold(_ id: String) -> UInt64 {
        id.withBytes { bytes in
            var h = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
            guard let p = bytes.baseAddress else { return h }
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ ByteWord.load(p + i)) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 31
                i += 8
            }
            var tail: UInt64 = 0
            while i < bytes.count {
                tail = tail << 8 | UInt64(p[i])
                i += 1
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
            return h ^ h >> 29
        }
    }
}
