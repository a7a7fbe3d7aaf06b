/// Google's client side as a module (docs/fcm-clients.md): the APIs real FCM clients register
/// with (Firebase Installations, FCM registrations, GCM check-in and `register3`, the iOS SDK's
/// token registration), each group answering in its service's style, and the MCS server they
/// then keep a connection to (`MCSServer`, on a listener of its own).
struct FCMClientsModule: GatewayModule {
    let installations: InstallationsAPI
    let webRegistrations: WebRegistrationsAPI
    let checkins: CheckinAPI
    let register: GCMRegisterAPI
    /// The MCS server (held here; each real client's device holds it weakly).
    let mcs: MCSServer
    let book: ClientBook

    func tick() { mcs.sweep() }

    func addRoutes(to routes: inout Routes) {
        routes.group("/v1/projects/{project}/installations", GoogleFrontEndStyle.rest) { r in
            // iOS adds a trailing slash to create and delete.
            for slash in ["", "/"] {
                r.add("POST", slash) { req, p in installations.create(req, p) }
                r.add("DELETE", "/{id}" + slash) { req, p in installations.delete(req, p) }
            }
            r.add("POST", "/{id}/authTokens:generate") { req, p in installations.generate(req, p) }
            // Web pages call these from any origin (the JS SDK's `fetch`).
            for path in ["", "/", "/{id}", "/{id}/", "/{id}/authTokens:generate"] {
                r.add("OPTIONS", path) { req, _ in GoogleAPIRequest.preflight(req) }
            }
        }
        routes.group("/v1/projects/{project}/registrations", GoogleFrontEndStyle.rest) { r in
            r.add("POST", "") { req, p in webRegistrations.create(req, p) }
            r.add("GET", "/{token}") { req, p in webRegistrations.get(req, p) }
            r.add("PATCH", "/{token}") { req, p in webRegistrations.update(req, p) }
            r.add("DELETE", "/{token}") { req, p in webRegistrations.delete(req, p) }
            for path in ["", "/{token}"] { r.add("OPTIONS", path) { req, _ in GoogleAPIRequest.preflight(req) } }
        }
        routes.group("", GoogleFrontEndStyle.plain) { r in
            r.add("POST", "/checkin") { req, _ in checkins.checkin(req) }
            r.add("POST", "/c2dm/register3") { req, _ in register.register3(req) }
            r.add("POST", "/register") { req, _ in register.registerIOS(req) }
        }
    }
}
