/// One event as the durable store keeps it: its columns, without the objects an event in
/// memory points to.
public struct StoredEvent: Sendable {
    public var seq: Int64
    public var time: Timestamp
    public var kind: String
    public var projectID: String
    public var api: String?
    public var messageID: String?
    public var messageType: String?
    public var deviceID: String?
    public var token: String?
    public var reason: String?
    public var collapseKey: String?
    public var priority: Int?
    public var ttl: Int?
    public var topic: String?
    public var bulkID: Int64?
    public var label: String?

    public init(seq: Int64, time: Timestamp, kind: String, projectID: String) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.projectID = projectID
    }
}
