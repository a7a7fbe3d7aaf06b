/// MCS's server side (docs/reference/fcm-clients.md §5), as `mtalk.google.com` serves Chrome's
/// GCM driver and firebase-messaging: a client that checked in logs in with its android id and
/// security token, and from then on gets a `DataMessageStanza` for every push to its GCM
/// registrations' endpoints, and acknowledges them (a selective ack, its
/// `last_stream_id_received`, or the ids it names at its next login). Each browser is a real
/// Web device of the default project (`RealClient` of kind `mcs`); what it has not acknowledged
/// when its connection ends waits for it within its TTL. Both sides ping when the other is
/// silent; a client silent after a ping is closed. Loop thread only.
final class MCSServer: ClientDelivery {
    let book: ClientBook
    let directory: ProjectDirectory
    let registration: DeviceRegistration
    let delivery: Delivery
    let changes: StateChanges
    let random: RandomSource
    /// The project real clients join (`--project`).
    let projectID: String
    /// A client silent for this long is pinged; silent as long again, it is closed (half of
    /// `--timeout` each; the login tells Chrome to ping this often).
    let heartbeatNanos: UInt64

    /// Logged-in connections by android id, and every open one (for the sweep).
    private var connected: [UInt64: MCSConnection] = [:]
    private var open: [ObjectIdentifier: MCSConnection] = [:]
    /// The message id of each push sent and not yet acknowledged, by its persistent id: a
    /// client names them at its next login.
    private var sent: [String: String] = [:]

    init(
        book: ClientBook, directory: ProjectDirectory, registration: DeviceRegistration, delivery: Delivery,
        changes: StateChanges, random: RandomSource, projectID: String, timeoutSeconds: Int
    ) {
        self.book = book
        self.directory = directory
        self.registration = registration
        self.delivery = delivery
        self.changes = changes
        self.random = random
        self.projectID = projectID
        heartbeatNanos = UInt64(max(1, timeoutSeconds)) * 500_000_000
    }

    var clock: Clock { delivery.clock }
    var heartbeatMillis: Int { Int(heartbeatNanos / 1_000_000) }

    /// A new connection on the MCS listener.
    func connect() -> MCSConnection { MCSConnection(server: self) }

    func opened(_ connection: MCSConnection) { open[ObjectIdentifier(connection)] = connection }

    // MARK: Devices

    /// The device of a browser's check-in: made on its first check-in (and again if it was
    /// deleted); nil when `--max-devices` leaves no room.
    @discardableResult
    func device(of checkin: ClientBook.Checkin) -> Device? {
        if let id = checkin.deviceID, let d = directory[projectID]?.devices[id], d.realClient?.kind == .mcs,
            d.realClient?.clientID == String(checkin.androidID)
        {
            return d
        }
        let client = RealClient(kind: .mcs, clientID: String(checkin.androidID), userAgent: checkin.userAgent, carrier: self)
        // A saved check-in's device comes back with its id.
        let id = checkin.deviceID.flatMap { directory[projectID]?.devices[$0] == nil ? $0 : nil }
        guard let project = directory.project(projectID),
            // Checked in, not yet connected: what is sent to it waits for its login.
            let d = registration.registerClient(client, browser: .chrome, in: project, id: id, online: false)
        else { return nil }
        book.setDevice(d.id, of: checkin.androidID)
        for r in book.registrations(of: checkin.androidID) { subscribe(r, on: d, project: project) }
        changes.project(projectID)
        return d
    }

    /// A GCM registration's subscription on its browser's device: its token is an endpoint on
    /// FCM, restricted to its sender when that is an application server key.
    func subscribe(_ r: ClientBook.GCMRegistration, on device: Device, project: Project) {
        guard let client = device.realClient else { return }
        let key = Base64URL.decode(r.sender).flatMap { $0.count == 65 && $0[0] == 4 && r.sender != Self.defaultSender ? $0 : nil }
        let sub = PushSubscription(
            browser: .chrome, origin: "https://fcm.googleapis.com", token: r.token, applicationServerKey: key, privateKey: [],
            publicKey: [], auth: [], channelID: r.subtype, builtByBrowser: true)
        client.subscriptions[r.token] = sub
        project.devices.add(sub.address, to: device)
    }

    /// The registration is deleted: its endpoint answers 410 from now on.
    func unsubscribe(_ r: ClientBook.GCMRegistration) {
        guard let checkin = book.checkin(r.androidID), let id = checkin.deviceID, let project = directory[projectID],
            let d = project.devices[id], let sub = d.realClient?.subscriptions.removeValue(forKey: r.token)
        else { return }
        project.devices.remove(sub.address, from: d, at: clock.now())
    }

    /// Pushes on one connection the client has not acknowledged, at most; and persistent ids
    /// remembered for logins, at most.
    static let maxUnacknowledged = 1000
    static let maxRemembered = 100_000

    /// Chrome's old default application server key, which firebase-messaging registers with:
    /// its private half is Google's, so only FCM itself pushes to such a subscription, with no
    /// VAPID (docs/fcm-clients.md).
    static let defaultSender =
        "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoMj8TM4W88jITfq7ZmPvIM1Iv-4_l2LxQcYwhqby2xGpWwzjfAnG4"

