/// The gateway: its parts, built once here, and the one entry point the transport calls.
/// Each part owns its state (`docs/ARCHITECTURE.md`); the route table (`Gateway+Routes.swift`)
/// binds paths to the adapters. Everything runs on the loop thread; nothing in here knows
/// about sockets.
public final class Gateway {
    public let configuration: Configuration
    public let clock: Clock
    public let log: EventLog
    /// Which rows of the state a restart keeps changed (the server saves those).
    public let changes: StateChanges
    public let readers: EventReaders

    let directory: ProjectDirectory
    let credentials: Credentials
    let delivery: Delivery
    let chaos: Chaos
    let registration: DeviceRegistration

    let legacyAuth: LegacyAuth
    let legacy: LegacyAPI
    let groups: DeviceGroupsAPI
    let instanceID: InstanceIDAPI
    let v1: V1API
    let topicSubscriptions: TopicSubscriptionsAPI
    let apns: APNsProvider
    let oauth: OAuthAPI
    let controlProjects: ControlProjects
    let controlDevices: ControlDevices
    let controlCredentials: ControlCredentials
    let controlChaos: ControlChaos
    let controlBridges: ControlBridges
    let inspector: Inspector
    let controlEvents: ControlEvents
    let deliveryData: DeliveryDataAPI
    let bridges: Bridges

    /// The dashboard's files by path.
    private let assets: [String: Response]
    /// `--sync always`: waits until the log is on disk through a seq.
    private let waitUntilStored: ((Int64) -> Bool)?
    /// Requests by route and status, and how long they took, for `/metrics`.
    private(set) var metrics = Metrics()
    private let router: Router<Endpoint>
    /// Who may use the control API and dashboard.
    private let exposure: Exposure
    /// The router's answer for the last method and path: a client sending to one route (a
    /// load test, a worker pushing to one project) skips the table walk.
    private var lastRoute: (method: String, path: String, match: Router<Endpoint>.Match)?
    /// Stored events the start could not put back into the log (`resume`).
    public internal(set) var unrestored = Unrestored()
    /// How long the last `handle` took (monotonic ns): the transport bounds a connection's
    /// turn by it.
    public private(set) var lastRequestNanos: UInt64 = 0
    var routeNames: [String] { router.names }

