/// The append-only delivery log, held in memory as a ring with a fixed capacity. When full,
/// the oldest event is evicted and counted; nothing disappears silently. Storage grows in
/// fixed blocks, so appending never copies the log.
/// Where every appended event also goes (the durable store); called on the loop thread.
public protocol EventSink: AnyObject {
    func record(_ event: Event)
    /// A project's events through `seq` were removed (a reset, or its messages cleared).
    func removeAll(projectID: String, through seq: Int64)
    /// A send whose events are logged before it is answered (a fan-out in slices) begins
    /// (`open`) or is answered: a restart leaves out the events of one never answered.
    func unanswered(projectID: String, messageID: String, open: Bool)
}

public final class EventLog {
    public let capacity: Int
    /// All fields guarded by the loop thread.
    private var blocks: [[Event]] = []
    /// Position of the oldest event in the ring.
    private var head = 0
    public private(set) var count = 0
    /// Events dropped to make room (`--max-events`) and for age (`--max-age`).
    public private(set) var evictedForRoom = 0
    public private(set) var evictedForAge = 0
    public var evicted: Int { evictedForRoom + evictedForAge }
    public private(set) var lastSeq: Int64 = 0
    /// Receives each event as it is appended.
    public var sink: (any EventSink)?

    /// A send logged before it is answered begins (`open`) or is answered (`EventSink`).
    func noteUnanswered(projectID: String, messageID: String, open: Bool) {
        sink?.unanswered(projectID: projectID, messageID: messageID, open: open)
    }
    /// Also sees each appended event, just before it is stored: the delivery bridges, set
    /// only while one exists. It must not append to the log itself.
    var listener: ((Event) -> Void)?
    /// Set while the listener runs (checked in debug builds).
    private var notifying = false
    /// Every event ever appended, by kind, and those with a reason by kind and reason
    /// (evicted ones included), for `/metrics`.
    public private(set) var kindCounts = KindCounts()
    public private(set) var reasonCounts: [ReasonKey: Int] = [:]

    public struct ReasonKey: Hashable, Sendable {
        public let kind: EventKind
        public let reason: String
    }

    /// Events by kind, in an array indexed by `EventKind.ordinal`.
    public struct KindCounts: Sendable {
        private var counts = [Int](repeating: 0, count: EventKind.allCases.count)
        public subscript(kind: EventKind) -> Int {
            get { counts[kind.ordinal] }
            set { counts[kind.ordinal] = newValue }
        }
    }

