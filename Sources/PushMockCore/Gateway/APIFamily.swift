/// The service whose conventions a route answers in. Each route declares its family; a
/// request no route takes gets the family of the routes under its first path segment. The
/// answers a route does not write itself (no route, wrong method, a log that cannot be
/// written, a request the transport could not read) are chosen here, by family, in one place.
public enum APIFamily: Sendable {
    /// FCM's legacy HTTP API, device groups and the Instance ID API: Google's front-end
    /// pages for unknown paths, plain text for a 503.
    case legacy
    /// Google's REST APIs (FCM HTTP v1, its topic subscriptions, the Data API, OAuth):
    /// front-end pages for unknown paths, `google.rpc.Status` JSON otherwise.
    case google
    /// pushmock's control API: `google.rpc.Status` JSON for everything.
    case control
    /// The APNs provider API: a JSON `reason` with the `apns-id`.
    case apns
    /// The dashboard, `/healthz` and `/metrics`: Google's front-end pages.
    case site
}

extension Gateway {
    /// The answer to a path no route serves, or a method its routes do not take.
    func unrouted(_ request: Request, _ family: APIFamily, methodNotAllowed: Bool) -> Response {
        switch family {
        case .apns:
            return apns.unrouted(request, methodNotAllowed: methodNotAllowed)
        case .control:
            return methodNotAllowed
                ? .googleError(405, "METHOD_NOT_ALLOWED", "Method \(request.method) is not allowed on \(request.path).")
                : .googleError(404, "NOT_FOUND", "No route for \(request.method) \(request.path).")
        case .legacy, .google, .site:
            return methodNotAllowed
                ? GoogleFrontEnd.methodNotAllowed(request.method, request.path) : GoogleFrontEnd.notFound(request.path)
        }
    }

    /// The answer a send gets when its events cannot be made durable, with the back-off each
    /// service asks for: APNs' 503 ServiceUnavailable, HTTP v1's 503 UNAVAILABLE, the legacy
    /// API's bare 503.
    func storeUnavailable(_ request: Request, _ family: APIFamily) -> Response {
        switch family {
        case .apns: return apns.serviceUnavailable(request)
        case .google: return V1API.storeUnavailable
        case .control: return .googleError(503, "UNAVAILABLE", "The delivery log cannot be written.")
        case .legacy, .site: return LegacyAPI.storeUnavailable
        }
    }
}
