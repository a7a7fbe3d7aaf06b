/// Fan-out and delivery: what becomes of an accepted message on each device. FCM and APNs
/// store messages for offline devices (`Delivery+OfflineStore.swift`); the device model
/// decides what an online phone does. Everything that happens is appended to the log.
/// Loop thread only.
final class Delivery {
    let log: EventLog
    let clock: Clock
    let configuration: Configuration
    let directory: ProjectDirectory
    private let random: RandomSource
    /// Devices with stored or held messages, for expiry; keyed by project and device id.
    var waiting: [String: Device] = [:]
    /// The rest of the last broadcast, when it reached more devices than one slice: the
    /// gateway carries it on in slices (`Delivery+FanOut.swift`).
    var unfinishedFanOut: FanOut?
    /// Sends accepted, by API (legacy, v1, apns): three, found by a scan (every send counts one).
    private(set) var acceptedByAPI: [(api: String, count: Int)] = []
    /// The browsers' push services, which FCM hands its sends to Web devices (the Web Push
    /// module, set once by the gateway; weak, as it holds this part). Without one, FCM's
    /// sends reach Web devices directly.
    weak var pushService: (any PushServiceRelay)?

    init(log: EventLog, clock: Clock, configuration: Configuration, directory: ProjectDirectory, random: RandomSource) {
        self.log = log
        self.clock = clock
        self.configuration = configuration
        self.directory = directory
        self.random = random
    }

    /// Records a send, whichever API it came through, so `GET .../messages` finds it: an
    /// accepted one, or (`refused`) one refused for its recipient, whose fate is the refusal.
    func accept(
        api: String, format: MessageFormat, options: PushOptions, target: Message.Target,
        request: Request, project: Project, id: String, bulkID: Int64?, dryRun: Bool = false, refused: Bool = false
    ) -> Message {
        let message = Message(
            id: id, projectID: project.id, projectNumber: project.number, api: api, target: target,
            options: options, format: format, requestBytes: request.body,
            requestHead: RequestHead(method: request.method, path: request.path, headers: request.headers),
            receivedAt: clock.now(),
            bulkID: bulkID, dryRun: dryRun)
        if !refused { countAccepted(api) }
        message.overHTTP2 = request.connection?.isHTTP2 == true
        message.overTLS = request.secure
        project.messages.add(message)
        return message
    }

    private func countAccepted(_ api: String) {
        if let i = acceptedByAPI.firstIndex(where: { $0.api == api }) {
            acceptedByAPI[i].count += 1
        } else {
            acceptedByAPI.append((api, 1))
        }
    }

    /// The devices subscribed to a topic, as the topic holds them (not copied: a topic may
    /// have a million).
    func subscribers(_ topic: String, in project: Project) -> [Device] {
        project.topics[topic]?.devices ?? []
    }

    /// Logs acceptance for one device, then stores or delivers the message.
    func deliver(_ message: Message, messageID: String, to device: Device, project: Project, now: Timestamp? = nil) {
        let now = now ?? clock.now()
        log.append(
            kind: .messageAccepted, time: now, projectID: project.id, projectNumber: project.number,
            message: message, messageID: messageID, device: device)
        message.accepted += 1
        // FCM sends to a browser through its push service, which delivers it as its own push.
        if device.platform == .web, !message.format.direct, device.isSubscribed, let relay = pushService {
            relay.carry(message, messageID: messageID, to: device, project: project)
            return
        }
        let item = Pending(message: message, messageID: messageID, since: now, expires: message.expiry(on: device.platform))
        if device.platform == .android, device.idle(at: now) > DeviceModel.inactiveAfter {
            record(.messageDropped, item, device, project, reason: DropReason.deviceInactive.rawValue, at: now)
        } else if let why = mustWait(item, device) {
            store(item, for: device, project: project, because: why)
        } else {
            arrive(item, at: device, project: project, now: now)
        }
    }

    /// Why the service keeps a message instead of delivering it now: the device is offline,
    /// an Android device dozes (Low Power Mode) and the message has normal priority
    /// (docs/reference/delivery-rules.md §F.2), or the app has used up its collapsible
    /// messages for now (`DeviceModel.collapsibleBurst`).
    func mustWait(_ item: Pending, _ device: Device) -> String? {
        if !device.state.online { return "device_offline" }
        if let carrier = device.realClient?.carrier, carrier.isBusy(device) { return "client_busy" }
        guard device.platform == .android else { return nil }
        if device.state.lowPowerMode, item.message.options.priority == .normal { return "device_doze" }
        if isCollapsible(item, on: device), DeviceModel.refillCollapsibleAllowance(device, at: clock.now()) == 0 {
            return "message_throttled"
        }
        return nil
    }

