/// The gateway: the shared parts and the protocol modules, built once here, and the one entry
/// point the transport calls. Each part owns its state and each module holds what its routes
/// use (docs/ARCHITECTURE.md); the modules fill the route table (`Routes`). Everything runs on
/// the loop thread; nothing in here knows about sockets.
public final class Gateway {
    public let configuration: Configuration
    public let clock: Clock
    public let log: EventLog
    /// Which rows of the state a restart keeps changed (the server saves those).
    public let changes: StateChanges
    public let readers: EventReaders

    /// The shared parts the start-up, the saved state and `/metrics` read.
    let directory: ProjectDirectory
    let credentials: Credentials
    let delivery: Delivery
    /// Registers the devices of a fixture or saved state.
    let registration: DeviceRegistration
    let bridges: Bridges

    /// Google's client side (Installations, registrations, check-in, MCS): its saved state and
    /// its MCS connections are the gateway's to hand out.
    private(set) var fcmClients: FCMClientsModule?
    /// The APIs pushmock serves, in the order their routes are tried.
    private(set) var modules: [any GatewayModule] = []
    /// `--sync always`: waits until the log is on disk through a seq.
    private let waitUntilStored: ((Int64) -> Bool)?
    private let isStored: ((Int64) -> Bool?)?
    /// Requests by route and status, and how long they took, for `/metrics`.
    private(set) var metrics = Metrics()
    private var router = Router<Routes.Endpoint>()
    /// Send routes' records of pushes the transport could not read, by route index.
    private var unread: [Int: Routes.Unread] = [:]
    /// Who may use the control API and dashboard.
    private let exposure: Exposure
    /// The router's answer for the last method and path: a client sending to one route (a
    /// load test, a worker pushing to one project) skips the table walk.
    /// (A class, not a tuple: a tuple is copied whole, through the run time's generic tuple
    /// code, at every look.)
    private var lastRoute: RouteMemo?
    /// Stored events the start could not put back into the log (`resume`).
    public internal(set) var unrestored = Unrestored()
    /// How long the last `handle` took (monotonic ns): the transport bounds a connection's
    /// turn by it.
    public private(set) var lastRequestNanos: UInt64 = 0
    /// The last request's status (0 for a dropped connection), for the access log.
    public private(set) var lastStatus = 0
    var routeNames: [String] { router.names }

