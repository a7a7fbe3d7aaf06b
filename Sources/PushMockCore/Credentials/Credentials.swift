/// The credentials pushmock issued or was given: service accounts and the OAuth access
/// tokens they were exchanged for (Google's APIs), and APNs auth keys (the provider API).
/// Loop thread only.
final class Credentials {
    static let accessTokenLifetime: Timestamp = 3600 * 1_000_000

    /// RSA and P-256 keys, signatures and certificates; nil in tests that need none.
    let keys: (any KeyService)?
    /// Web Push's keys and signatures; nil in tests that need none.
    let webPush: (any WebPushCrypto)?
    private let directory: ProjectDirectory
    private let clock: Clock
    private let configuration: Configuration
    private let changes: StateChanges
    /// Service accounts by client email; access tokens handed out by `POST /token`.
    private(set) var serviceAccounts: [String: ServiceAccount] = [:]
    private(set) var accessTokens: [String: AccessToken] = [:]
    /// The access token the last `Authorization` value with a known one carried.
    private var lastBearer = Remembered<String, AccessToken>()
    /// APNs auth keys registered in any project, by key id.
    private(set) var apnsKeys: [String: APNsKey] = [:]
    private var apnsKeysVersion = 0

    init(
        keys: (any KeyService)?, webPush: (any WebPushCrypto)?, directory: ProjectDirectory, clock: Clock,
        configuration: Configuration, changes: StateChanges
    ) {
        self.keys = keys
        self.webPush = webPush
        self.directory = directory
        self.clock = clock
        self.configuration = configuration
        self.changes = changes
    }

    /// Each project's own service account, by client email: the first one with a private
    /// key, which `GET .../serviceAccount` hands out every time.
    private(set) var projectAccounts: [String: String] = [:]

    func add(_ account: ServiceAccount) {
        serviceAccounts[account.email] = account
        if account.privateKeyPEM != nil, projectAccounts[account.projectID] == nil {
            projectAccounts[account.projectID] = account.email
        }
        changes.project(account.projectID)
    }

    /// The project's own service account, if it has one yet.
    func projectAccount(_ projectID: String) -> ServiceAccount? { projectAccounts[projectID].flatMap { serviceAccounts[$0] } }

    /// The project's Web Push certificate, made on first use as the console's "Generate key
    /// pair" does; nil without Web Push's cryptography.
    func webPushKey(of project: Project) -> WebPushKeyPair? {
        if let key = project.webPushKey { return key }
        guard let pair = try? webPush?.makeP256KeyPair() else { return nil }
        project.webPushKey = WebPushKeyPair(privateKey: pair.privateKey, publicKey: pair.publicKey)
        changes.project(project.id)
        return project.webPushKey
    }

    /// The console's "Import existing key pair": a P-256 private key (32 bytes); nil when it
    /// is not one.
    func importWebPushKey(_ privateKey: [UInt8], into project: Project) -> WebPushKeyPair? {
        guard let publicKey = webPush?.publicKey(ofPrivateKey: privateKey) else { return nil }
        project.webPushKey = WebPushKeyPair(privateKey: privateKey, publicKey: publicKey)
        changes.project(project.id)
        return project.webPushKey
    }

    /// Hands out an access token for a service account, valid for an hour.
    func issueAccessToken(_ token: String, for account: ServiceAccount, scopes: Set<String>) {
        add(
            accessToken: token,
            AccessToken(
                projectID: account.projectID, email: account.email,
                expires: clock.now() + Self.accessTokenLifetime, scopes: scopes))
    }

    func add(accessToken text: String, _ token: AccessToken) {
        accessTokens[text] = token
        lastBearer.clear()
    }

    /// The access token an `Authorization` value carries, if pushmock issued it.
    func accessToken(authorization header: String) -> AccessToken? {
        lastBearer.value(for: header) { Authorization.bearerToken(header).flatMap { accessTokens[$0] } }
    }

    func add(_ key: APNsKey) {
        apnsKeys[key.keyID] = key
        apnsKeysVersion &+= 1
        changes.project(key.projectID)
    }

    /// Moves when APNs keys or projects change: provider tokens verified before are looked at again.
    var apnsVersion: Int { apnsKeysVersion &+ directory.version }

    /// Why a bearer credential does not let the request act on `projectID`, in Google's
    /// error shape; nil when it does (or `--accept-any-token`). The token comes in the
    /// `Authorization` header or, as on every Google API, the `access_token` query parameter
    /// (docs/fcm-v1.md, "Authentication"). An API that needs one scope (the Data API:
    /// `cloud-platform`) names it in `scope`, with its service for the error's details.
    func bearerFailure(_ request: Request, projectID: String, scope: (name: String, service: String)? = nil) -> Response? {
        if configuration.acceptAnyToken { return nil }
        let presented: AccessToken?
        if let header = request.header("authorization") {
            presented = accessToken(authorization: header)
        } else if let query = request.queryValue("access_token") {
            presented = accessTokens[query]
        } else {
            return Self.unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                invalidToken: false)
        }
        guard let token = presented, token.expires > clock.now() else {
            return Self.unauthenticated(
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                invalidToken: true)
        }
        if let scope, !token.scopes.contains(scope.name) { return Self.insufficientScope(scope.name, service: scope.service) }
        guard let project = directory.apiProject(projectID), project.id == token.projectID else {
            return scope == nil ? Self.permissionDenied(projectID) : Self.callerDenied
        }
        return nil
    }

    /// A token without the scope the API needs: Google's 403 with `ACCESS_TOKEN_SCOPE_INSUFFICIENT`.
    static func insufficientScope(_ scope: String, service: String) -> Response {
        var info = JSONWriter()
        info.beginObject()
        info.member("@type", "type.googleapis.com/google.rpc.ErrorInfo")
        info.member("reason", "ACCESS_TOKEN_SCOPE_INSUFFICIENT")
        info.member("domain", "googleapis.com")
        info.key("metadata")
        info.beginObject()
        info.member("service", service)
        info.endObject()
        info.endObject()
        var r = Response.googleError(
            403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", details: [info.text])
        r.headers.append(
            (
                "WWW-Authenticate",
                "Bearer realm=\"https://accounts.google.com/\", error=\"insufficient_scope\", scope=\"\(scope)\""
            ))
        return r
    }

    /// Another project's token on an API without a documented permission text.
    static let callerDenied = Response.googleError(403, "PERMISSION_DENIED", "The caller does not have permission")

    /// The project a Google API path names once its bearer passed: an existing one, or with
    /// `--accept-any-token` any valid id (created on first use, as the control API does).
    func googleAPIProject(_ idOrNumber: String) -> Project? {
        directory.apiProject(idOrNumber) ?? (configuration.acceptAnyToken ? directory.project(idOrNumber) : nil)
    }

    static func permissionDenied(_ projectID: String) -> Response {
        .googleError(
            403, "PERMISSION_DENIED",
            "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(projectID)' (or it may not exist)."
        )
    }

    static func unauthenticated(_ message: String, invalidToken: Bool) -> Response {
        var r = Response.googleError(401, "UNAUTHENTICATED", message)
        if invalidToken {
            r.headers.append(("WWW-Authenticate", "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""))
        }
        return r
    }
}
