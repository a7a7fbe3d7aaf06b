/// Every route pushmock serves, on one screen.
extension Gateway {
    static func routes() -> Router<Handler> {
        var r = Router<Handler>()
        r.add("GET", "/healthz") { _, _, _ in .response(.json(200, "{\"status\":\"ok\"}")) }
        r.add("GET", "/metrics") { g, _, _ in g.metricsText() }

        // The dashboard
        r.add("GET", "/") { g, req, _ in g.asset(req) }
        r.add("GET", "/ui/{file}") { g, req, _ in g.asset(req) }

        // FCM legacy HTTP (protocol.md §A)
        r.add("POST", "/fcm/send") { g, req, _ in g.legacySend(req) }
        r.add("POST", "/gcm/send") { g, req, _ in g.legacySend(req) }
        r.add("POST", "/fcm/notification") { g, req, _ in g.manageGroup(req) }
        r.add("GET", "/fcm/notification") { g, req, _ in g.lookupGroup(req) }

        // Instance ID topic management (§C)
        r.add("POST", "/iid/v1:batchAdd") { g, req, _ in g.iidBatch(req, add: true) }
        r.add("POST", "/iid/v1:batchRemove") { g, req, _ in g.iidBatch(req, add: false) }
        r.add("POST", "/iid/v1/{token}/rel/topics/{topic}") { g, req, p in g.iidRelate(req, p) }
        r.add("GET", "/iid/info/{token}") { g, req, p in g.iidInfo(req, p) }

        // FCM HTTP v1 (§B)
        r.add("POST", "/v1/projects/{project}/messages:send") { g, req, p in g.v1Send(req, p) }

        // HTTP v1 topic management
        r.add("POST", "/v1/projects/{project}/registrations/{token}/topicSubscriptions") { g, req, p in g.subscribeTopic(req, p) }
        r.add("DELETE", "/v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}") { g, req, p in g.unsubscribeTopic(req, p) }

        // APNs provider API (§E), over HTTP/2 on the TLS port
        r.add("POST", "/3/device/{token}") { g, req, p in g.apnsSend(req, p) }

        // Google's OAuth 2 token endpoint
        r.add("POST", "/token") { g, req, _ in g.token(req) }

        // Control API
        let project = "/emulator/v1/projects/{project}"
        r.add("GET", "/emulator/v1/ca.pem") { g, req, _ in g.caCertificate(req) }
        r.add("GET", "/emulator/v1/clock") { g, req, p in Control.run { () throws(ControlError) in try g.clockInfo(req, p) } }
        r.add("POST", "/emulator/v1/clock:advance") { g, req, p in Control.run { () throws(ControlError) in try g.advanceClock(req, p) } }
        r.add("GET", project) { g, req, p in Control.run { () throws(ControlError) in try g.projectInfo(req, p) } }
        r.add("DELETE", project) { g, req, p in Control.run { () throws(ControlError) in try g.resetProject(req, p) } }
        r.add("GET", project + "/apps") { g, req, p in Control.run { () throws(ControlError) in try g.listApps(req, p) } }
        r.add("GET", project + "/serviceAccount") { g, req, p in Control.run { () throws(ControlError) in try g.serviceAccount(req, p) } }
        r.add("POST", project + "/apnsKeys") { g, req, p in Control.run { () throws(ControlError) in try g.addAPNsKey(req, p) } }
        r.add("GET", project + "/apnsKeys") { g, req, p in Control.run { () throws(ControlError) in try g.listAPNsKeys(req, p) } }
        r.add("POST", project + "/apnsCertificates") { g, req, p in Control.run { () throws(ControlError) in try g.issueAPNsCertificate(req, p) } }
        r.add("GET", project + "/chaos") { g, req, p in Control.run { () throws(ControlError) in try g.getChaos(req, p) } }
        r.add("PUT", project + "/chaos") { g, req, p in Control.run { () throws(ControlError) in try g.putChaos(req, p) } }
        r.add("DELETE", project + "/chaos") { g, req, p in Control.run { () throws(ControlError) in try g.deleteChaos(req, p) } }
        r.add("POST", project + "/apps") { g, req, p in Control.run { () throws(ControlError) in try g.putApp(req, p) } }
        r.add("POST", project + "/devices") { g, req, p in g.createDevice(req, p) }
        r.add("POST", project + "/devices:batchCreate") { g, req, p in Control.run { () throws(ControlError) in try g.batchCreateDevices(req, p) } }
        r.add("GET", project + "/devices") { g, req, p in g.listDevices(req, p) }
        r.add("POST", project + "/devices/{id}:enableAutoInit") { g, req, p in g.enableAutoInit(req, p) }
        r.add("POST", project + "/devices/{id}:refreshToken") { g, req, p in g.refreshToken(req, p) }
        r.add("POST", project + "/devices/{id}:reinstall") { g, req, p in g.reinstall(req, p) }
        r.add("POST", project + "/devices/{id}:scriptErrors") { g, req, p in g.scriptErrors(req, p) }
        r.add("POST", project + "/devices/{id}/notifications/{message_id}:open") { g, req, p in g.openNotification(req, p) }
        r.add("GET", project + "/devices/{id}") { g, req, p in g.getDevice(req, p) }
        r.add("PATCH", project + "/devices/{id}") { g, req, p in g.patchDevice(req, p) }
        r.add("DELETE", project + "/devices/{id}") { g, req, p in g.deleteDevice(req, p) }
        r.add("POST", project + "/devices/{id}/topics/{topic}") { g, req, p in g.deviceTopic(req, p, subscribe: true) }
        r.add("DELETE", project + "/devices/{id}/topics/{topic}") { g, req, p in g.deviceTopic(req, p, subscribe: false) }
        r.add("GET", project + "/devices/{id}/notifications") { g, req, p in g.deviceNotifications(req, p) }
        r.add("GET", project + "/messages") { g, req, p in Control.run { () throws(ControlError) in try g.listMessages(req, p) } }
        r.add("DELETE", project + "/messages") { g, req, p in Control.run { () throws(ControlError) in try g.clearMessages(req, p) } }
        r.add("GET", project + "/messages/{id}") { g, req, p in Control.run { () throws(ControlError) in try g.getMessage(req, p) } }
        r.add("GET", project + "/topics") { g, req, p in Control.run { () throws(ControlError) in try g.listTopics(req, p) } }
        r.add("GET", project + "/reports") { g, req, p in Control.run { () throws(ControlError) in try g.reports(req, p) } }
        // FCM Data API (§G.3)
        r.add("GET", "/v1beta1/projects/{project}/androidApps/{app}/deliveryData") { g, req, p in
            Control.run { () throws(ControlError) in try g.deliveryData(req, p) }
        }
        r.add("GET", project + "/events:stream") { g, req, p in Control.run { () throws(ControlError) in try g.eventStream(req, p, format: .sse) } }
        r.add("GET", project + "/events:export") { g, req, p in Control.run { () throws(ControlError) in try g.eventStream(req, p, format: .ndjson) } }
        r.add("GET", project + "/events") { g, req, p in Control.run { () throws(ControlError) in try g.events(req, p) } }
        return r
    }
}
