/// FCM's legacy HTTP API (docs/reference/fcm-legacy.md), shut down by Google in 2024: sends,
/// device groups, the batch endpoint, and the Instance ID topic API
/// (docs/reference/topics.md), behind Google's front end.
struct LegacyModule: GatewayModule {
    let send: LegacyAPI
    let groups: DeviceGroupsAPI
    let instanceID: InstanceIDAPI
    let shutdown: LegacyShutdown

    static let style = GoogleFrontEndStyle.plain

    func addRoutes(to routes: inout Routes) {
        routes.group("", Self.style) { r in
            // Under `--legacy-api shutdown` these answer as Google does now (`LegacyShutdown`).
            r.addSend("POST", "/fcm/send", unread: send.unread, shutdown.guarding(send.send))
            r.addSend("POST", "/gcm/send", unread: send.unread, shutdown.guarding(send.send))
            r.add("POST", "/fcm/notification", shutdown.guarding(groups.manage))
            r.add("GET", "/fcm/notification", shutdown.guarding(groups.lookup))
            // The multipart batch endpoint, removed in 2024: only ever Google's 404.
            for method in ["POST", "GET"] {
                r.add(method, "/batch", shutdown.guarding { .response(GoogleFrontEnd.notFound($0.path)) })
            }
        }
        routes.group("/iid", Self.style) { r in
            r.add("POST", "/v1:batchAdd") { req, _ in instanceID.batch(req, add: true) }
            r.add("POST", "/v1:batchRemove") { req, _ in instanceID.batch(req, add: false) }
            r.add("POST", "/v1/{token}/rel/topics/{topic}", instanceID.relate)
            r.add("GET", "/info/{token}", instanceID.info)
        }
    }
}
