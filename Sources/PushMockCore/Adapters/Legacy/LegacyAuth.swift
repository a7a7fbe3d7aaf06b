/// `Authorization: key=<server key>` for `/fcm/send`, `/fcm/notification` and the Instance
/// ID API (the last two take an OAuth bearer token too), and FCM's 401 page when it does not
/// name a project. Loop thread only.
struct LegacyAuth {
    let directory: ProjectDirectory
    let credentials: Credentials
    let log: EventLog
    let clock: Clock
    let configuration: Configuration

    /// The project whose server key the request carries; with `--accept-any-key`, the key's
    /// project if it names one, else the configured project.
    func project(_ request: Request) -> Project? {
        if let header = request.header("authorization"), let p = directory.project(serverKeyAuthorization: header) {
            return p
        }
        return configuration.acceptAnyKey ? directory.defaultProject : nil
    }

    /// The Instance ID API and device-group management also take an OAuth bearer token with
    /// `access_token_auth: true` (what firebase-admin's legacy topic calls send, and what
    /// FCM's device-group docs give as the current way, §A.9): the token's project.
    func projectAcceptingBearer(_ request: Request) -> Project? {
        if let p = project(request) { return p }
        guard request.header("access_token_auth") == "true", let header = request.header("authorization"),
            Authorization.bearerToken(header) != nil
        else { return nil }
        if configuration.acceptAnyToken { return directory.defaultProject }
        guard let token = credentials.accessToken(authorization: header), token.expires > clock.now() else { return nil }
        return directory[token.projectID]
    }

    /// FCM's 401 page (docs/reference/fcm-legacy.md §A.6), logged as AUTHENTICATION_ERROR.
    func unauthorized(_ request: Request) -> Reply {
        let p = directory.defaultProject
        log.append(
            kind: .authenticationError, time: clock.now(), projectID: p.id, projectNumber: p.number,
            reason: request.header("authorization") == nil ? "missing_authorization" : "invalid_key")
        return .response(.html(401, Self.unauthorizedPage))
    }

    static let unauthorizedPage = """
        <HTML>
        <HEAD>
        <TITLE>Unauthorized</TITLE>
        </HEAD>
        <BODY BGCOLOR="#FFFFFF" TEXT="#000000">
        <H1>Unauthorized</H1>
        <H2>Error 401</H2>
        </BODY>
        </HTML>

        """
}
