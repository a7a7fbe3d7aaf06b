import Glibc

/// A fake phone with one app installed. Its identity (id, platform, app, project) is fixed;
/// its addresses change only through its project's registry (`DeviceRegistry`), its state
/// through `Delivery.change`, its topics through `TopicIndex`, each by a method named for what
/// happened. What the parts keep per device lives here for memory's sake (a million devices),
/// each in a value of the part's own: `delivery` (what the service holds for it, its
/// allowances) is delivery's, `rate` the quotas'. Owned by its project; loop thread only.
public final class Device {
    public let id: String
    public let app: String
    public let projectID: String
    /// The installation (FID). A token begins with its FID and a colon (`<fid>:APA91b…`,
    /// docs/control-api.md), so the FID is read from the token when it begins with it, not kept
    /// twice (docs/PERFORMANCE.md); read this way, it is made afresh each time: the hot paths
    /// use `withFID`.
    public var fid: String { ownFID ?? withFID { String(decoding: $0, as: UTF8.self) } }
    /// Calls `body` with the FID's bytes where they are kept, without a copy. Inlinable, so
    /// that another module's call is specialized: an unspecialized one looks up generic
    /// metadata, under a lock, for each call (the store writes a million FIDs for a topic send).
    @inlinable
    public func withFID<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let own = ownFID { return own.withBytes(body) }
        return token!.withBytes { body(Self.fid(inToken: $0)!) }
    }
    /// The FID when the token does not begin with it.
    @usableFromInline var ownFID: String? { extras?.ownFID }
    /// The bytes before a token's first colon: the FID, if the token begins with one. Found
    /// with `memchr`: a log scan asks this of every event, and the generic `firstIndex(of:)`
    /// allocates for each byte in a build without optimization, as the sanitized tests run.
    @usableFromInline
    static func fid(inToken token: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let start = token.baseAddress, let colon = memchr(start, Int32(UInt8(ascii: ":")), token.count) else {
            return nil
        }
        return UnsafeBufferPointer(start: start, count: UnsafeRawPointer(colon) - UnsafeRawPointer(start))
    }
    /// The string the FID is read from: its own, or the token that begins with it. The same
    /// source, the same FID (what the store compares event by event).
    public var fidSource: String { ownFID ?? token! }
    /// Nil while the app has auto-init off and has not enabled it (no token yet).
    public private(set) var token: String?
    /// iOS only.
    public private(set) var apnsToken: String?
    /// Addresses of kinds a protocol module declares (a Web Push endpoint).
    public var moduleAddresses: [DeviceAddress] { browserSide?.moduleAddresses ?? [] }
    /// A browser's push side (nil for phones): one reference, so a million phones pay 8 bytes.
    private var browserSide: BrowserSide?
    /// Web: the browser's push subscription, current or (once ended) the last one, whose
    /// browser, push service and application server key a new one keeps.
    public var pushSubscription: PushSubscription? { browserSide?.subscription }
    /// A real client that registered itself (a real browser); nil for a fake device.
    public internal(set) var realClient: RealClient? {
        get { browserSide?.client }
        set { side.client = newValue }
    }
    // The state, the platform and the APNs environment are declared together: a class keeps
    // its fields in the order declared, and so their bytes share one 16-byte span.
    public private(set) var state: DeviceState
    public let platform: Platform
    public private(set) var apnsEnvironment: APNsEnvironment?
    /// The last time the device was seen by the service (registration, online, app use);
    /// tokens idle for 270 days are expired.
    public private(set) var lastSeen: Timestamp
    /// Topic name → when it was subscribed.
    public internal(set) var topics = TopicMemberships()
    /// What the service holds for the device and its allowances (`Delivery`'s).
    var delivery: DeviceDelivery {
        get { extras?.delivery ?? DeviceDelivery() }
        _modify { yield &madeExtras.delivery }
    }
    /// Its send counters for the per-device rate limits (`Quotas`').
    var rate: DeviceRate {
        get { extras?.rate ?? DeviceRate() }
        _modify { yield &madeExtras.rate }
    }
    /// What the device received, oldest first: the newest `inboxLimit` entries.
    public var inbox: ArraySlice<InboxEntry> { received.suffix(Self.inboxLimit) }
    /// How many older entries no longer show in `inbox`.
    public var inboxDropped: Int { (extras?.inboxTrimmed ?? 0) + max(0, received.count - Self.inboxLimit) }
    /// Holds up to twice the limit, trimmed in halves so each receive is O(1) amortized.
    private var received: [InboxEntry] = []
    /// Made when first needed (`DeviceExtras`).
    private var extras: DeviceExtras?
    public let createdAt: Timestamp

    public static let inboxLimit = 100

    /// `fid` nil: the token's part before its colon (the token is given and begins with it).
    init(
        id: String, platform: Platform, app: String, projectID: String, fid: String?, token: String?,
        apnsToken: String?, apnsEnvironment: APNsEnvironment?, state: DeviceState, createdAt: Timestamp
    ) {
        self.id = id
        self.platform = platform
        self.app = app
        self.projectID = projectID
        self.token = token
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.state = state
        self.createdAt = createdAt
        self.lastSeen = createdAt
        if let fid { keep(fid: fid) } else { assert(token?.withBytes { Self.fid(inToken: $0) != nil } == true) }
    }

    /// Every address the device has now.
    public var addresses: [DeviceAddress] {
        var all: [DeviceAddress] = []
        forEachAddress { all.append($0) }
        return all
    }

    /// Calls `body` with each address the device has now (without making a list of them); its
    /// installation left out when `withFID` is false.
    func forEachAddress(withFID: Bool = true, _ body: (DeviceAddress) -> Void) {
        if withFID { body(.installation(fid)) }
        if let token { body(.registrationToken(token)) }
        if let a = apnsToken.flatMap(DeviceAddress.apns) { body(a) }
        for a in moduleAddresses { body(a) }
    }

    /// Whether the device has this address now (what the address book asks of the device a
    /// hash names).
    func has(_ address: DeviceAddress) -> Bool {
        switch address.key {
        case .text(let text) where address.kind == .registrationToken: token == text
        case .text(let text) where address.kind == .installation: withFID { text.hasBytes($0) }
        case .apns(let key): apnsToken.flatMap(APNsToken.init) == key
        case .text: moduleAddresses.contains(address)
        }
    }

    /// Its project's registry changes the addresses, keeping the index in step.
    func readdress(token: String?, fid: String?) {
        let fid = fid ?? self.fid
        self.token = token
        keep(fid: fid)
    }

    /// Whether the token begins with the FID (which is then read from it).
    var tokenHoldsFID: Bool { ownFID == nil }

    /// Keeps the FID apart only when the token (set first) does not begin with it and a colon
    /// (a FID has no colon of its own).
    private func keep(fid: String) {
        // (Byte buffers, not the strings' `utf8` views: docs/PERFORMANCE.md.)
        let inToken = token?.withBytes { t in Self.fid(inToken: t).map(fid.hasBytes) ?? false } ?? false
        if inToken { extras?.ownFID = nil } else { madeExtras.ownFID = fid }
    }

    func readdress(apnsToken: String) { self.apnsToken = apnsToken }

    func addAddress(_ address: DeviceAddress) {
        if !moduleAddresses.contains(address) { side.moduleAddresses.append(address) }
    }

    func removeAddress(_ address: DeviceAddress) { browserSide?.moduleAddresses.removeAll { $0 == address } }

    /// The subscription an endpoint token names: the fake browser's, or one of a real one's.
    public func subscription(token: String) -> PushSubscription? {
        if let s = pushSubscription, s.token == token { return s }
        return realClient?.subscriptions[token]
    }

    /// Whether the push subscription is current (not unsubscribed, revoked or expired).
    public var isSubscribed: Bool {
        guard let s = pushSubscription else { return false }
        return s.isRemote || moduleAddresses.contains(s.address)
    }

    /// A real browser's subscription that the device's FCM registration carries: its endpoint
    /// names the push service's subscription, not an address of this device.
    func carry(_ subscription: PushSubscription) { side.subscription = subscription }

    /// Its project's registry replaces the subscription, keeping the index in step.
    func resubscribe(_ subscription: PushSubscription) {
        if let old = pushSubscription { removeAddress(old.address) }
        side.subscription = subscription
        addAddress(subscription.address)
    }

    private var madeExtras: DeviceExtras {
        if let e = extras { return e }
        let e = DeviceExtras()
        extras = e
        return e
    }

    private var side: BrowserSide {
        if let b = browserSide { return b }
        let b = BrowserSide()
        browserSide = b
        return b
    }

    /// The user or the system changed the app's state (`Delivery.change` applies what follows).
    func apply(_ state: DeviceState, apnsEnvironment: APNsEnvironment?) {
        self.state = state
        self.apnsEnvironment = apnsEnvironment
    }

    /// The service saw the device (it came online or went offline).
    func markSeen(at time: Timestamp) { lastSeen = time }

    func receive(_ entry: InboxEntry) {
        if received.count == 2 * Self.inboxLimit {
            received.removeFirst(Self.inboxLimit)
            madeExtras.inboxTrimmed += Self.inboxLimit
        }
        received.append(entry)
    }

    /// The newest inbox entry for a message id, with its position for `markOpened`.
    func entry(_ messageID: String) -> (index: Int, entry: InboxEntry)? {
        guard let i = received.lastIndex(where: { $0.messageID == messageID }) else { return nil }
        return (i, received[i])
    }

    func markOpened(at index: Int) { received[index].opened = true }

    /// Takes a send's entries out of the inbox (`DELETE .../messages/{id}`).
    func removeFromInbox(_ message: Message) { received.removeAll { $0.message === message } }

    func clearInbox() {
        received.removeAll()
        extras?.inboxTrimmed = 0
    }
}

/// What an idle device does not need, made when first needed: its FID when its token does
/// not begin with it, what delivery holds for it and its allowances, its rate counters, and
/// how many inbox entries were trimmed. An idle device holds one reference for them
/// (docs/PERFORMANCE.md).
private final class DeviceExtras {
    var ownFID: String?
    var delivery = DeviceDelivery()
    var rate = DeviceRate()
    var inboxTrimmed = 0
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

/// What a Web device has beside a phone's: its push subscription, its Web Push endpoints, and
/// for a real browser its client (`RealClient`).
final class BrowserSide {
    var subscription: PushSubscription?
    var client: RealClient?
    var moduleAddresses: [DeviceAddress] = []
}
