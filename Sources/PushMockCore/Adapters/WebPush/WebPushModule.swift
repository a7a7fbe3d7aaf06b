/// Web Push as a module: the endpoints of the three browser push services, each group
/// answering in its service's own style (docs/web-push.md).
struct WebPushModule: GatewayModule {
    let api: WebPushAPI
    let directory: ProjectDirectory
    /// FCM's way to browsers through these services (held here; delivery holds it weakly).
    let relay: WebPushRelay?
    /// The Mozilla push protocol's server, which real Firefox browsers connect to (held here;
    /// delivery holds it weakly).
    let mozilla: MozillaPushServer

    init(
        api: WebPushAPI, directory: ProjectDirectory, credentials: Credentials, crypto: (any WebPushCrypto)?,
        mozilla: MozillaPushServer, random: RandomSource
    ) {
        self.api = api
        self.directory = directory
        self.mozilla = mozilla
        relay = crypto.map { WebPushRelay(api: api, credentials: credentials, crypto: $0, random: random) }
    }

    func tick() { mozilla.sweep() }

    func addRoutes(to routes: inout Routes) {
        routes.group("/fcm", WebPushStyle(.fcm)) { r in
            r.add("POST", "/send/{token}") { req, p in api.push(.fcm, req, p) }
        }
        routes.group("/wp", WebPushStyle(.fcm)) { r in r.add("POST", "/{token}") { req, p in api.push(.fcm, req, p) } }
        // Firefox's `dom.push.serverURL`: a WebSocket at the root, as autopush serves it.
        routes.group("", WebPushStyle(.autopush)) { r in r.webSocket("/") { req, _ in mozilla.connect(req) } }
        routes.group("/wpush", WebPushStyle(.autopush)) { r in
            for version in ["/v1", "/v2", ""] { r.add("POST", version + "/{token}") { req, p in api.push(.autopush, req, p) } }
        }
        // Apple's endpoints are the token at the root. A POST there that names no Safari
        // subscription, on a host that is not Apple's, is answered as before: Google's 404 page.
        routes.group("", WebPushStyle(.apple)) { r in
            r.add("POST", "/{token}") { req, p in
                let address = DeviceAddress(.webPushEndpoint, p[.token] ?? "")
                let known = directory.device(at: address) != nil || directory.retirement(of: address) != nil
                guard known || Self.isAppleHost(req) else { return .response(GoogleFrontEnd.notFound(req.path)) }
                return api.push(.apple, req, p)
            }
        }
    }

    /// `web.push.apple.com`, any case, any port.
    static func isAppleHost(_ request: Request) -> Bool {
        guard let host = request.header("host")?.lowercased() else { return false }
        return host == "web.push.apple.com" || host.hasPrefix("web.push.apple.com:")
    }
}

/// What a push service answers that no route writes, in its own words.
final class WebPushStyle: AnswerStyle {
    private let service: WebPushService

    init(_ service: WebPushService) { self.service = service }

    func notFound(_ request: Request) -> Response { service.answer(.invalidToken) }

    func methodNotAllowed(_ request: Request) -> Response {
        switch service {
        case .fcm: return GoogleFrontEnd.methodNotAllowed(request.method, request.path)
        case .autopush:
            return Response(
                status: 405, headers: Response.jsonHeaders,
                body: Array(
                    #"{"code":405,"errno":999,"error":"Method Not Allowed","message":"Method not allowed","more_info":"http://autopush.readthedocs.io/en/latest/http.html#error-codes"}"#
                        .utf8))
        case .apple:
            return Response(
                status: 405, headers: [("Content-Type", "application/json")], body: Array(#"{"reason":"MethodNotAllowed"}"#.utf8))
        }
    }

    func framingError(_ error: FramingError, _ request: Request) -> Response {
        if error == .tooLarge { return service.answer(.tooLarge(limit: service.maxBody)) }
        // What the service's HTTP server answers a request it cannot read (FCM: Google's front end).
        return service == .fcm ? GoogleFrontEnd.framingError(400) : .text(400, "Bad Request")
    }

    func storeUnavailable(_ request: Request) -> Response { service.answer(.unavailable) }
}
