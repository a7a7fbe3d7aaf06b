/// Every rule of registering a device, and everything the client SDK or the user does to a
/// registration: enable auto-init, refresh the token, reinstall or uninstall the app, change
/// its state, subscribe to topics. The control API, the `--seed` loader and the restart call it
/// (and the SDK-facing registration APIs will), each answering a `RegistrationError` in its own
/// shape. Loop thread only.
struct DeviceRegistration {
    let directory: ProjectDirectory
    /// Carries out what a change of state or an uninstall sets off; its clock dates them.
    let delivery: Delivery
    /// Makes FIDs, tokens and APNs tokens.
    let random: RandomSource
    /// `--strict-apps`: a device's app must be registered first.
    let strictApps: Bool
    /// Makes Web devices' push subscriptions.
    let subscriptions: PushSubscriptionMaker

    /// Checks a registration and adds the device; what was not given, pushmock makes (the next
    /// `dN` id, an FID, a registration token, an APNs token).
    func register(_ spec: DeviceSpec, in project: Project) throws(RegistrationError) -> Device {
        let platform = spec.platform
        guard !spec.app.isEmpty else {
            throw .invalid("Missing required field 'app' (a bundle id, package name or web origin).")
        }
        try Self.checkApp(spec.app, on: platform)
        try Self.check(spec.state, for: platform)
        if project.app(platform, spec.app) == nil {
            guard !strictApps else {
                throw .failedPrecondition(
                    "App \(platform.rawValue)/\(spec.app) is not registered in project \(project.id) (--strict-apps).")
            }
            project.addApp(platform, spec.app, credentials: [.sandbox, .production])
        }
        let fid = spec.fid ?? Identifiers.fid(random)
        let token = spec.token ?? Identifiers.registrationToken(fid: fid, random)
        if let t = spec.token, !Identifiers.looksLikeRegistrationToken(t) {
            throw .invalid("Invalid value at 'token': not a registration token.")
        }
        if let a = spec.apnsToken,
            a.utf8.count != 64 || !a.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            throw .invalid("Invalid value at 'apns_token': expected 64 lower-case hex digits.")
        }
        if spec.token != nil && !spec.state.autoInitEnabled {
            throw .invalid("A device with 'auto_init_enabled': false has no token yet; do not give one.")
        }
        if spec.token != nil && !spec.state.hasPushSubscription(on: platform) {
            throw .invalid("A web device without notification permission has no push subscription; do not give a token.")
        }
        if directory.holds(token: token, orFID: fid) { throw .conflict("A device with this token or fid already exists.") }
        return try add(spec, fid: fid, token: token, in: project)
    }

    /// Another device like one `register` accepted (`devices:batchCreate`): the spec's rules
    /// are not checked again, and the FID and token, made here, are not looked up: 126 and
    /// more random bits do not collide. The id is claimed as ever.
    func registerAnother(like spec: DeviceSpec, in project: Project) throws(RegistrationError) -> Device {
        try add(spec, fid: nil, token: Identifiers.registrationTokenWithNewFID(random), in: project)
    }

    /// A device of the saved state, as pushmock saved it when it was registered: its rules
    /// (app, state, the tokens' shapes) are not checked again. What keeps the indexes sound
    /// is: its id, FID and tokens must be free (a damaged store could repeat them).
    func restore(_ spec: consuming DeviceSpec, in project: Project) throws(RegistrationError) -> Device {
        guard let fid = spec.fid else { throw .invalid("Missing required field 'fid'.") }
        let token = spec.token ?? Identifiers.registrationToken(fid: fid, random)
        if directory.holds(token: token, orFID: fid) { throw .conflict("A device with this token or fid already exists.") }
        let app =
            project.app(spec.platform, spec.app) ?? project.addApp(spec.platform, spec.app, credentials: [.sandbox, .production])
        // The app's own name: one String for all its devices, as a batch registration holds it.
        spec.app = app.name
        return try add(spec, fid: fid, token: token, in: project)
    }

    /// A saved device's topic: its name was checked when it subscribed; false when it cannot
    /// be subscribed (a damaged store).
    func restoreTopic(_ name: String, of d: Device, in project: Project) -> Bool {
        project.topics.subscribe(d, to: name, at: delivery.clock.now())
    }

    /// Makes the device a checked spec describes, with its FID and token, and adds it. `fid`
    /// nil: the token begins with a new one (a batch makes no String of it unless the device
    /// holds no token).
    private func add(_ spec: DeviceSpec, fid: String?, token: String, in project: Project) throws(RegistrationError) -> Device {
        let platform = spec.platform
        let subscription = try platform == .web && spec.state.hasPushSubscription(on: .web) ? webPush(spec) : nil
        let id = try deviceID(spec.id, in: project)
        let holdsToken = spec.state.autoInitEnabled && spec.state.hasPushSubscription(on: platform)
        let device = Device(
            id: id, platform: platform, app: spec.app, projectID: project.id,
            fid: fid ?? (holdsToken ? nil : token.withBytes { String(decoding: Device.fid(inToken: $0)!, as: UTF8.self) }),
            token: holdsToken ? token : nil,
            apnsToken: platform == .ios ? (spec.apnsToken ?? Identifiers.apnsToken(random)) : nil,
            apnsEnvironment: spec.apnsEnvironment, state: spec.state, createdAt: delivery.clock.now())
        if let subscription { device.resubscribe(subscription) }
        project.devices.insert(device)
        return device
    }

    /// A Web device's push subscription: the one given whole, or a new one for its browser.
    private func webPush(_ spec: DeviceSpec) throws(RegistrationError) -> PushSubscription? {
        let browser = spec.browser ?? .chrome
        guard let token = spec.pushToken, let key = spec.pushPrivateKey, let auth = spec.pushAuth else {
            return try subscriptions.make(browser, applicationServerKey: spec.applicationServerKey, origin: spec.pushOrigin)
        }
        if directory.device(at: DeviceAddress(.webPushEndpoint, token)) != nil {
            throw .conflict("A device with this push subscription already exists.")
        }
        return try subscriptions.restore(
            browser, origin: spec.pushOrigin ?? subscriptions.ownOrigin, token: token, privateKey: key, auth: auth,
            applicationServerKey: spec.applicationServerKey)
    }

    /// `PushSubscription.unsubscribe()`: the endpoint is gone (410), and with it the FCM token
    /// the Firebase SDK made from it.
    func unsubscribe(_ d: Device, project: Project) throws(RegistrationError) {
        guard d.isSubscribed else { throw .failedPrecondition("The device has no push subscription.") }
        delivery.dropWaiting(d, project: project, reason: .subscriptionRevoked)
        project.devices.unsubscribe(d, at: delivery.clock.now())
        project.topics.unsubscribeAll(d)
        project.devices.reassign(d, token: nil)
    }

    /// `pushManager.subscribe()` again after an unsubscribe or a lost subscription: a new
    /// endpoint and keys for the same browser, push service and application server key (or
    /// the key given), and a new FCM token when the Firebase SDK would make one.
    func subscribe(_ d: Device, applicationServerKey: [UInt8]?, project: Project) throws(RegistrationError) {
        guard d.platform == .web else { throw .failedPrecondition("Only web devices have push subscriptions.") }
        guard d.state.hasPushSubscription(on: .web) else {
            throw .failedPrecondition(
                "The browser has no notification permission: grant it first ('notifications': 'authorized').")
        }
        try renewSubscription(d, applicationServerKey: applicationServerKey, project: project)
        if d.token == nil, d.state.autoInitEnabled {
            project.devices.reassign(d, token: Identifiers.registrationToken(fid: d.fid, random))
        }
    }

    /// A new subscription in place of the last one.
    private func renewSubscription(_ d: Device, applicationServerKey: [UInt8]?, project: Project) throws(RegistrationError) {
        let last = d.pushSubscription
        guard
            let new = try subscriptions.make(
                last?.browser ?? .chrome, applicationServerKey: applicationServerKey ?? last?.applicationServerKey,
                origin: last?.origin)
        else { return }
        project.devices.subscribe(d, new, at: delivery.clock.now())
    }

    /// A real browser that connected itself (`RealClient`): a Web device of the project whose
    /// app is the browser (a push protocol does not say which sites subscribed), with no FCM
    /// token until an FCM client registers one; online when it registered over its connection.
    /// `id` restores a saved one. Nil when
    /// `--max-devices` leaves no room.
    func registerClient(
        _ client: RealClient, browser: Browser, in project: Project, id: String? = nil, online: Bool = true
    ) -> Device? {
        guard directory.roomForDevices > 0, let id = project.devices.claimID(id) else { return nil }
        var state = DeviceState()
        state.online = online
        let device = Device(
            id: id, platform: .web, app: browser.rawValue, projectID: project.id, fid: Identifiers.fid(random), token: nil,
            apnsToken: nil, apnsEnvironment: nil, state: state, createdAt: delivery.clock.now())
        device.realClient = client
        project.devices.insert(device)
        return device
    }

    /// A token a real app's Firebase SDK registered (`RealClient` of kind `firebaseSDK`): a Web
    /// device carrying the browser's own subscription, or an iOS device with the APNs token the
    /// app sent, in the app it named. `id` and `createdAt` restore a saved one. Nil when
    /// `--max-devices` leaves no room, or the token or FID is another device's.
    func registerSDKDevice(
        _ client: RealClient, platform: Platform, app: String, fid: String, token: String?, apns: (String, APNsEnvironment)?,
        subscription: PushSubscription?, in project: Project, id: String? = nil
    ) -> Device? {
        guard directory.roomForDevices > 0, token.flatMap({ directory.owner(ofToken: $0) }) == nil,
            directory.device(at: .installation(fid)) == nil, let id = project.devices.claimID(id)
        else { return nil }
        // An iOS app needs its APNs credentials; a Web device's app is only its label (the
        // page's origin, or the Firebase app id a client without one registered with).
        if platform == .ios, project.app(platform, app) == nil {
            project.addApp(platform, app, credentials: [.sandbox, .production])
        }
        let device = Device(
            id: id, platform: platform, app: app, projectID: project.id, fid: fid, token: token, apnsToken: apns?.0,
            apnsEnvironment: apns?.1, state: DeviceState(), createdAt: delivery.clock.now())
        device.realClient = client
        if let subscription { device.carry(subscription) }
        project.devices.insert(device)
        return device
    }

    /// The given id (checked, unique; a `dN` one moves the numbering past it), or the next `dN`.
    private func deviceID(_ given: String?, in project: Project) throws(RegistrationError) -> String {
        if let given {
            // (On the bytes in place, not through `utf8`'s iterator: a restart checks a million saved ids.)
            guard (1...64).contains(given.utf8.count),
                given.withBytes({ b in
                    b.allSatisfy { c in
                        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D
                            || c == 0x5F
                    }
                })
            else { throw .invalid("Invalid value at 'id': use 1-64 letters, digits, '-' or '_'.") }
        }
        guard let id = project.devices.claimID(given) else {
            throw .conflict("A device with id \(given ?? "") already exists.")
        }
        return id
    }

    /// Changes the device's state (and APNs environment), with its consequences
    /// (`Delivery.change`); a state the platform cannot be in is refused first.
    func change(_ d: Device, to state: DeviceState, apnsEnvironment: APNsEnvironment?, project: Project) throws(RegistrationError)
    {
        try Self.check(state, for: d.platform)
        if apnsEnvironment != nil, d.platform != .ios {
            throw .invalid("'apns_environment' applies to iOS devices only.")
        }
        delivery.change(d, to: state, apnsEnvironment: apnsEnvironment, project: project)
        // Permission granted again: the page subscribes anew (Chrome dropped the old one).
        if d.platform == .web, !d.isSubscribed, state.hasPushSubscription(on: .web) {
            try renewSubscription(d, applicationServerKey: nil, project: project)
        }
    }

    /// The app was uninstalled: the device is gone and its token unregistered.
    func uninstall(_ d: Device, project: Project) {
        delivery.dropWaiting(d, project: project)
        project.remove(d, at: delivery.clock.now())
    }

    /// `Messaging.messaging().isAutoInitEnabled = true`: a device without a token gets one.
    func enableAutoInit(_ d: Device, project: Project) {
        var state = d.state
        state.autoInitEnabled = true
        delivery.change(d, to: state, project: project)
    }

    /// The SDK got a new registration token for the same installation; the old one is stale.
    func refreshToken(_ d: Device, project: Project) throws(RegistrationError) {
        guard d.token != nil else { throw .failedPrecondition("The device has no token yet (auto-init is off).") }
        project.devices.reassign(d, token: Identifiers.registrationToken(fid: d.fid, random))
    }

    /// The app was deleted and installed again: a new installation (FID), token and APNs
    /// token; subscriptions and anything stored are gone.
    func reinstall(_ d: Device, project: Project) {
        delivery.dropWaiting(d, project: project)
        project.topics.unsubscribeAll(d)
        let fid = Identifiers.fid(random)
        project.devices.reassign(
            d,
            token: d.state.autoInitEnabled && d.state.hasPushSubscription(on: d.platform)
                ? Identifiers.registrationToken(fid: fid, random) : nil,
            fid: fid)
        if d.platform == .ios { project.devices.reassignAPNs(d, token: Identifiers.apnsToken(random), at: delivery.clock.now()) }
        // Site data cleared: the old subscription is gone and the page subscribes anew.
        if d.platform == .web, d.state.hasPushSubscription(on: .web) {
            try? renewSubscription(d, applicationServerKey: nil, project: project)
        }
    }

    /// The client SDK's `subscribe(toTopic:)` / `unsubscribe(fromTopic:)`.
    func setTopic(_ name: String, of d: Device, in project: Project, subscribed subscribe: Bool) throws(RegistrationError) {
        let topic = Topic.bareName(name)
        guard Topic.isValidName(topic) else {
            throw .invalid("Invalid topic name '\(topic)': it must match [a-zA-Z0-9-_.~%]+.")
        }
        if subscribe {
            guard project.topics.subscribe(d, to: topic, at: delivery.clock.now()) else {
                throw .failedPrecondition("TOO_MANY_TOPICS: a device can subscribe to at most \(Topic.maxPerInstance) topics.")
            }
        } else {
            project.topics.unsubscribe(d, from: topic)
        }
    }

    /// What a platform cannot be: a browser has no force-stop, provisional permission or Low
    /// Power Mode for a web app (docs/device-model.md, "Web").
    static func check(_ state: DeviceState, for platform: Platform) throws(RegistrationError) {
        guard platform == .web else { return }
        if state.appState == .terminated {
            throw .invalid(
                "A web app cannot be force-stopped: use app_state foreground (page visible), background or not_running, and online false for a closed browser."
            )
        }
        if state.notifications == .provisional {
            throw .invalid("Browsers have no provisional permission: use authorized, denied or not_determined.")
        }
        if state.lowPowerMode { throw .invalid("'low_power_mode' applies to phones, not web devices.") }
    }

    /// A web app is named by its origin, where its service worker runs: push needs a secure
    /// context, so `https://host[:port]`, or `http://localhost` / `http://127.0.0.1` as
    /// browsers allow for development (docs/device-model.md, "Web").
    /// An app's name by its platform's rules (docs/device-model.md, "App names"): an Android
    /// application id is letters, digits, `_` and `.`, each part starting with a letter, at most
    /// 150 (Google Play's limit); an iOS bundle id is letters, digits, `-` and `.`, at most 155
    /// (App Store Connect's); a web app is its origin.
    static func checkApp(_ name: String, on platform: Platform) throws(RegistrationError) {
        func bytes(_ allowed: (UInt8) -> Bool) -> Bool { name.utf8.allSatisfy(allowed) }
        func alphanumeric(_ c: UInt8) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
        }
        switch platform {
        case .android:
            // Android's rule: segments each starting with a letter, of letters, digits and '_'
            // (developer.android.com, "Set the application ID"). Its two-segment minimum is not
            // enforced: fixtures in use, pushmock's own among them, name apps with one segment.
            func letter(_ c: UInt8) -> Bool { (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
            var segmentStart = true
            let valid = name.utf8.allSatisfy { c in
                defer { segmentStart = c == 0x2E }
                return segmentStart ? letter(c) : alphanumeric(c) || c == 0x5F || c == 0x2E
            }
            guard name.utf8.count <= 150, valid, !segmentStart else {
                throw .invalid(
                    "Invalid value at 'app': an Android application id is parts joined by '.' (com.example.app), each starting with a letter, of letters, digits and '_', at most 150 characters; not \"\(name.prefix(200))\"."
                )
            }
        case .ios:
            // Apple's rule: letters, digits, '-' and '.' (a reverse-DNS string), at most 155.
            guard !name.isEmpty, name.utf8.count <= 155, bytes({ alphanumeric($0) || $0 == 0x2D || $0 == 0x2E }),
                !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            else {
                throw .invalid(
                    "Invalid value at 'app': an iOS bundle id is letters, digits, '-' and '.' in parts joined by '.' (com.example.app), at most 155 characters; not \"\(name.prefix(200))\"."
                )
            }
        case .web: try checkWebOrigin(name)
        }
    }

    static func checkWebOrigin(_ name: String) throws(RegistrationError) {
        let rest: Substring
        if name.hasPrefix("https://") {
            rest = name.dropFirst(8)
        } else if name.hasPrefix("http://localhost") || name.hasPrefix("http://127.0.0.1") {
            rest = name.dropFirst(7)
        } else {
            throw .invalid(
                "Invalid value at 'app': a web app is its origin, https://host[:port] (or http://localhost), not \"\(name)\".")
        }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw .invalid("Invalid value at 'app': an origin has no path, query or fragment: \"\(name.prefix(200))\".")
        }
        guard case .success = WebhookURL.parse(name) else {
            throw .invalid(
                "Invalid value at 'app': \"\(name.prefix(200))\" is not an origin (a host name or address, and a port).")
        }
    }
}