    /// A collapsible message to an Android app, while per-device limits are on
    /// (`--device-rate-limit 0` turns them off, this throttle included).
    private func isCollapsible(_ item: Pending, on device: Device) -> Bool {
        configuration.deviceRateLimit > 0 && device.platform == .android
            && DeviceModel.collapseKey(item.message, on: device) != nil
    }

    /// A message reaches an online device: the device model decides its fate.
    func arrive(_ item: Pending, at device: Device, project: Project, now: Timestamp) {
        // A real client decides for itself; its connection says what it did (`acknowledged`).
        if let carrier = device.realClient?.carrier {
            carrier.send(item, to: device, project: project)
            return
        }
        if isCollapsible(item, on: device) { device.delivery.collapsibleAllowance -= 1 }
        let options = item.message.options
        let budgeted = device.platform == .ios && !options.isNotification && device.state.appState != .foreground
        let budgetLeft = !budgeted || backgroundBudgetLeft(device, now: now)
        switch DeviceModel.arrival(item.message, on: device, budgetLeft: budgetLeft) {
        case .shown(let how):
            if budgeted { device.delivery.backgroundDeliveries.append(now) }
            show(item, on: device, how, project: project, now: now)
        case .held:
            if let old = device.delivery.held {
                record(.messageDropped, old, device, project, reason: DropReason.backgroundBudgetExhausted.rawValue)
            }
            device.delivery.held = item
            waiting[Self.waitingKey(device)] = device
            record(.messageStored, item, device, project, reason: DropReason.backgroundBudgetExhausted.rawValue)
        case .dropped(let reason):
            record(.messageDropped, item, device, project, reason: reason.rawValue)
        }
    }

    private func show(_ item: Pending, on device: Device, _ how: InboxEntry.Shown, project: Project, now: Timestamp) {
        device.receive(InboxEntry(message: item.message, messageID: item.messageID, receivedAt: now, shown: how))
        let delay = now - item.since
        let waited = delay > 0 ? delay : nil
        record(.messageDelivered, item, device, project, delay: waited, at: now)
        switch how {
        case .presented:
            let options = device.state.presentationOptions.map(\.rawValue).joined(separator: ",")
            record(.messagePresented, item, device, project, reason: "options:" + options, at: now)
        case .displayed:
            record(.messageDisplayed, item, device, project, at: now)
            if device.platform == .android { record(.messageImpression, item, device, project, at: now) }
        case .quietly:
            record(.messageDisplayed, item, device, project, reason: "provisional", at: now)
        case .app where device.platform == .web && item.message.format.direct:
            // The service worker showed nothing: Chrome then shows its own notice (docs/device-model.md).
            if device.pushSubscription?.browser == .chrome {
                record(.messageDisplayed, item, device, project, reason: "site_updated_in_background", at: now)
            }
        case .app, .page:
            break
        }
    }

    /// iOS background pushes allowed per hour per app (`--background-budget`).
    func backgroundBudgetLeft(_ device: Device, now: Timestamp) -> Bool {
        let hourAgo = now - 3_600_000_000
        device.delivery.backgroundDeliveries.removeAll { $0 <= hourAgo }
        return device.delivery.backgroundDeliveries.count < configuration.backgroundBudget
    }

    /// Logs one event of a message on a device, at `time` (the clock's now if not given).
    func record(
        _ kind: EventKind, _ item: Pending, _ device: Device, _ project: Project,
        reason: String? = nil, delay: Timestamp? = nil, at time: Timestamp? = nil
    ) {
        log.append(
            kind: kind, time: time ?? clock.now(), projectID: project.id, projectNumber: project.number,
            message: item.message, messageID: item.messageID, device: device, reason: reason, delay: delay)
    }

    /// Why a device that is registered cannot take this message, if it cannot.
    func refusal(of device: Device, _ options: PushOptions, project: Project) -> Refusal? {
        if let restricted = options.restrictedPackageName, device.platform == .android, restricted != device.app {
            return .wrongApp
        }
        // A subscription made with another `applicationServerKey` than the project's key
        // refuses FCM's VAPID signature.
        if device.platform == .web, let key = device.pushSubscription?.applicationServerKey, device.isSubscribed,
            key != project.webPushKey?.publicKey, pushService != nil
        {
            return .pushServiceAuth
        }
        if device.platform == .ios {
            let app = project.app(.ios, device.app)
            guard let env = device.apnsEnvironment, app?.apnsCredentials.contains(env) == true else {
                return .missingCredential
            }
        }
        return nil
    }

    /// Logs a send (or one recipient of it) that was refused, as `kind` with `reason`; the
    /// message counts one more failure.
    func logRejection(
        _ kind: EventKind, reason: String, project: Project, message: Message? = nil, messageID: String? = nil,
        device: Device? = nil, token: String? = nil, type: MessageType? = nil
    ) {
        log.append(
            kind: kind, time: clock.now(), projectID: project.id, projectNumber: project.number,
            message: message, messageID: messageID, messageType: type, device: device, token: token,
            reason: reason)
        message?.failed += 1
    }

