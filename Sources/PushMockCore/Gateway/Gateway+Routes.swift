/// Every route pushmock serves, on one screen, each bound to the adapter that answers it.
extension Gateway {
    /// A route's handler and the family its answers belong to (`APIFamily`).
    struct Endpoint {
        let family: APIFamily
        let handle: (Gateway, Request, [String: String]) -> Reply
    }

    /// The table as it is built: `add` for a handler that answers every outcome itself,
    /// `control` for a control-API handler that may fail with a `ControlError`, `shutDown` for
    /// an endpoint Google has shut down.
    struct Table {
        private(set) var router = Router<Endpoint>()

        mutating func add(
            _ family: APIFamily, _ method: String, _ pattern: String,
            _ handle: @escaping (Gateway, Request, [String: String]) -> Reply
        ) {
            router.add(method, pattern, Endpoint(family: family, handle: handle))
        }

        mutating func control(
            _ method: String, _ pattern: String, family: APIFamily = .control,
            _ handle: @escaping (Gateway, Request, [String: String]) throws(ControlError) -> Reply
        ) {
            add(family, method, pattern) { g, req, p in
                do throws(ControlError) { return try handle(g, req, p) } catch { return .response(error.response) }
            }
        }

        /// An endpoint of the legacy API Google shut down: `handle` answers as it did before,
        /// and under `--legacy-api shutdown` it answers as it does now (`LegacyShutdown.swift`).
        mutating func shutDown(
            _ family: APIFamily, _ method: String, _ pattern: String,
            _ handle: @escaping (Gateway, Request, [String: String]) -> Reply
        ) {
            add(family, method, pattern) { g, req, p in g.legacyShutDown(req) ?? handle(g, req, p) }
        }
    }

