/// A fake phone with one app installed: its identifiers, state, topic subscriptions, what it
/// received, and what the service holds for it while it is offline. Owned by its project;
/// mutated only on the loop thread.
public final class Device {
    public let id: String
    public let platform: Platform
    public let app: String
    public let projectID: String
    public internal(set) var fid: String
    /// Nil while the app has auto-init off and has not enabled it (no token yet).
    public internal(set) var token: String?
    public internal(set) var state = DeviceState()
    /// Messages the service holds while the device is offline, oldest first.
    public internal(set) var pending: [Pending] = []
    /// iOS: the newest background push the system is holding back (budget exhausted).
    public internal(set) var held: Pending?
    /// iOS: when recent background pushes were handed to the app, for the hourly budget.
    var backgroundDeliveries: [Timestamp] = []
    /// Android: collapsible messages the app may receive now (FCM's burst of 20, refilled one
    /// every 3 minutes), and when it was last refilled (`DeviceModel.refillCollapsibleAllowance`).
    var collapsibleAllowance = DeviceModel.collapsibleBurst
    var collapsibleRefilled: Timestamp = 0
    var rate = DeviceRate()
    /// The last time the device was seen by the service (registration, online, app use);
    /// tokens idle for 270 days are expired.
    public internal(set) var lastSeen: Timestamp
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

    init(
        id: String, platform: Platform, app: String, projectID: String, fid: String, token: String?,
        apnsToken: String?, apnsEnvironment: APNsEnvironment?, createdAt: Timestamp
    ) {
        self.id = id
        self.platform = platform
        self.app = app
        self.projectID = projectID
        self.fid = fid
        self.token = token
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.createdAt = createdAt
        self.lastSeen = createdAt
    }

    func receive(_ entry: InboxEntry) {
        if received.count == 2 * Self.inboxLimit { received.removeFirst(Self.inboxLimit) }
        received.append(entry)
        receivedCount += 1
    }

    /// The newest inbox entry for a message id, with its position for `markOpened`.
    func entry(_ messageID: String) -> (index: Int, entry: InboxEntry)? {
        guard let i = received.lastIndex(where: { $0.messageID == messageID }) else { return nil }
        return (i, received[i])
    }

    func markOpened(at index: Int) { received[index].opened = true }

    /// Takes a send's entries out of the inbox (`DELETE .../messages/{id}`).
    func removeFromInbox(_ message: Message) {
        let before = received.count
        received.removeAll { $0.message === message }
        receivedCount -= before - received.count
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
    /// How it showed: displayed in the notification centre or tray, presented in the
    /// foreground, or only handed to the app.
    public let shown: Shown
    public internal(set) var opened = false

    public enum Shown: String, Sendable {
        case displayed, presented
        /// Handed to the app only (foreground or background delivery; on the Web, the
        /// service worker's `onBackgroundMessage`).
        case app
        /// Web: the visible page's `onMessage` got it; the browser showed nothing.
        case page
        /// Displayed without sound or banner (iOS provisional authorization).
        case quietly = "displayed_quietly"
    }

    /// Whether the user can tap it.
    public var canOpen: Bool { shown != .app && shown != .page }
}

/// A message waiting for a device: stored by FCM or APNs while offline, or held on iOS.
public struct Pending {
    public let message: Message
    public let messageID: String
    public let since: Timestamp
    /// When it expires (its TTL or `apns-expiration`).
    public let expires: Timestamp
}
