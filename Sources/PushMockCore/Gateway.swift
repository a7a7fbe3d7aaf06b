/// The whole gateway state and its request entry point. One instance lives on the loop
/// thread; the transport hands it `Request`s and writes back the `Reply`. Nothing in here
/// knows about sockets.
public final class Gateway {
    public typealias Handler = (Gateway, Request, [String: String]) -> Reply

    public let configuration: Configuration
    public let clock: Clock
    public let log: EventLog
    /// All mutable state below is guarded by the loop thread.
    public private(set) var projects: [String: Project] = [:] {
        didSet {
            apiProjectByName.clear()
            apnsCredentialsVersion &+= 1
        }
    }
    /// The project a Google API path last named (by id or number).
    var apiProjectByName = Remembered<String, Project>()
    var projectsByKey: [String: Project] = [:] { didSet { projectByAuthorization.clear() } }
    /// The project of the last `Authorization` value that named a server key.
    var projectByAuthorization = Remembered<String, Project>()
    /// Devices with stored or held messages, for expiry; keyed by project and device id.
    var waiting: [String: Device] = [:]
    /// Service accounts pushmock issued, by client email; access tokens it handed out.
    var serviceAccounts: [String: ServiceAccount] = [:]
    var accessTokens: [String: AccessToken] = [:] { didSet { accessTokenByAuthorization.clear() } }
    /// The access token the last `Authorization` value with a known one carried.
    var accessTokenByAuthorization = Remembered<String, AccessToken>()
    /// APNs auth keys registered in any project, by key id.
    var apnsKeys: [String: APNsKey] = [:] { didSet { apnsCredentialsVersion &+= 1 } }
    /// Changes with `apnsKeys` and `projects`: provider tokens verified before are looked at again.
    var apnsCredentialsVersion = 0
    /// Set when the server starts shutting down: APNs then answers 503 Shutdown.
    public var shuttingDown = false
    /// Whether the durable log cannot write (a full disk): sends are then refused with the
    /// services' 503 while reads go on. The server provides it with `--data-dir`.
    public var storeFailing: () -> Bool = { false }
    /// Counts requests that may have changed the control-plane state (`noteStateChange`).
    public internal(set) var stateVersion = 0
    /// `--sync always`: blocks until the log is on disk through a seq; false when it cannot be.
    public var waitUntilStored: ((Int64) -> Bool)?
    /// The dashboard's files by path (`/`, `/ui/app.js`, ...); the server provides them.
    public var assets: [String: Response] = [:]
    /// The last report computed, reused while the log is unchanged.
    var reportCache: (key: ReportCacheKey, days: [String: ReportRow], total: ReportRow)?
    /// Counters for `GET /metrics`.
    public internal(set) var metrics = Metrics()
    /// RSA for service accounts and OAuth; the server provides OpenSSL's.
    let keys: (any KeyService)?
    var random: RandomSource
    /// Chaos rolls only, so `--chaos-seed` repeats a run's failures whatever else draws.
    var chaosRandom: RandomSource
    var ids: MessageIDs
    private var router = Router<Handler>()
    private var lastRoute: (method: String, path: String, match: Router<Handler>.Match)?
    var routeNames: [String] { router.names }

    public init(configuration: Configuration, clock: Clock? = nil, seed: UInt64? = nil, keys: (any KeyService)? = nil) {
        self.configuration = configuration
        self.keys = keys
        self.clock = clock ?? Clock(mode: configuration.clock)
        self.log = EventLog(capacity: configuration.maxEvents)
        self.random = RandomSource(seed: seed)
        self.chaosRandom = RandomSource(seed: configuration.chaosSeed)
        self.ids = MessageIDs(random: &random)
        self.router = Self.routes()
        addProject(configuration.project, serverKeys: configuration.serverKeys)
    }