    /// A send the transport could not read whole (over `--max-body-bytes`, or malformed), as
    /// a send route logs it: nothing while the log cannot be written.
    func logUnread(_ error: FramingError, project: Project, storeFailing: Bool) {
        guard !storeFailing else { return }
        logRejection(
            error == .tooLarge ? .payloadTooLarge : .invalidParameters,
            reason: error == .tooLarge ? "request_too_large" : "malformed_request", project: project)
    }

    /// The devices a condition reaches: subscribers of its topics, or every device of the
    /// project when the condition holds for a device with no topics (e.g. `!('a' in topics)`).
    func devices(matching condition: Condition, in project: Project) -> [Device] {
        if condition.matches({ _ in false }) {
            return project.devices.inOrder.filter { d in condition.matches { d.topics[$0] != nil } }
        }
        var seen: Set<ObjectIdentifier> = []
        var reached: [Device] = []
        for topic in Set(condition.topics) {
            for d in project.topics[topic]?.devices ?? [] where condition.matches({ d.topics[$0] != nil }) {
                if seen.insert(ObjectIdentifier(d)).inserted { reached.append(d) }
            }
        }
        return reached
    }
    /// The live device a token names in this project, or why there is none.
    func lookup(token: String, project: Project) -> Result<Device, Refusal> {
        if token.isEmpty { return .failure(.noAddress) }
        if let device = project.devices.withToken(token) {
            // A token idle for 270 days is expired (docs/reference/delivery-rules.md §F.2).
            if device.idle(at: clock.now()) > DeviceModel.tokenExpiresAfter { return .failure(.unregistered) }
            return .success(device)
        }
        if directory.owner(ofToken: token) != nil { return .failure(.otherSender) }
        // Every token pushmock issued or accepted has this shape, so uninstalled, refreshed
        // and reset tokens are unregistered without being remembered.
        return .failure(Identifiers.looksLikeRegistrationToken(token) ? .unregistered : .malformedAddress)
    }

    /// The outcome for one addressed token: a device to deliver to, or why not.
    func check(token: String, _ options: PushOptions, project: Project) -> Result<Device, Refusal> {
        lookup(token: token, project: project).flatMap { device in
            refusal(of: device, options, project: project).map { .failure($0) } ?? .success(device)
        }
    }

    /// Applies a device's new state and its consequences: back online (or awake) delivers
    /// what was stored, launching the app hands over a held background push, force-quit
    /// discards it, enabling auto-init gives the device a token.
    func change(_ d: Device, to state: DeviceState, apnsEnvironment: APNsEnvironment? = nil, project: Project) {
        let old = d.state
        let now = clock.now()
        project.devices.update(d, state: state, apnsEnvironment: apnsEnvironment ?? d.apnsEnvironment)
        if old.online != state.online { d.markSeen(at: now) }
        if d.token != nil || d.isSubscribed, !state.hasPushSubscription(on: d.platform) {
            // A browser drops the push subscription of an origin whose permission is
            // withdrawn: its endpoint (410 from then on), token and topic subscriptions are
            // gone, and so is what waited.
            dropWaiting(d, project: project, reason: .subscriptionRevoked)
            project.topics.unsubscribeAll(d)
            project.devices.reassign(d, token: nil)
            project.devices.unsubscribe(d, at: now)
        }
        if state.autoInitEnabled, d.token == nil, state.hasPushSubscription(on: d.platform) {
            project.devices.reassign(d, token: Identifiers.registrationToken(fid: d.fid, random))
        }
        if state.appState == .terminated, old.appState != .terminated {
            discardHeld(d, project: project, reason: .appTerminated)
        }
        if state.appState == .foreground, old.appState != .foreground { releaseHeld(d, project: project) }
        if state.online, !old.online || (old.lowPowerMode && !state.lowPowerMode) { flush(d, project: project) }
    }
}

/// A browser's push service as FCM uses it: FCM encrypts what it sends to a Web device for the
/// device's push subscription, signs it with the project's VAPID key and POSTs it to the
/// subscription's endpoint, where it becomes a push of its own (`Message.forwarding`). The Web
/// Push module is one.
protocol PushServiceRelay: AnyObject {
    func carry(_ message: Message, messageID: String, to device: Device, project: Project)
}

/// The connections of real clients (`RealClient`): a push that reaches one is sent over its
/// connection, and what the client answers is reported back (`Delivery.acknowledged`,
/// `Delivery.refused`, `Delivery.unacknowledged`).
protocol ClientDelivery: AnyObject {
    func send(_ item: Pending, to device: Device, project: Project)
    /// The client has as many pushes unacknowledged as it may: more wait, stored, until it
    /// answers.
    func isBusy(_ device: Device) -> Bool
}

extension ClientDelivery {
    func isBusy(_ device: Device) -> Bool { false }
}
