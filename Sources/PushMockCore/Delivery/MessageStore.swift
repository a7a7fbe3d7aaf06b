/// The sends a project accepted, newest last, bounded by count and by the bytes of their
/// requests (each send keeps its body and headers for `GET .../messages`): the oldest are evicted
/// (and counted) to make room. Every recipient message id finds its send.
///
/// Sends are found by scanning the hashes of their ids, newest first, in an array beside the
/// ring: only the control API looks sends up, so a send adds to the ring without touching a
/// hash table (docs/PERFORMANCE.md). Recipient ids of multicast sends, which are few, are in a
/// table.
public final class MessageStore {
    public let capacity: Int
    public let maxBytes: Int
    /// Loop thread only. A ring: `count` sends from `first`, oldest first; `hashes[k]` is
    /// `order[k]?.idHash`. Slots beyond `count` hold nothing (an evicted send is let go).
    private var order: [Message?] = []
    private var hashes: [UInt64] = []
    private var first = 0
    /// Ring slots in use, holes left by `remove` included.
    private var used = 0
    /// Slots emptied by `remove` that the ring has not yet passed.
    private var holes = 0
    /// The sends kept.
    public var count: Int { used - holes }
    /// The requests' bytes of the sends kept (`Message.keptBytes`).
    public private(set) var bytes = 0
    private var recipients: [MessageKey: Message] = [:]
    public private(set) var evicted = 0

    /// What every project's stores hold together.
    private let budget: MessageBudget?

    init(capacity: Int, maxBytes: Int = .max, budget: MessageBudget? = nil) {
        self.capacity = max(1, capacity)
        self.maxBytes = max(1, maxBytes)
        self.budget = budget
        budget?.join(self)
    }

    deinit { budget?.leave(self) }

    func add(_ message: Message) {
        let size = message.keptBytes
        while used > 0, used == capacity || bytes + size > maxBytes { evictOldest() }
        budget?.makeRoom(for: size, in: self)
        if used == order.count {
            // The ring is full but below capacity: grow it, oldest first again.
            if first != 0 {
                order = Array(order[first...] + order[..<first])
                hashes = Array(hashes[first...] + hashes[..<first])
                first = 0
            }
            order.append(message)
            hashes.append(message.idHash)
        } else {
            let slot = (first + used) % order.count
            order[slot] = message
            hashes[slot] = message.idHash
        }
        used += 1
        bytes += size
        budget?.took(size)
    }

    /// Evicts the oldest send, for the budget; nothing when the store is empty.
    func evictOldestSend() {
        while used > 0 {
            let hole = order[first] == nil
            evictOldest()
            if !hole { return }
        }
    }

    private func evictOldest() {
        // Moved out of its slot, not copied: the send is long out of the cache, and a copy
        // would touch it first with a retain (an atomic add that waits for the memory).
        let oldest = order[first].take()
        hashes[first] = 0
        first = (first + 1) % order.count
        used -= 1
        if used > 0 { prefetch(slot: first) }
        if let oldest {
            forget(oldest)
            oldest.letGoOfRequest()
            bytes -= oldest.keptBytes
            budget?.gave(oldest.keptBytes)
            evicted += 1
        } else {
            holes -= 1
        }
    }

    /// Takes one send out (`DELETE .../messages/{id}`); its slot stays a hole until the ring
    /// passes it.
    func remove(_ message: Message) {
        var k = used - 1
        while k >= 0 {
            let slot = (first + k) % order.count
            if order[slot] === message {
                forget(message)
                message.letGoOfRequest()
                order[slot] = nil
                hashes[slot] = 0
                holes += 1
                bytes -= message.keptBytes
                budget?.gave(message.keptBytes)
                return
            }
            k -= 1
        }
    }

    /// Notes a recipient's message id on its send and makes the id find the send.
    func addRecipient(_ messageID: String, of message: Message) {
        message.recipientIDs.append(messageID)
        recipients[MessageKey(messageID)] = message
    }

    /// Asks for the send in `slot` (its first line, what evicting reads first) to be brought
    /// into the cache: the next send evicts it, long after it was made.
    private func prefetch(slot: Int) {
        order.withUnsafeBufferPointer { slots in
            if let send = Prefetch.object(referencedAt: slots.baseAddress! + slot) { Prefetch.bytes(1, at: send) }
        }
    }

    private func forget(_ message: Message) {
        for id in message.recipientIDs { recipients[MessageKey(id)] = nil }
    }

    public func message(id: String) -> Message? {
        let key = MessageKey(id)
        if let m = recipients[key] { return m }
        // Newest first: the sends a test asks about are usually recent.
        var k = used - 1
        while k >= 0 {
            let slot = (first + k) % order.count
            if hashes[slot] == key.hash, let m = order[slot], m.id == id { return m }
            k -= 1
        }
        return nil
    }

    /// Newest first, those `include` accepts: `limit` of them after skipping `offset`, and
    /// how many it accepts in all.
    public func newest(limit: Int, offset: Int = 0, where include: (Message) -> Bool = { _ in true }) -> (
        page: [Message], matched: Int
    ) {
        var page: [Message] = []
        var matched = 0
        var k = used - 1
        while k >= 0 {
            if let m = order[(first + k) % order.count], include(m) {
                if matched >= offset, page.count < limit { page.append(m) }
                matched += 1
            }
            k -= 1
        }
        return (page, matched)
    }

    func removeAll() {
        order.removeAll()
        hashes.removeAll()
        recipients.removeAll()
        first = 0
        used = 0
        holes = 0
        budget?.gave(bytes)
        bytes = 0
    }
}

/// A message id as the store keys it: the id and a hash of its bytes made by a quick
/// multiply-and-fold, which a message computes once.
struct MessageKey: Hashable {
    let id: String
    let hash: UInt64

    init(_ id: String) {
        self.id = id
        hash = Self.fold(id)
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
