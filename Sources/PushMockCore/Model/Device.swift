/// A fake phone with one app installed: its identifiers, topic subscriptions and inbox.
/// Owned by its project; mutated only on the loop thread.
public final class Device {
    public let id: String
    public let platform: Platform
    public let app: String
    public let projectID: String
    public internal(set) var fid: String
    public internal(set) var token: String
    /// iOS only.
    public internal(set) var apnsToken: String?
    public internal(set) var apnsEnvironment: APNsEnvironment?
    /// Topic name → when it was subscribed.
    public internal(set) var topics: [String: Timestamp] = [:]
    /// What the device received, oldest first: the newest `inboxLimit` entries.
    public var inbox: ArraySlice<InboxEntry> { received.suffix(Self.inboxLimit) }
    /// How many older entries no longer show in `inbox`.
    public var inboxDropped: Int { receivedCount - inbox.count }
    /// Holds up to twice the limit, trimmed in halves so each receive is O(1) amortized.
    private var received: [InboxEntry] = []
    private var receivedCount = 0
    public let createdAt: Timestamp

    public static let inboxLimit = 100

    init(id: String, platform: Platform, app: String, projectID: String, fid: String, token: String,
         apnsToken: String?, apnsEnvironment: APNsEnvironment?, createdAt: Timestamp) {
        self.id = id
        self.platform = platform
        self.app = app
        self.projectID = projectID
        self.fid = fid
        self.token = token
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.createdAt = createdAt
    }

    func receive(_ entry: InboxEntry) {
        if received.count == 2 * Self.inboxLimit { received.removeFirst(Self.inboxLimit) }
        received.append(entry)
        receivedCount += 1
    }

    func clearInbox() {
        received.removeAll()
        receivedCount = 0
    }
}

/// One push as a device saw it. The exact payload is rendered from the shared message on
/// demand, so a topic send to a million devices stores no million payloads.
public struct InboxEntry {
    public let message: Message
    public let messageID: String
    public let receivedAt: Timestamp
    public let displayed: Bool
}
