/// `--legacy-api shutdown`: FCM's legacy send and device-group endpoints (and the batch
/// endpoint) answer as Google has since the legacy API was shut down, with its front end's
/// plain 404 page, so a team can prove in CI that nothing still calls them. Each call is
/// logged as `LEGACY_API_CALL`, naming the endpoint and the caller, so the log and the
/// dashboard show who still does (docs/fcm-legacy.md, "The legacy API as it answers today").
struct LegacyShutdown {
    /// Whether the switch is on.
    let shutDown: Bool
    let auth: LegacyAuth
    let directory: ProjectDirectory
    let log: EventLog
    let clock: Clock

    /// `handle` as Google answered before the shutdown; under the switch, its answer now.
    func guarding(_ handle: @escaping (Request) -> Reply) -> (Request, PathParameters) -> Reply {
        { request, _ in answer(request) ?? handle(request) }
    }

    /// The 404 answer when the switch is on; nil when the legacy API is available.
    func answer(_ request: Request) -> Reply? {
        guard shutDown else { return nil }
        let project = auth.project(request) ?? directory.defaultProject
        var caller = request.method + " " + request.path
        if let agent = request.header("user-agent") { caller += " (User-Agent: \(agent))" }
        log.append(
            kind: .legacyAPICall, time: clock.now(), projectID: project.id, projectNumber: project.number, reason: caller)
        return .response(.html(404, Self.legacyNotFoundPage))
    }

    /// Google's answer to `POST /fcm/send` since the shutdown, as a client logged it in
    /// February 2025 (text/html; charset=UTF-8).
    static let legacyNotFoundPage = """
        <HTML>
        <HEAD>
        <TITLE>Not Found</TITLE>
        </HEAD>
        <BODY BGCOLOR="#FFFFFF" TEXT="#000000">

        <H1>Not Found</H1>
        <H2>Error 404</H2>
        </BODY>
        </HTML>

        """
}