    static func routes() -> Router<Endpoint> {
        var r = Table()
        r.add(.site, "GET", "/healthz") { _, _, _ in .response(.json(200, "{\"status\":\"ok\"}")) }
        r.add(.site, "GET", "/metrics") { g, _, _ in g.metricsPage() }

        // The dashboard
        r.add(.site, "GET", "/") { g, req, _ in g.asset(req) }
        r.add(.site, "GET", "/ui/{file}") { g, req, _ in g.asset(req) }

        // FCM legacy HTTP (docs/reference/fcm-legacy.md), shut down by Google in 2024
        r.shutDown(.legacy, "POST", "/fcm/send") { g, req, _ in g.legacy.send(req) }
        r.shutDown(.legacy, "POST", "/gcm/send") { g, req, _ in g.legacy.send(req) }
        r.shutDown(.legacy, "POST", "/fcm/notification") { g, req, _ in g.groups.manage(req) }
        r.shutDown(.legacy, "GET", "/fcm/notification") { g, req, _ in g.groups.lookup(req) }
        // The multipart batch endpoint, removed in 2024: only ever Google's 404.
        for method in ["POST", "GET"] {
            r.shutDown(.google, method, "/batch") { _, req, _ in .response(GoogleFrontEnd.notFound(req.path)) }
        }

        // Instance ID topic management (docs/reference/topics.md)
        r.add(.legacy, "POST", "/iid/v1:batchAdd") { g, req, _ in g.instanceID.batch(req, add: true) }
        r.add(.legacy, "POST", "/iid/v1:batchRemove") { g, req, _ in g.instanceID.batch(req, add: false) }
        r.add(.legacy, "POST", "/iid/v1/{token}/rel/topics/{topic}") { g, req, p in g.instanceID.relate(req, p) }
        r.add(.legacy, "GET", "/iid/info/{token}") { g, req, p in g.instanceID.info(req, p) }

        // FCM HTTP v1 (docs/reference/fcm-v1.md) and its topic management
        r.add(.google, "POST", "/v1/projects/{project}/messages:send") { g, req, p in g.v1.send(req, p) }
        r.add(.google, "POST", "/v1/projects/{project}/registrations/{token}/topicSubscriptions") { g, req, p in
            g.topicSubscriptions.subscribe(req, p)
        }
        r.add(.google, "DELETE", "/v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}") { g, req, p in
            g.topicSubscriptions.unsubscribe(req, p)
        }
        // FCM Data API (docs/reference/reporting.md §G.3): an OAuth token with the cloud-platform scope
        r.add(.google, "GET", "/v1beta1/projects/{project}/androidApps/{app}/deliveryData") { g, req, p in
            g.deliveryData.deliveryData(req, p)
        }

        // APNs provider API (docs/reference/apns.md), over HTTP/2
        r.add(.apns, "POST", "/3/device/{token}") { g, req, p in g.apns.push(req, p) }

        // Google's OAuth 2 token endpoint
        r.add(.google, "POST", "/token") { g, req, _ in g.oauth.token(req) }

        // Control API (docs/control-api.md)
        let project = "/emulator/v1/projects/{project}"
        r.add(.control, "GET", "/emulator/v1/openapi.json") { g, req, _ in g.asset(req) }
        r.add(.control, "GET", "/emulator/v1/ca.pem") { g, _, _ in g.controlCredentials.caCertificate() }
        r.control("GET", "/emulator/v1/clock") { g, _, _ in g.controlProjects.clockInfo() }
        r.control("POST", "/emulator/v1/clock:advance") { g, req, _ throws(ControlError) in
            try g.controlProjects.advanceClock(req)
        }
        r.control("GET", project) { g, _, p throws(ControlError) in try g.controlProjects.info(p) }
        r.control("DELETE", project) { g, _, p throws(ControlError) in try g.controlProjects.reset(p) }
        r.control("GET", project + "/apps") { g, _, p throws(ControlError) in try g.controlProjects.listApps(p) }
        r.control("POST", project + "/apps") { g, req, p throws(ControlError) in try g.controlProjects.putApp(req, p) }
        r.control("GET", project + "/serviceAccount") { g, req, p throws(ControlError) in
            try g.controlCredentials.serviceAccount(req, p)
        }
        r.control("POST", project + "/apnsKeys") { g, req, p throws(ControlError) in try g.controlCredentials.addAPNsKey(req, p) }
        r.control("GET", project + "/apnsKeys") { g, _, p throws(ControlError) in try g.controlCredentials.listAPNsKeys(p) }
        r.control("POST", project + "/apnsCertificates") { g, req, p throws(ControlError) in
            try g.controlCredentials.issueAPNsCertificate(req, p)
        }
        r.control("GET", project + "/chaos") { g, _, p throws(ControlError) in try g.controlChaos.get(p) }
        r.control("PUT", project + "/chaos") { g, req, p throws(ControlError) in try g.controlChaos.put(req, p) }
        r.control("DELETE", project + "/chaos") { g, _, p throws(ControlError) in try g.controlChaos.delete(p) }

        r.control("GET", project + "/bridges") { g, _, p throws(ControlError) in try g.controlBridges.list(p) }
        r.control("POST", project + "/bridges") { g, req, p throws(ControlError) in try g.controlBridges.create(req, p) }
        r.control("GET", project + "/bridges/{bridge}") { g, _, p throws(ControlError) in try g.controlBridges.get(p) }
        r.control("DELETE", project + "/bridges/{bridge}") { g, _, p throws(ControlError) in try g.controlBridges.delete(p) }

        let device = project + "/devices/{id}"
        r.control("POST", project + "/devices") { g, req, p throws(ControlError) in try g.controlDevices.create(req, p) }
        r.control("POST", project + "/devices:batchCreate") { g, req, p throws(ControlError) in
            try g.controlDevices.batchCreate(req, p)
        }
        r.control("GET", project + "/devices") { g, _, p throws(ControlError) in try g.controlDevices.list(p) }
        r.control("GET", device) { g, _, p throws(ControlError) in try g.controlDevices.get(p) }
        r.control("PATCH", device) { g, req, p throws(ControlError) in try g.controlDevices.patch(req, p) }
        r.control("DELETE", device) { g, _, p throws(ControlError) in try g.controlDevices.delete(p) }
        r.control("POST", device + ":enableAutoInit") { g, _, p throws(ControlError) in try g.controlDevices.enableAutoInit(p) }
        r.control("POST", device + ":refreshToken") { g, _, p throws(ControlError) in try g.controlDevices.refreshToken(p) }
        r.control("POST", device + ":reinstall") { g, _, p throws(ControlError) in try g.controlDevices.reinstall(p) }
        r.control("POST", device + ":scriptErrors") { g, req, p throws(ControlError) in try g.controlDevices.scriptErrors(req, p)
        }
        r.control("POST", device + "/notifications/{message_id}:open") { g, _, p throws(ControlError) in
            try g.controlDevices.openNotification(p)
        }
        r.control("POST", device + "/topics/{topic}") { g, _, p throws(ControlError) in
            try g.controlDevices.topic(p, subscribe: true)
        }
        r.control("DELETE", device + "/topics/{topic}") { g, _, p throws(ControlError) in
            try g.controlDevices.topic(p, subscribe: false)
        }
        r.control("GET", device + "/notifications") { g, _, p throws(ControlError) in try g.controlDevices.notifications(p) }

        r.control("GET", project + "/messages") { g, req, p throws(ControlError) in try g.inspector.listMessages(req, p) }
        r.control("DELETE", project + "/messages") { g, _, p throws(ControlError) in try g.controlProjects.clearMessages(p) }
        r.control("GET", project + "/messages/{id}") { g, _, p throws(ControlError) in try g.inspector.message(p) }
        r.control("DELETE", project + "/messages/{id}") { g, _, p throws(ControlError) in try g.controlProjects.deleteMessage(p) }
        r.control("GET", project + "/topics") { g, _, p throws(ControlError) in try g.inspector.listTopics(p) }
        r.control("GET", project + "/reports") { g, req, p throws(ControlError) in try g.controlEvents.reports(req, p) }
        r.control("GET", project + "/events:stream") { g, req, p throws(ControlError) in
            try g.controlEvents.stream(req, p, format: .sse)
        }
        r.control("GET", project + "/events:export") { g, req, p throws(ControlError) in
            try g.controlEvents.stream(req, p, format: .ndjson)
        }
        r.control("GET", project + "/events") { g, req, p throws(ControlError) in try g.controlEvents.events(req, p) }
        return r.router
    }
}
