/// pushmock's own control API (docs/control-api.md), under `/emulator/v1` in Google's error
/// shape: the server and its projects (apps, credentials, chaos, bridges, clearing sends)
/// here, devices and what was sent (`ControlDevicesModule`) beside it. docs/openapi.json
/// describes every route (`OpenAPITests`).
struct ControlModule: GatewayModule {
    /// Projects, apps, the clock, clearing sends.
    let projects: ControlProjects
    /// Service accounts, APNs keys and certificates, the CA.
    let credentials: ControlCredentials
    let chaos: ControlChaos
    let bridges: ControlBridges
    /// The dashboard's files by path (the API's own description among them).
    let assets: [String: Response]

    func addRoutes(to routes: inout Routes) {
        routes.group("/emulator/v1", ControlStyle()) { r in
            r.add("GET", "/openapi.json") { req, _ in .response(assets[req.path] ?? GoogleFrontEnd.notFound(req.path)) }
            r.add("GET", "/ca.pem") { _, _ in credentials.caCertificate() }
            r.control("GET", "/clock") { _, _ in projects.clockInfo() }
            r.add("GET", "/chaos/surfaces") { _, _ in chaos.surfaces() }
            r.control("POST", "/clock:advance") { req, _ throws(ControlError) in try projects.advanceClock(req) }
        }
        routes.group("/emulator/v1/projects/{project}", ControlStyle()) { r in
            r.control("GET", "") { _, p throws(ControlError) in try projects.info(p) }
            r.control("DELETE", "") { _, p throws(ControlError) in try projects.reset(p) }
            r.control("GET", "/apps") { _, p throws(ControlError) in try projects.listApps(p) }
            r.control("POST", "/apps", projects.putApp)
            r.control("GET", "/serviceAccount", credentials.serviceAccount)
            r.control("POST", "/serviceAccounts", credentials.addServiceAccount)
            r.control("POST", "/apnsKeys", credentials.addAPNsKey)
            r.control("GET", "/apnsKeys") { _, p throws(ControlError) in try credentials.listAPNsKeys(p) }
            r.control("POST", "/apnsCertificates", credentials.issueAPNsCertificate)
            r.control("GET", "/webPushKey") { _, p throws(ControlError) in try credentials.webPushKey(p) }
            r.control("PUT", "/webPushKey", credentials.importWebPushKey)
            r.control("GET", "/chaos") { _, p throws(ControlError) in try chaos.get(p) }
            r.control("PUT", "/chaos", chaos.put)
            r.control("DELETE", "/chaos") { _, p throws(ControlError) in try chaos.delete(p) }

            r.control("GET", "/bridges") { _, p throws(ControlError) in try bridges.list(p) }
            r.control("POST", "/bridges", bridges.create)
            r.control("GET", "/bridges/{bridge}") { _, p throws(ControlError) in try bridges.get(p) }
            r.control("DELETE", "/bridges/{bridge}") { _, p throws(ControlError) in try bridges.delete(p) }

            r.control("DELETE", "/messages") { _, p throws(ControlError) in try projects.clearMessages(p) }
            r.control("DELETE", "/messages/{id}") { _, p throws(ControlError) in try projects.deleteMessage(p) }
        }
    }
}

/// The control API's devices, sends and log: register and change fake devices and read what
/// they received, inspect sends and topics, and read, stream, export and report the log.
struct ControlDevicesModule: GatewayModule {
    /// Devices and what users and the SDK do to them.
    let devices: ControlDevices
    /// Sends and topics.
    let inspector: Inspector
    /// The log: events, streams, exports, reports.
    let events: ControlEvents

    func addRoutes(to routes: inout Routes) {
        routes.group("/emulator/v1/projects/{project}", ControlStyle()) { r in
            r.control("POST", "/devices", devices.create)
            r.control("POST", "/devices:batchCreate", devices.batchCreate)
            r.control("GET", "/devices") { _, p throws(ControlError) in try devices.list(p) }
            let device = "/devices/{id}"
            r.control("GET", device) { _, p throws(ControlError) in try devices.get(p) }
            r.control("PATCH", device, devices.patch)
            r.control("DELETE", device) { _, p throws(ControlError) in try devices.delete(p) }
            r.control("POST", device + ":enableAutoInit") { _, p throws(ControlError) in try devices.enableAutoInit(p) }
            r.control("POST", device + ":refreshToken") { _, p throws(ControlError) in try devices.refreshToken(p) }
            r.control("POST", device + ":reinstall") { _, p throws(ControlError) in try devices.reinstall(p) }
            r.control("POST", device + ":scriptErrors", devices.scriptErrors)
            r.control("POST", device + ":unsubscribe") { _, p throws(ControlError) in try devices.unsubscribe(p) }
            r.control("POST", device + ":subscribe", devices.subscribe)
            r.control("POST", device + "/notifications/{message_id}:open") { _, p throws(ControlError) in
                try devices.openNotification(p)
            }
            r.control("POST", device + "/topics/{topic}") { _, p throws(ControlError) in try devices.topic(p, subscribe: true) }
            r.control("DELETE", device + "/topics/{topic}") { _, p throws(ControlError) in
                try devices.topic(p, subscribe: false)
            }
            r.control("GET", device + "/notifications") { _, p throws(ControlError) in try devices.notifications(p) }

            r.control("GET", "/messages", inspector.listMessages)
            r.control("GET", "/messages/{id}") { request, p throws(ControlError) in try inspector.message(request, p) }
            r.control("GET", "/topics") { _, p throws(ControlError) in try inspector.listTopics(p) }
            r.control("GET", "/reports", events.reports)
            r.control("GET", "/events:stream") { req, p throws(ControlError) in try events.stream(req, p, format: .sse) }
            r.control("GET", "/events:export") { req, p throws(ControlError) in try events.stream(req, p, format: .ndjson) }
            r.control("GET", "/events", events.events)
        }
    }
}

extension RouteGroup {
    /// A control-API route whose handler may fail with a `ControlError` (Google's error
    /// shape), answered in one place.
    mutating func control(
        _ method: String, _ pattern: String, _ handle: @escaping (Request, PathParameters) throws(ControlError) -> Reply
    ) {
        add(method, pattern) { request, params in Control.run { () throws(ControlError) in try handle(request, params) } }
    }
}

/// The control API's own answers: `google.rpc.Status` JSON for everything, and the exposure
/// checks of docs/exposure.md.
final class ControlStyle: AnswerStyle {
    var exposure: Exposure.Scope { .controlAPI }

    func notFound(_ request: Request) -> Response {
        .googleError(404, "NOT_FOUND", "No route for \(request.method) \(request.path).")
    }

    func methodNotAllowed(_ request: Request) -> Response {
        .googleError(405, "METHOD_NOT_ALLOWED", "Method \(request.method) is not allowed on \(request.path).")
    }

    func framingError(_ error: FramingError, _ request: Request) -> Response {
        error == .tooLarge
            ? .googleError(413, "INVALID_ARGUMENT", "The request is larger than --max-body-bytes allows.")
            : .googleError(400, "INVALID_ARGUMENT", "The request is not valid HTTP.")
    }

    func storeUnavailable(_ request: Request) -> Response {
        .googleError(503, "UNAVAILABLE", "The delivery log cannot be written.")
    }
}
