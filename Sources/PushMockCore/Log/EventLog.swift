/// The append-only delivery log, held in memory as a ring with a fixed capacity. When full,
/// the oldest event is evicted and counted; nothing disappears silently.
public final class EventLog {
    public let capacity: Int
    /// All fields guarded by the loop thread.
    private var ring: [Event]
    private var head = 0
    public private(set) var count = 0
    public private(set) var evicted = 0
    public private(set) var lastSeq: Int64 = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = []
    }

    @discardableResult
    public func append(kind: EventKind, time: Timestamp, projectID: String, projectNumber: Int64,
                       message: Message? = nil, messageID: String? = nil, messageType: MessageType? = nil,
                       device: Device? = nil, token: String? = nil, reason: String? = nil) -> Int64 {
        lastSeq += 1
        let event = Event(seq: lastSeq, time: time, kind: kind, projectID: projectID, projectNumber: projectNumber,
                          message: message, messageID: messageID, messageType: messageType ?? message?.content.messageType,
                          device: device, token: token ?? device?.token, reason: reason)
        if ring.count < capacity {
            ring.append(event)
            count += 1
        } else {
            ring[head] = event
            head = (head + 1) % capacity
            evicted += 1
        }
        return lastSeq
    }

    /// Visits events oldest first; stop by returning false.
    public func forEach(_ body: (Event) -> Bool) {
        for k in 0..<count {
            if !body(ring[(head + k) % ring.count]) { return }
        }
    }

    /// Visits events with `seq > after`, oldest first, skipping older ones in O(log n).
    public func forEach(after seq: Int64, _ body: (Event) -> Bool) {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ring[(head + mid) % ring.count].seq <= seq { lo = mid + 1 } else { hi = mid }
        }
        for k in lo..<count {
            if !body(ring[(head + k) % ring.count]) { return }
        }
    }

    /// Drops every event of one project (a project reset), keeping the rest in order.
    public func removeAll(projectID: String) {
        var kept: [Event] = []
        forEach { e in
            if e.projectID != projectID { kept.append(e) }
            return true
        }
        ring = kept
        head = 0
        count = kept.count
    }
}