    /// Builds every part and module; with a durable log, resumes its saved state and newest
    /// events before any request is served. Throws when the saved state is not a valid fixture.
    public init(
        configuration: Configuration, clock: Clock? = nil, seed: UInt64? = nil,
        services: ServerServices = ServerServices()
    ) throws(SeedError) {
        let clock = clock ?? Clock(mode: configuration.clock)
        let log = EventLog(capacity: configuration.maxEvents)
        // Changes are kept for a store to write; with none, keeping them would only grow.
        let changes = StateChanges()
        changes.recording = services.durableLog != nil || configuration.dataDirectory != nil
        let random = RandomSource(seed: seed)
        let ids = MessageIDs(random: random, clock: clock)
        let storeFailing = services.durableLog?.isFailing ?? { false }
        let directory = ProjectDirectory(configuration: configuration, changes: changes)
        let credentials = Credentials(
            keys: services.keys, webPush: services.webPush, directory: directory, clock: clock, configuration: configuration,
            changes: changes)
        let delivery = Delivery(log: log, clock: clock, configuration: configuration, directory: directory, random: random)
        let chaos = Chaos(log: log, clock: clock, seed: configuration.chaosSeed)
        let quotas = Quotas(configuration: configuration, clock: clock)
        let bridges = Bridges(
            log: log, clock: clock, directory: directory, changes: changes, carrier: services.bridgeCarrier,
            configuration: configuration, random: random)
        let subscriptions = PushSubscriptionMaker(
            crypto: services.webPush, random: random, realHosts: configuration.webPushRealHosts,
            ownOrigin: "http://\(Self.originHost(configuration.host)):\(configuration.port)")
        let registration = DeviceRegistration(
            directory: directory, delivery: delivery, random: random, strictApps: configuration.strictApps,
            subscriptions: subscriptions)
        let readers = EventReaders(log: log, directory: directory)
        self.configuration = configuration
        self.clock = clock
        self.log = log
        self.changes = changes
        self.readers = readers
        self.directory = directory
        self.credentials = credentials
        self.delivery = delivery
        self.registration = registration
        self.bridges = bridges
        exposure = Exposure(configuration: configuration)
        waitUntilStored = services.durableLog?.waitUntilStored
        isStored = services.durableLog?.isStored

        let sending = SendParts(delivery: delivery, chaos: chaos, quotas: quotas, ids: ids, storeFailing: storeFailing)
        let legacyAuth = LegacyAuth(
            directory: directory, credentials: credentials, log: log, clock: clock, configuration: configuration)
        let webPush = WebPushModule(
            api: WebPushAPI(
                directory: directory, parts: sending, vapid: services.webPush.map(VAPID.init),
                encoding: services.webPush.map(ContentEncoding.init)),
            directory: directory, credentials: credentials, crypto: services.webPush,
            mozilla: MozillaPushServer(
                directory: directory, registration: registration, delivery: delivery, random: random,
                projectID: configuration.project),
            random: random)
        delivery.pushService = webPush.relay
        let book = ClientBook()
        let mcs = MCSServer(
            book: book, directory: directory, registration: registration, delivery: delivery, changes: changes, random: random,
            projectID: configuration.project, timeoutSeconds: configuration.timeoutSeconds)
        fcmClients = FCMClientsModule(
            installations: InstallationsAPI(
                book: book, directory: directory, registration: registration, changes: changes, clock: clock, random: random,
                inflate: services.inflate),
            webRegistrations: WebRegistrationsAPI(
                book: book, directory: directory, registration: registration, changes: changes, clock: clock, random: random,
                inflate: services.inflate),
            checkins: CheckinAPI(book: book, mcs: mcs, changes: changes, clock: clock, random: random),
            register: GCMRegisterAPI(
                book: book, mcs: mcs, directory: directory, registration: registration, changes: changes, random: random),
            mcs: mcs, book: book)
        modules = [
            SiteModule(assets: services.assets) { [unowned self] in metricsPage() },
            LegacyModule(
                send: LegacyAPI(auth: legacyAuth, parts: sending),
                groups: DeviceGroupsAPI(auth: legacyAuth, random: random),
                instanceID: InstanceIDAPI(auth: legacyAuth, chaos: chaos, clock: clock),
                shutdown: LegacyShutdown(
                    shutDown: configuration.legacyAPIShutDown, auth: legacyAuth, directory: directory, log: log, clock: clock)),
            V1Module(
                send: V1API(credentials: credentials, directory: directory, parts: sending),
                topicSubscriptions: TopicSubscriptionsAPI(credentials: credentials, chaos: chaos, clock: clock)),
            DeliveryDataAPI(log: log, directory: directory, credentials: credentials),
            APNsProvider(
                directory: directory, credentials: credentials, parts: sending, configuration: configuration,
                shutdown: services.shutdown),
            webPush,
            fcmClients!,
            OAuthAPI(credentials: credentials, clock: clock, random: random),
            ControlModule(
                projects: ControlProjects(directory: directory, delivery: delivery, bridges: bridges, log: log, clock: clock),
                credentials: ControlCredentials(
                    directory: directory, credentials: credentials, random: random, configuration: configuration),
                chaos: ControlChaos(directory: directory, chaos: chaos),
                bridges: ControlBridges(directory: directory, bridges: bridges, random: random),
                assets: services.assets),
            ControlDevicesModule(
                devices: ControlDevices(directory: directory, registration: registration, delivery: delivery, chaos: chaos),
                inspector: Inspector(directory: directory, log: log),
                events: ControlEvents(readers: readers, directory: directory, log: log)),
        ]
        var routes = Routes()
        for module in modules { module.addRoutes(to: &routes) }
        router = routes.router
        unread = routes.unread
        if let durable = services.durableLog { try resume(durable) }
    }