    /// Answers one request. Each request gets exactly one reply. Counted by route and status
    /// and timed for `/metrics`.
    public func handle(_ request: Request) -> Reply {
        let start = Metrics.monotonicNanos()
        var index = -1
        let logged = log.lastSeq
        var reply = clock.pinned { dispatch(request, &index) }
        noteStateChange(request)
        if let wait = waitUntilStored, log.lastSeq > logged, !wait(log.lastSeq) { reply = .response(storeUnavailable(request)) }
        let status: Int
        switch reply {
        case .response(let r), .delayed(let r, _): status = r.status
        case .waitForEvents, .stream: status = 200
        case .drop: status = 0
        }
        metrics.record(route: index, status: status, seconds: Double(Metrics.monotonicNanos() - start) / 1e9)
        return reply
    }

    /// The answer a send gets when its events cannot be made durable, in its service's shape:
    /// APNs' 503 ServiceUnavailable, HTTP v1's 503 UNAVAILABLE, the legacy API's bare 503, all
    /// with the back-off they ask for.
    func storeUnavailable(_ request: Request) -> Response {
        if request.path.hasPrefix("/3/") {
            return Self.apnsError(APNsFailure(.serviceUnavailable), apnsID: apnsID(for: request))
        }
        if request.path.hasPrefix("/v1/") {
            var e = Self.v1Error(.unavailable)
            e.retryAfter = 10
            return e.response
        }
        if request.path.hasPrefix("/emulator/") { return .googleError(503, "UNAVAILABLE", "The delivery log cannot be written.") }
        return Response(status: 503, headers: [("Retry-After", "10"), ("Content-Type", "text/plain; charset=UTF-8")],
                        body: Array("Unavailable".utf8))
    }

    /// A dashboard file, or 404.
    func asset(_ request: Request) -> Reply {
        .response(assets[request.path] ?? GoogleFrontEnd.notFound(request.path))
    }

    /// The server reports how many event streams are open, for `/metrics`.
    public func noteStreamClients(_ n: Int) { metrics.streamClients = n }

    private func dispatch(_ request: Request, _ index: inout Int) -> Reply {
        switch route(request) {
        case .found(let handler, let params, let route):
            index = route
            return handler(self, request, params)
        case .methodNotAllowed:
            if request.path.hasPrefix("/3/") { return .response(apnsUnrouted(request, methodNotAllowed: true)) }
            return .response(request.path.hasPrefix("/emulator/")
                ? .googleError(405, "METHOD_NOT_ALLOWED", "Method \(request.method) is not allowed on \(request.path).")
                : GoogleFrontEnd.methodNotAllowed(request.method, request.path))
        case .notFound:
            if request.path.hasPrefix("/3/") { return .response(apnsUnrouted(request, methodNotAllowed: false)) }
            return .response(request.path.hasPrefix("/emulator/")
                ? .googleError(404, "NOT_FOUND", "No route for \(request.method) \(request.path).")
                : GoogleFrontEnd.notFound(request.path))
        }
    }

    /// The router's answer, remembered for the last method and path: a client sending to one
    /// route (a load test, a worker pushing to one project) skips the table walk.
    private func route(_ request: Request) -> Router<Handler>.Match {
        if let last = lastRoute, last.method == request.method, last.path == request.path { return last.match }
        let match = router.match(method: request.method, path: request.path)
        lastRoute = (request.method, request.path, match)
        return match
    }

    @discardableResult
    func addProject(_ id: String, serverKeys: [String]) -> Project {
        let project = Project(id: id, serverKeys: serverKeys, maxMessages: configuration.maxMessages)
        project.chaos = configuration.chaos
        projects[id] = project
        for key in serverKeys { projectsByKey[key] = project }
        return project
    }

    /// The named project; any valid project id is served, created on first use as the
    /// Firebase emulators do.
    func project(_ id: String) -> Project? {
        if let p = projects[id] { return p }
        guard Configuration.isProjectID(id) else { return nil }
        return addProject(id, serverKeys: [Project.defaultServerKey(for: id)])
    }

    /// The project a registration token belongs to, if any.
    func owner(ofToken token: String) -> Project? {
        for p in projects.values where p.byToken[token] != nil { return p }
        return nil
    }
}