    static let blockSize = 4096

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Block and index of the k-th oldest event (k < capacity, so one subtraction wraps it:
    /// a division here was a tenth of appending an event).
    private func slot(_ k: Int) -> (Int, Int) {
        var i = head + k
        if i >= capacity { i -= capacity }
        return (i / Self.blockSize, i % Self.blockSize)
    }

    /// Overwriting the oldest row lets go of its message, device and token, and of the message
    /// itself with the last of its events: memory written long ago, out of the cache. So every
    /// fourth overwrite asks for what later ones will read, without waiting for it: the four
    /// rows 32 ahead (eight sends' events), and the messages of the four rows 8 ahead (rows
    /// asked for earlier).
    private static let rowsAsked = 4
    private static let rowAhead = 32
    private static let messageAhead = 8
    private static let messageOffset = MemoryLayout<Event>.offset(of: \Event.message)!
    /// The bytes asked for from a message's start: its fields fit in six cache lines.
    private static let messageBytes = 6 * Prefetch.lineBytes

    private func prefetchAhead() {
        guard capacity > Self.rowAhead + Self.rowsAsked else { return }
        let (rowBlock, row) = slot(Self.rowAhead)
        let (messageBlock, messageRow) = slot(Self.messageAhead)
        let messageOffset = Self.messageOffset
        blocks.withUnsafeBufferPointer { blocks in
            blocks[rowBlock].withUnsafeBufferPointer { rows in
                // The rows to the end of the block at most (the ring's end is a block's).
                let count = min(Self.rowsAsked, rows.count - row)
                Prefetch.bytes(count * MemoryLayout<Event>.stride, at: rows.baseAddress! + row)
            }
            blocks[messageBlock].withUnsafeBufferPointer { rows in
                var last: UnsafeRawPointer? = nil
                for k in messageRow..<min(messageRow + Self.rowsAsked, rows.count) {
                    let field = UnsafeRawPointer(rows.baseAddress! + k) + messageOffset
                    guard let message = Prefetch.object(referencedAt: field), message != last else { continue }
                    last = message
                    Prefetch.bytes(Self.messageBytes, at: message)
                }
            }
        }
    }

    private func event(at k: Int) -> Event {
        let (b, i) = slot(k)
        return blocks[b][i]
    }

    @discardableResult
    public func append(
        kind: EventKind, time: Timestamp, projectID: String, projectNumber: Int64,
        message: Message? = nil, messageID: String? = nil, messageType: MessageType? = nil,
        device: Device? = nil, token: String? = nil, reason: String? = nil,
        delay: Timestamp? = nil
    ) -> Int64 {
        lastSeq += 1
        kindCounts[kind] += 1
        if let reason { reasonCounts[ReasonKey(kind: kind, reason: reason), default: 0] += 1 }
        let event = Event(
            seq: lastSeq, time: time, kind: kind, projectID: projectID, projectNumber: projectNumber,
            message: message, messageID: messageID, messageType: messageType ?? message?.messageType(on: device?.platform),
            device: device, token: token ?? device?.token, reason: reason, delay: delay)
        sink?.record(event)
        // The listener sees the event before it is stored, so that storing moves it rather
        // than copying it (a copy retains and releases each of its references).
        if let listener {
            assert(!notifying, "the log's listener appended to it")
            notifying = true
            listener(event)
            notifying = false
        }
        store(event)
        return lastSeq
    }

    private func store(_ event: consuming Event) {
        if count < capacity {
            let (b, i) = slot(count)
            if b == blocks.count {
                blocks.append([])
                blocks[b].reserveCapacity(min(Self.blockSize, capacity))
            }
            // A slot freed by age-based eviction is reused in place.
            if i < blocks[b].count { blocks[b][i] = event } else { blocks[b].append(event) }
            count += 1
        } else {
            if head % Self.rowsAsked == 0 { prefetchAhead() }
            let (b, i) = slot(0)
            blocks[b][i] = event
            head = head + 1 == capacity ? 0 : head + 1
            evictedForRoom += 1
        }
    }

    /// Puts back an event read from the durable store, with its own seq (which must be higher
    /// than any so far); it does not go to the sink again. (Moved in, not copied: a restart
    /// puts back two million.)
    public func restore(_ event: consuming Event) {
        guard event.seq > lastSeq else { return }
        lastSeq = event.seq
        kindCounts[event.kind] += 1
        if let reason = event.reason { reasonCounts[ReasonKey(kind: event.kind, reason: reason), default: 0] += 1 }
        store(event)
    }

    /// Numbers new events after `seq` (a store that already holds events up to it).
    public func continueAfter(_ seq: Int64) {
        lastSeq = max(lastSeq, seq)
    }

    /// Evicts events logged before `cutoff` (`--max-age`), oldest first; returns how many.
    @discardableResult
    public func evict(before cutoff: Timestamp) -> Int {
        var n = 0
        while count > 0, event(at: 0).time < cutoff {
            head = (head + 1) % capacity
            count -= 1
            n += 1
        }
        evictedForAge += n
        return n
    }

    /// Visits events oldest first; stop by returning false.
    public func visit(_ body: (Event) -> Bool) {
        for k in 0..<count where !body(event(at: k)) { return }
    }

    /// Visits events newest first; stop by returning false.
    public func visitNewestFirst(_ body: (Event) -> Bool) {
        var k = count - 1
        while k >= 0, body(event(at: k)) { k -= 1 }
    }

    /// Visits events with `seq > after`, oldest first, skipping older ones in O(log n).
    public func visit(after seq: Int64, _ body: (Event) -> Bool) {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if event(at: mid).seq <= seq { lo = mid + 1 } else { hi = mid }
        }
        for k in lo..<count where !body(event(at: k)) { return }
    }

    /// Drops every event of one project (a reset, or its messages cleared), keeping the rest
    /// in order, here and in the sink: they do not come back at a restart.
    public func removeAll(projectID: String) {
        sink?.removeAll(projectID: projectID, through: lastSeq)
        var kept: [Event] = []
        visit { e in
            if e.projectID != projectID { kept.append(e) }
            return true
        }
        blocks = stride(from: 0, to: kept.count, by: Self.blockSize).map {
            Array(kept[$0..<min($0 + Self.blockSize, kept.count)])
        }
        head = 0
        count = kept.count
    }
}
