/// Who may use pushmock's own control API and dashboard (docs/exposure.md). They answer only to
/// the host names pushmock is known by: loopback, the issued certificate's names, `--tls-san`,
/// `--host` and `--allow-host` (`*` for any), so a page that rebinds its DNS name to pushmock
/// cannot drive them. The control API takes JSON bodies only (a browser's form or `text/plain`
/// post from another site is refused), and with `--control-token` it needs that token. FCM and
/// APNs routes are not affected: they keep answering to the Google and Apple names clients use.
struct Exposure {
    /// Lower-case host names, without port; empty with `*`.
    private let names: Set<String>
    private let anyHost: Bool
    private let token: String?

    init(configuration c: Configuration) {
        anyHost = c.allowedHosts.contains("*")
        token = c.controlToken
        names = Set((Configuration.certificateNames + c.tlsSANs + c.allowedHosts + [c.host]).map { $0.lowercased() })
    }

    /// Who may call a group's routes.
    enum Scope: Sendable {
        /// Anyone: the FCM and APNs APIs, `/healthz`, `/metrics`.
        case anyone
        /// Clients that name pushmock by a host name it is known by: the dashboard.
        case knownHosts
        /// The control API: a known host name, JSON bodies, and the `--control-token`.
        case controlAPI
    }

    /// The answer refusing `request` to a route of `scope`, or nil when it may go on.
    func refusal(_ request: Request, _ scope: Scope) -> Response? {
        if scope == .anyone { return nil }
        if !anyHost, let host = request.header("host").map(Self.name), !names.contains(host) {
            let text =
                "pushmock does not answer its control API and dashboard to the host '\(host)'; start it with --allow-host \(host)."
            return scope == .controlAPI
                ? .googleError(403, "PERMISSION_DENIED", text)
                : GoogleFrontEnd.page(403, "Forbidden", GoogleFrontEnd.escape(text))
        }
        guard scope == .controlAPI else { return nil }
        if let token, !Self.carries(request, token) {
            return .googleError(
                401, "UNAUTHENTICATED", "The control API needs the --control-token: send Authorization: Bearer <token>.")
        }
        if !request.body.isEmpty, !Self.isJSON(request.header("content-type")) {
            return .googleError(
                415, "INVALID_ARGUMENT", "The control API takes JSON bodies: send Content-Type: application/json.")
        }
        return nil
    }

    /// The host name of a `Host` value, lower-case, without port or IPv6 brackets.
    static func name(_ host: String) -> String {
        var h = Substring(host.lowercased())
        if h.hasPrefix("[") {
            h = h.dropFirst().prefix { $0 != "]" }
        } else if let colon = h.lastIndex(of: ":"), h.firstIndex(of: ":") == colon {
            h = h[..<colon]
        }
        return String(h)
    }

    private static func carries(_ request: Request, _ token: String) -> Bool {
        if let auth = request.header("authorization"), Authorization.bearerToken(auth, trimmed: true) == token { return true }
        // EventSource cannot set headers: the dashboard's streams send it in the query.
        return request.queryValue("access_token") == token
    }

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) else { return false }
        return type.lowercased() == "application/json"
    }
}