    /// Builds every part; with a durable log, resumes its saved state and newest events
    /// before any request is served. Throws when the saved state is not a valid fixture.
    public init(
        configuration: Configuration, clock: Clock? = nil, seed: UInt64? = nil,
        services: ServerServices = ServerServices()
    ) throws(SeedError) {
        let clock = clock ?? Clock(mode: configuration.clock)
        let log = EventLog(capacity: configuration.maxEvents)
        let changes = StateChanges()
        let random = RandomSource(seed: seed)
        let ids = MessageIDs(random: random)
        let storeFailing = services.durableLog?.isFailing ?? { false }
        let directory = ProjectDirectory(configuration: configuration, changes: changes)
        let credentials = Credentials(
            keys: services.keys, directory: directory, clock: clock,
            configuration: configuration, changes: changes)
        let delivery = Delivery(log: log, clock: clock, configuration: configuration, directory: directory, random: random)
        let chaos = Chaos(log: log, clock: clock, seed: configuration.chaosSeed)
        let quotas = Quotas(configuration: configuration, clock: clock)
        let bridges = Bridges(
            log: log, clock: clock, directory: directory, changes: changes, carrier: services.bridgeCarrier,
            configuration: configuration, random: random)
        legacyAuth = LegacyAuth(
            directory: directory, credentials: credentials, log: log, clock: clock,
            configuration: configuration)
        self.configuration = configuration
        exposure = Exposure(configuration: configuration)
        self.clock = clock
        self.log = log
        self.changes = changes
        self.directory = directory
        self.credentials = credentials
        self.delivery = delivery
        self.chaos = chaos
        readers = EventReaders(log: log, directory: directory)
        legacy = LegacyAPI(
            auth: legacyAuth, delivery: delivery, chaos: chaos, quotas: quotas, ids: ids, log: log,
            clock: clock, storeFailing: storeFailing)
        groups = DeviceGroupsAPI(auth: legacyAuth, random: random)
        instanceID = InstanceIDAPI(auth: legacyAuth, chaos: chaos, clock: clock)
        v1 = V1API(
            credentials: credentials, directory: directory, delivery: delivery, chaos: chaos, quotas: quotas,
            ids: ids, log: log, clock: clock, storeFailing: storeFailing)
        topicSubscriptions = TopicSubscriptionsAPI(credentials: credentials, chaos: chaos, clock: clock)
        apns = APNsProvider(
            directory: directory, credentials: credentials, delivery: delivery, chaos: chaos,
            quotas: quotas, log: log, clock: clock, random: random, configuration: configuration,
            shutdown: services.shutdown, storeFailing: storeFailing)
        oauth = OAuthAPI(credentials: credentials, clock: clock, random: random)
        controlProjects = ControlProjects(directory: directory, delivery: delivery, bridges: bridges, log: log, clock: clock)
        let registration = DeviceRegistration(
            directory: directory, delivery: delivery, clock: clock, random: random, strictApps: configuration.strictApps)
        self.registration = registration
        controlDevices = ControlDevices(
            directory: directory, registration: registration, delivery: delivery, chaos: chaos, log: log, clock: clock)
        controlCredentials = ControlCredentials(
            directory: directory, credentials: credentials, random: random,
            configuration: configuration)
        controlChaos = ControlChaos(directory: directory, chaos: chaos)
        controlBridges = ControlBridges(directory: directory, bridges: bridges, random: random)
        self.bridges = bridges
        inspector = Inspector(directory: directory, log: log)
        controlEvents = ControlEvents(readers: readers, directory: directory, log: log)
        deliveryData = DeliveryDataAPI(log: log, directory: directory, credentials: credentials)
        assets = services.assets
        waitUntilStored = services.durableLog?.waitUntilStored
        router = Self.routes()
        if let durable = services.durableLog { try resume(durable) }
    }

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
        var family = APIFamily.site
        var reply = clock.pinned { dispatch(request, &index, &family) }
        // Another service's request on an HTTP/2 connection: on its real host it would have a
        // connection of its own, with no APNs start-up limit (docs/reference/apns.md §E.1).
        if family != .apns, let context = request.connection, !context.authenticated { context.authenticated = true }
        if let wait = waitUntilStored, log.lastSeq > logged, !wait(log.lastSeq) {
            reply = .response(storeUnavailable(request, family))
        }
        let status: Int
        switch reply {
        case .response(let r), .delayed(let r, _): status = r.status
        case .waitForEvents, .stream, .paged: status = 200
        case .drop: status = 0
        }
        lastRequestNanos = MonotonicClock.nanos() &- start
        metrics.record(route: index, status: status, seconds: Double(lastRequestNanos) / 1e9)
        return reply
    }

    /// Runs the matched route's handler, or answers in the family's shape that there is none.
    private func dispatch(_ request: Request, _ index: inout Int, _ family: inout APIFamily) -> Reply {
        switch route(request) {
        case .found(let endpoint, let params, let route):
            index = route
            family = endpoint.family
            if let refusal = exposure.refusal(request, endpoint.family) { return .response(refusal) }
            return endpoint.handle(self, request, params)
        case .methodNotAllowed(let endpoint):
            family = endpoint.family
            return .response(unrouted(request, endpoint.family, methodNotAllowed: true))
        case .notFound(let neighbour):
            family = neighbour?.family ?? .site
            return .response(unrouted(request, family, methodNotAllowed: false))
        }
    }

    /// The family whose conventions answer `request`: its route's, or its neighbours'.
    func family(of request: Request) -> APIFamily {
        switch route(request) {
        case .found(let endpoint, _, _), .methodNotAllowed(let endpoint): endpoint.family
        case .notFound(let neighbour): neighbour?.family ?? .site
        }
    }

    private func route(_ request: Request) -> Router<Endpoint>.Match {
        if let last = lastRoute, last.method == request.method, last.path == request.path { return last.match }
        let match = router.match(method: request.method, path: request.path)
        lastRoute = (request.method, request.path, match)
        return match
    }

    /// Expires stored and held messages whose TTL or `apns-expiration` has passed, and
    /// applies `--max-age` to the log. The server calls it every second.
    public func expireDue() { delivery.expireDue() }

    /// A dashboard file, or 404.
    func asset(_ request: Request) -> Reply {
        .response(assets[request.path] ?? GoogleFrontEnd.notFound(request.path))
    }
}