    /// The listening address as an origin's host: a wildcard is loopback, IPv6 in brackets.
    static func originHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }

    /// A connection on the MCS listener (`--mcs-port`): its client's side of the protocol.
    public func mcsConnection() -> any StreamEndpoint { fcmClients!.mcs.connect() }

    /// Logs what the bridges' carrier finished; the server calls it every 100 ms.
    public func collectBridgeAttempts() { bridges.collect() }

    /// A project's legacy server keys as served (a seed fixture may have replaced the
    /// configured ones), for the start-up banner.
    public func serverKeys(ofProject id: String) -> [String] { directory[id]?.serverKeys ?? [] }

    /// `--webhook`'s bridge, for the start-up banner.
    public var webhookBridge: Bridge? { bridges.everyProject }

    /// Answers one request. Each request gets exactly one reply. Counted by route and status
    /// and timed for `/metrics`.
    public func handle(_ request: Request) -> Reply {
        let start = MonotonicClock.nanos()
        var index = -1
        let logged = log.lastSeq
        var style: any AnswerStyle = Self.siteStyle
        var reply = clock.pinned { dispatch(request, &index, &style) }
        // Another service's request on an HTTP/2 connection: on its real host it would have a
        // connection of its own, with no APNs start-up limit (docs/reference/apns.md §E.1).
        if !style.keepsConnectionStart, let context = request.connection, !context.authenticated {
            context.authenticated = true
        }
        if let fanOut = delivery.unfinishedFanOut {
            delivery.unfinishedFanOut = nil
            reply = carryOn(fanOut, then: reply, request: request, style: style, logged: logged)
        } else if let wait = waitUntilStored, log.lastSeq > logged, !wait(log.lastSeq) {
            reply = .response(style.storeUnavailable(request))
        }
        let status: Int
        switch reply {
        case .response(let r), .delayed(let r, _): status = r.status
        case .waitForEvents, .stream, .paged, .sliced: status = 200
        case .webSocket: status = 101
        case .drop: status = 0
        }
        lastRequestNanos = MonotonicClock.nanos() &- start
        lastStatus = status
        metrics.record(route: index, status: status, seconds: Double(lastRequestNanos) / 1e9)
        return reply
    }

    /// A broadcast larger than one slice: the rest of its devices in later turns, then the
    /// answer (after its events are stored, with `--sync always`). A reply that is not an
    /// answer now (an injected delay or drop) waits for no one: the fan-out is finished here.
    private func carryOn(
        _ fanOut: FanOut, then reply: Reply, request: Request, style: any AnswerStyle, logged: Int64
    ) -> Reply {
        guard case .response(let answer) = reply else {
            while !delivery.carryOn(fanOut) {}
            delivery.answered(fanOut.message, in: fanOut.project)
            return reply
        }
        var last: Int64?
        return .sliced(
            SlicedWork { [self] in
                if last == nil {
                    guard delivery.carryOn(fanOut) else { return .more }
                    delivery.answered(fanOut.message, in: fanOut.project)
                    last = log.lastSeq
                }
                // `--sync always`: answered once its events are on disk, the loop going on meanwhile.
                guard let isStored, let last, last > logged else { return .done(answer) }
                switch isStored(last) {
                case nil: return .waiting
                case true?: return .done(answer)
                case false?: return .done(style.storeUnavailable(request))
                }
            })
    }

    /// The style of a path no route's first segment shares: Google's front end.
    static let siteStyle = GoogleFrontEndStyle.plain

    /// Runs the matched route's handler, or answers in its group's style that there is none.
    private func dispatch(_ request: Request, _ index: inout Int, _ style: inout any AnswerStyle) -> Reply {
        switch route(request) {
        case .found(let endpoint, let params, let route):
            index = route
            style = endpoint.style
            if let refusal = exposure.refusal(request, endpoint.style.exposure) { return .response(refusal) }
            return endpoint.handle(request, params)
        case .methodNotAllowed(let endpoint):
            style = hostStyle(of: request) ?? endpoint.style
            return .response(style.methodNotAllowed(request))
        case .notFound(let neighbour):
            style = hostStyle(of: request) ?? neighbour?.style ?? Self.siteStyle
            return .response(style.notFound(request))
        }
    }

    /// The style a TLS server name asks for where no route answers: the client named a
    /// service's own host (APNs answers `BadPath`, not Google's page).
    private func hostStyle(of request: Request) -> (any AnswerStyle)? {
        guard let context = request.connection, context.isTLS, let name = context.serverName else { return nil }
        for module in modules { if let style = module.hostStyle(serverName: name) { return style } }
        return nil
    }

    /// A push the transport could not read whole is logged by its send route.
    func logUnread(_ request: Request, _ error: FramingError) {
        if case .found(_, let params, let route) = router.match(method: request.method, path: request.path) {
            unread[route]?(request, params, error)
        }
    }

    /// The style that answers `request`: its route's, or its neighbours'.
    func style(of request: Request) -> any AnswerStyle {
        switch route(request) {
        case .found(let endpoint, _, _): endpoint.style
        case .methodNotAllowed(let endpoint): hostStyle(of: request) ?? endpoint.style
        case .notFound(let neighbour): hostStyle(of: request) ?? neighbour?.style ?? Self.siteStyle
        }
    }

    /// A WebSocket opening handshake (`GET` with `Upgrade: websocket`) is routed as the method
    /// `WEBSOCKET` (`RouteGroup.webSocket`); where no such route has the path, as the `GET` it
    /// is (RFC 9110 §7.8 lets a server ignore `Upgrade`).
    private func route(_ request: Request) -> Router<Routes.Endpoint>.Match {
        if request.method == "GET", request.header("upgrade")?.lowercased() == "websocket",
            case .found(let e, let p, let r) = router.match(method: Routes.webSocketMethod, path: request.path)
        {
            return .found(e, p, route: r)
        }
        if let last = lastRoute, last.method == request.method, last.path == request.path { return last.match }
        let match = router.match(method: request.method, path: request.path)
        lastRoute = RouteMemo(method: request.method, path: request.path, match: match)
        return match
    }

    private final class RouteMemo {
        let method: String
        let path: String
        let match: Router<Routes.Endpoint>.Match

        init(method: String, path: String, match: Router<Routes.Endpoint>.Match) {
            self.method = method
            self.path = path
            self.match = match
        }
    }

    /// Expires stored and held messages whose TTL or `apns-expiration` has passed, applies
    /// `--max-age` to the log, and gives each module its sweep (`GatewayModule.tick`). The
    /// server calls it every second.
    public func expireDue() {
        delivery.expireDue()
        for module in modules { module.tick() }
    }

}
