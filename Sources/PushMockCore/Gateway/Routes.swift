/// The route table as the modules fill it: each module adds its routes in groups, a group
/// carrying its path prefix and its `AnswerStyle`; a handler sees what its module holds, not the
/// gateway. `Gateway.modules` lists the modules; each module's `addRoutes` is its table.
struct Routes {
    /// A route's handler and the style its group answers in.
    struct Endpoint {
        let style: any AnswerStyle
        let handle: (Request, PathParameters) -> Reply
    }

    /// What a send route records of a push the transport could not read whole (too large or
    /// malformed), which its style answers: every refused push is logged.
    typealias Unread = (Request, PathParameters, FramingError) -> Void

    private(set) var router = Router<Endpoint>()
    /// Send routes' `Unread`, by route index (kept apart: an endpoint is copied per request).
    private(set) var unread: [Int: Unread] = [:]

    /// Adds the routes `body` declares under `prefix`, answering in `style`.
    mutating func group(_ prefix: String, _ style: any AnswerStyle, _ body: (inout RouteGroup) -> Void) {
        var group = RouteGroup(prefix: prefix, style: style, router: router, unread: unread)
        body(&group)
        router = group.router
        unread = group.unread
    }

    /// "METHOD pattern" of every route, in the order they were added.
    var names: [String] { router.names }

    /// The method WebSocket opening handshakes are routed by (`Gateway.route`).
    static let webSocketMethod = "WEBSOCKET"
}

/// The routes of one group, as a module declares them.
struct RouteGroup {
    let prefix: String
    let style: any AnswerStyle
    fileprivate(set) var router: Router<Routes.Endpoint>
    fileprivate(set) var unread: [Int: Routes.Unread]

    /// A route whose handler answers every outcome itself.
    mutating func add(_ method: String, _ pattern: String, _ handle: @escaping (Request, PathParameters) -> Reply) {
        router.add(method, prefix + pattern, Routes.Endpoint(style: style, handle: handle))
    }

    /// A send route: `unread` logs a push the transport refused before `handle` could see it.
    mutating func addSend(
        _ method: String, _ pattern: String, unread: @escaping Routes.Unread,
        _ handle: @escaping (Request, PathParameters) -> Reply
    ) {
        self.unread[router.names.count] = unread
        add(method, pattern, handle)
    }

    /// A route for WebSocket opening handshakes (`GET` with `Upgrade: websocket`) on the path;
    /// its handler answers `.webSocket(endpoint)`.
    mutating func webSocket(_ pattern: String, _ handle: @escaping (Request, PathParameters) -> Reply) {
        add(Routes.webSocketMethod, pattern, handle)
    }
}

/// A protocol module: a folder holding an API's handlers, wire types and errors, which adds
/// its routes to the table (docs/ARCHITECTURE.md, "Adding a protocol").
protocol GatewayModule {
    func addRoutes(to routes: inout Routes)
    /// Whether a new HTTP/2 connection starts in this service's start-up limit (one stream
    /// until it is authenticated); APNs' rule (docs/reference/apns.md §E.1).
    func limitsConnectionStart(_ context: ConnectionContext) -> Bool
    /// The gateway's sweep, each second: a module's own time bounds (none by default).
    func tick()
    /// The style of a path no route serves on a TLS connection to this TLS server name, when
    /// the name is this service's own host (APNs' `BadPath`); nil by default.
    func hostStyle(serverName: String) -> (any AnswerStyle)?
}

extension GatewayModule {
    func hostStyle(serverName: String) -> (any AnswerStyle)? { nil }
    func limitsConnectionStart(_ context: ConnectionContext) -> Bool { false }
    func tick() {}
}
