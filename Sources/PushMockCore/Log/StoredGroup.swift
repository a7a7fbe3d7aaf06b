/// Events as the durable store keeps them: a group of events of one message on one device at
/// one moment (a send's accepted, delivered, displayed, …), which share every column but their
/// seq, event and reason; without the objects an event in memory points to. The store reads
/// its commits back a group at a time, so a restart never holds every event's columns at once.
public struct StoredGroup: Sendable {
    public var time: Timestamp = 0
    public var projectID = ""
    public var api: String?
    public var messageID: String?
    public var messageType: String?
    public var deviceID: String?
    public var token: String?
    public var collapseKey: String?
    public var priority: Int?
    public var ttl: Int?
    public var topic: String?
    public var bulkID: Int64?
    public var label: String?
    /// The group's events, oldest first.
    public var events: [Own] = []
    /// A stored block that is not as the store writes them (a damaged row): one event the
    /// gateway counts as unrestored.
    public var isDamaged = false

    /// An event's own columns.
    public struct Own: Sendable {
        public var seq: Int64
        public var kind: String
        public var reason: String?

        public init(seq: Int64, kind: String, reason: String?) {
            self.seq = seq
            self.kind = kind
            self.reason = reason
        }
    }

    public init() {}

    /// A damaged block, counted as one event.
    public static var damaged: StoredGroup {
        var g = StoredGroup()
        g.isDamaged = true
        return g
    }
}