    // MARK: What a connection asks

    /// A login with a check-in's credentials (`user`, `auth_token`); another connection of the
    /// same client is closed. Nil when they are not a check-in's.
    func login(_ connection: MCSConnection, _ login: MCSLogin) -> Device? {
        guard let id = UInt64(login.user), let checkin = book.checkin(id), checkin.browser,
            UInt64(login.authToken) == checkin.securityToken, let device = device(of: checkin)
        else { return nil }
        if let old = connected[id], old !== connection { old.replaced() }
        connected[id] = connection
        device.realClient?.userAgent = checkin.userAgent.map { $0 + "; MCS " + login.id } ?? "MCS " + login.id
        return device
    }

    /// After the login's answer: what the client says it received is delivered, then it is
    /// online and what waited for it goes out.
    func loggedIn(_ device: Device, received ids: [String]) {
        guard let project = directory[device.projectID] else { return }
        for pid in ids {
            if let messageID = sent.removeValue(forKey: pid) {
                delivery.acknowledgedStored(messageID, by: device, project: project)
            }
        }
        delivery.connected(device, true)
    }

    /// The connection ended: the client is away, and what it had not acknowledged waits again.
    func disconnected(_ connection: MCSConnection, unacknowledged: [Pending]) {
        open[ObjectIdentifier(connection)] = nil
        guard let device = connection.device, let id = connection.androidID else { return }
        if connected[id] === connection {
            connected[id] = nil
            delivery.connected(device, false)
        }
        device.realClient?.unacknowledged -= unacknowledged.count
        if let project = directory[device.projectID] { delivery.unacknowledged(unacknowledged, of: device, project: project) }
    }

    /// The client acknowledged a push.
    func acknowledged(_ item: Pending, persistentID: String, by device: Device) {
        sent[persistentID] = nil
        device.realClient?.unacknowledged -= 1
        if let project = directory[device.projectID] { delivery.acknowledged(item, by: device, project: project) }
    }

    // MARK: ClientDelivery

    /// A push reached the client: a data message on its connection, unacknowledged until it
    /// says so.
    func send(_ item: Pending, to device: Device, project: Project) {
        guard let details = item.message.details as? WebPushDetails, let r = book.registration(details.token) else {
            return delivery.refused(item, by: device, project: project, reason: "subscription_ended")
        }
        guard let connection = connected[r.androidID] else {
            return delivery.unacknowledged([item], of: device, project: project)
        }
        let now = clock.now()
        let persistentID = "0:" + String(now / 1000) + "%" + random.hex(16)
        // Ids of pushes that expired unacknowledged are never named again: the map is bounded
        // by forgetting them all at once (a client naming one then gets nothing twice anyway).
        if sent.count >= Self.maxRemembered { sent.removeAll(keepingCapacity: true) }
        sent[persistentID] = item.messageID
        device.realClient?.unacknowledged += 1
        connection.deliver(
            item, persistentID: persistentID,
            stanza: MCSDataMessage(
                id: item.messageID, from: r.sender, category: r.app, appData: Self.appData(r, details),
                persistentID: persistentID,
                lastStreamIDReceived: 0, ttl: max(0, Int((item.expires - now) / 1_000_000)),
                sentMillis: item.message.receivedAt / 1000, rawData: details.body))
    }

    /// The `app_data` a client needs (docs/reference/fcm-clients.md §5.6): its subtype, then
    /// the coding's keys: `aes128gcm` as `content-encoding`, `aesgcm`'s salt and sender key in
    /// padded base64url and nothing else (firebase-messaging strips exactly `salt=` and `dh=`
    /// and decodes without adding padding).
    static func appData(_ r: ClientBook.GCMRegistration, _ details: WebPushDetails) -> [(String, String)] {
        var out: [(String, String)] = []
        if !r.subtype.isEmpty { out.append(("subtype", r.subtype)) }
        if let aesgcm = details.aesgcm {
            out.append(("encryption", "salt=" + Base64URL.encodePadded(aesgcm.salt)))
            out.append(("crypto-key", "dh=" + Base64URL.encodePadded(aesgcm.senderKey)))
        } else if details.coding == "aes128gcm" {
            out.append(("content-encoding", "aes128gcm"))
        }
        out.append(("google.source", "webpush"))
        return out
    }

    /// A client with `maxUnacknowledged` pushes unacknowledged gets no more until it answers:
    /// they wait, stored, within their TTL.
    func isBusy(_ device: Device) -> Bool {
        guard let id = device.realClient.flatMap({ UInt64($0.clientID) }), let connection = connected[id] else { return false }
        return connection.unacknowledgedCount >= Self.maxUnacknowledged
    }

    // MARK: Time

    /// Each second: a client silent for the heartbeat interval is pinged, and one silent as
    /// long again after the ping is closed.
    func sweep() {
        let now = MonotonicClock.nanos()
        for connection in open.values {
            let silent = now &- connection.lastHeard
            if let pinged = connection.pingedAt {
                if now &- pinged >= heartbeatNanos { connection.close(sendingClose: true) }
            } else if silent >= heartbeatNanos {
                if connection.device == nil {
                    connection.close(sendingClose: false)
                } else {
                    connection.ping(at: now)
                }
            }
        }
    }
}
