/// FCM HTTP v1 (docs/reference/fcm-v1.md): `messages:send` and its topic management, behind
/// Google's front end.
struct V1Module: GatewayModule {
    let send: V1API
    let topicSubscriptions: TopicSubscriptionsAPI

    static let style = GoogleFrontEndStyle(unavailable: V1API.storeUnavailable)

    func addRoutes(to routes: inout Routes) {
        routes.group("/v1/projects/{project}", Self.style) { r in
            r.addSend("POST", "/messages:send", unread: send.unread, send.send)
            r.add("POST", "/registrations/{token}/topicSubscriptions", topicSubscriptions.subscribe)
            r.add("DELETE", "/registrations/{token}/topicSubscriptions/{topic}", topicSubscriptions.unsubscribe)
        }
    }
}
