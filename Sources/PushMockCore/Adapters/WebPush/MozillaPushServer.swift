/// The Mozilla push protocol's server side (docs/reference/web-push.md §6), as autopush serves
/// it to Firefox: JSON messages over a WebSocket. A browser says `hello` (with its `uaid` when
/// it has subscriptions), `register`s a channel per subscription and gets an endpoint on
/// pushmock's push service, and acknowledges each `notification`. Each browser is a real Web
/// device (`RealClient`) of the default project, kept across its connections; pushes to it
/// wait while it is away, for their TTL, and go out when it says `hello` again. Loop thread only.
final class MozillaPushServer: ClientDelivery {
    /// A browser's subscriptions at most (a flood of `register` holds no unbounded memory).
    static let maxChannels = 1000
    /// autopush closes a connection that has not said `hello` within 5 seconds.
    static let helloTimeout: Timestamp = 5_000_000

    let directory: ProjectDirectory
    let registration: DeviceRegistration
    let delivery: Delivery
    let random: RandomSource
    /// The project real browsers join (`--project`).
    let projectID: String
    /// Connections by the `uaid` they said `hello` with, and those that have not yet.
    private var connected: [String: MozillaConnection] = [:]
    private var greeting: [ObjectIdentifier: MozillaConnection] = [:]
    /// Every browser that said `hello`, by `uaid`.
    private var browsers: [String: Device] = [:]

    init(
        directory: ProjectDirectory, registration: DeviceRegistration, delivery: Delivery, random: RandomSource, projectID: String
    ) {
        self.directory = directory
        self.registration = registration
        self.delivery = delivery
        self.random = random
        self.projectID = projectID
    }

    var clock: Clock { delivery.clock }

    /// A WebSocket opened on the push server's path.
    func connect(_ request: Request) -> Reply {
        let scheme = request.secure ? "https://" : "http://"
        let origin = request.header("host").map { scheme + $0 } ?? ""
        let connection = MozillaConnection(server: self, endpointOrigin: origin, userAgent: request.header("user-agent"))
        greeting[ObjectIdentifier(connection)] = connection
        return .webSocket(connection)
    }

    // MARK: What a connection asks

    /// `hello`: the browser `uaid` names if it is known (and still a device), else a new one.
    /// Another connection of the same browser is closed, as autopush does.
    func hello(_ connection: MozillaConnection, uaid: String?) -> Device? {
        greeting[ObjectIdentifier(connection)] = nil
        var device = uaid.flatMap { browsers[$0] }
        if let d = device, directory[d.projectID]?.devices[d.id] !== d { device = nil }
        if device == nil {
            let client = RealClient(kind: .mozillaPush, clientID: random.hex(32), userAgent: connection.userAgent, carrier: self)
            guard let project = directory.project(projectID),
                let d = registration.registerClient(client, browser: .firefox, in: project)
            else { return nil }
            browsers[client.clientID] = d
            device = d
        }
        guard let device, let client = device.realClient else { return nil }
        client.userAgent = connection.userAgent ?? client.userAgent
        connected[client.clientID]?.replaced()
        connected[client.clientID] = connection
        return device
    }

    /// `register`: a new subscription with an endpoint on this push service (v2 when restricted
    /// to an application server key); the same one again for a channel already registered.
    func register(_ device: Device, channelID: String, key: [UInt8]?, origin: String) -> PushSubscription? {
        guard let client = device.realClient, let project = directory[device.projectID] else { return nil }
        if let old = client.subscriptions.values.first(where: { $0.channelID == channelID }) { return old }
        guard client.subscriptions.count < Self.maxChannels else { return nil }
        let sub = PushSubscription(
            browser: .firefox, origin: origin, token: "gAAAAAB" + random.base64URL(133), applicationServerKey: key,
            privateKey: [],
            publicKey: [], auth: [], channelID: channelID)
        client.subscriptions[sub.token] = sub
        project.devices.add(sub.address, to: device)
        return sub
    }

    /// `unregister`: the endpoint answers 410 from now on.
    func unregister(_ device: Device, channelID: String) {
        guard let client = device.realClient, let project = directory[device.projectID],
            let sub = client.subscriptions.values.first(where: { $0.channelID == channelID })
        else { return }
        client.subscriptions[sub.token] = nil
        project.devices.remove(sub.address, from: device, at: clock.now())
    }

    /// The connection ended: the browser is away, and what it had not acknowledged waits again.
    func disconnected(_ connection: MozillaConnection) {
        greeting[ObjectIdentifier(connection)] = nil
        guard let device = connection.device, let client = device.realClient else { return }
        if connected[client.clientID] === connection {
            connected[client.clientID] = nil
            delivery.connected(device, false)
        }
        let waiting = connection.takeUnacknowledged()
        client.unacknowledged -= waiting.count
        if let project = directory[device.projectID] { delivery.unacknowledged(waiting, of: device, project: project) }
    }

    /// An `ack` or `nack` for a push: what the browser did with it.
    func answered(_ item: Pending, by device: Device, code: Int, nack: Bool) {
        guard let project = directory[device.projectID] else { return }
        device.realClient?.unacknowledged -= 1
        switch (nack, code) {
        case (false, 100): delivery.acknowledged(item, by: device, project: project)
        case (false, 101): delivery.refused(item, by: device, project: project, reason: DropReason.undecryptable.rawValue)
        case (false, 102): delivery.refused(item, by: device, project: project, reason: "not_delivered")
        case (true, _): delivery.refused(item, by: device, project: project, reason: "service_worker_error_\(code)")
        default: delivery.refused(item, by: device, project: project, reason: "ack_code_\(code)")
        }
    }

    // MARK: ClientDelivery

    /// A push reached the browser: sent over its connection, unacknowledged until it answers.
    func send(_ item: Pending, to device: Device, project: Project) {
        guard let client = device.realClient, let connection = connected[client.clientID],
            let token = (item.message.details as? WebPushDetails)?.token, let sub = client.subscriptions[token],
            let channelID = sub.channelID
        else {
            return delivery.refused(item, by: device, project: project, reason: "subscription_ended")
        }
        client.unacknowledged += 1
        connection.notify(item, channelID: channelID)
    }

    /// Closes connections that did not say `hello` in time (the gateway's sweep, each second).
    func sweep() {
        let now = MonotonicClock.nanos()
        for connection in greeting.values where now &- connection.openedAt > UInt64(Self.helloTimeout) * 1000 {
            greeting[ObjectIdentifier(connection)] = nil
            connection.close(code: 1002, reason: "no hello")
        }
    }
}
