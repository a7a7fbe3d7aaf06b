/// Firebase Installations (`firebaseinstallations.googleapis.com/v1`), as the iOS, JS and
/// Android SDKs and firebase-messaging call it (docs/reference/fcm-clients.md §1): create an
/// installation (the client's FID, or a new one), generate an auth token with its refresh
/// token, delete it (and the token registered with it). An installation belongs to the project its path names; its auth token
/// authorizes the token registrations (`WebRegistrationsAPI`, `GCMRegisterAPI`). Loop thread only.
struct InstallationsAPI {
    let book: ClientBook
    let directory: ProjectDirectory
    let registration: DeviceRegistration
    let changes: StateChanges
    let clock: Clock
    let random: RandomSource
    /// Android gzips its bodies (the server's zlib; nil in Core's tests).
    let inflate: (([UInt8]) -> [UInt8]?)?

    /// Auth tokens last a week, as Google's do (`expiresIn` "604800s").
    static let authTokenLifetime: Timestamp = 604_800_000_000
    static let service = "firebaseinstallations.googleapis.com"

    /// The `Installation` a client posts (docs/reference/fcm-clients.md §1).
    static let installation = ProtoType.message(
        "google.firebase.installations.v1.Installation",
        [
            "name": .string, "fid": .string, "app_id": .string, "auth_version": .string, "sdk_version": .string,
            "refresh_token": .string,
        ])

    /// `POST /v1/projects/{project}/installations` (iOS adds a trailing slash).
    func create(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            try GoogleAPIRequest.checkAPIKey(request, service: Self.service)
            let project = try self.project(params)
            let body = try GoogleAPIRequest.message(request, inflate: inflate, as: Self.installation)
            guard let appID = body["app_id"]?.stringValue, !appID.isEmpty else {
                throw GoogleAPIRequest.invalid("Request contains an invalid argument.")
            }
            if let version = body["auth_version"]?.stringValue, version != "FIS_v2" {
                throw GoogleAPIRequest.invalid("Request contains an invalid argument.")
            }
            guard book.installationCount < ClientBook.limit else {
                throw GoogleAPIRequest.Refused(
                    response: .googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."))
            }
            // The client's FID is kept when it is one (firebase-messaging's standard base64
            // of 17 bytes included); anything else gets a new one, which the SDKs adopt.
            let given = body["fid"]?.stringValue ?? ""
            let fid = Self.acceptable(given) ? given : Identifiers.fid(random)
            let installation = ClientBook.Installation(
                projectID: project.id, fid: fid, appID: appID, refreshToken: "3_" + random.base64URL(86),
                authToken: authToken(), authExpires: clock.now() + Self.authTokenLifetime,
                sdkVersion: body["sdk_version"]?.stringValue ?? "")
            book.add(installation)
            changes.project(project.id)
            var w = JSONWriter(capacity: 512)
            w.object { w in
                w.member("name", "projects/\(project.id)/installations/\(fid)")
                w.member("fid", fid)
                w.member("refreshToken", installation.refreshToken)
                w.member("authToken") { w in w.object { write(installation, to: &$0) } }
            }
            return .json(200, w)
        }
    }

    /// `POST .../installations/{id}/authTokens:generate` with `Authorization: FIS_v2 <refresh token>`.
    func generate(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            try GoogleAPIRequest.checkAPIKey(request, service: Self.service)
            let installation = try authorized(request, params)
            let renewed = book.renew(installation, token: authToken(), expires: clock.now() + Self.authTokenLifetime)
            changes.project(renewed.projectID)
            var w = JSONWriter(capacity: 256)
            w.object { write(renewed, to: &$0) }
            return .json(200, w)
        }
    }

    /// `DELETE .../installations/{id}` (iOS adds a trailing slash and sends `{}`).
    func delete(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            try GoogleAPIRequest.checkAPIKey(request, service: Self.service)
            let installation = try authorized(request, params)
            book.remove(installation)
            // The token registered with it goes too.
            if let d = directory.device(at: .installation(installation.fid)), d.realClient?.kind == .firebaseSDK,
                let project = directory[d.projectID]
            {
                registration.uninstall(d, project: project)
            }
            changes.project(installation.projectID)
            return .json(200, "{}")
        }
    }

    // MARK: Parts

    private func write(_ i: ClientBook.Installation, to w: inout JSONWriter) {
        w.member("token", i.authToken)
        w.member("expiresIn", "\(max(0, (i.authExpires - clock.now()) / 1_000_000))s")
    }

    private func authToken() -> String {
        "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9." + random.base64URL(160) + "." + random.base64URL(86)
    }

    /// The project named in the path (by id or number; a new id is created on first use, as
    /// everywhere in pushmock).
    private func project(_ params: PathParameters) throws(GoogleAPIRequest.Refused) -> Project {
        let name = params[.project] ?? ""
        guard let project = directory.apiProject(name) ?? directory.project(name) else {
            throw GoogleAPIRequest.Refused(
                response: .googleError(403, "PERMISSION_DENIED", "Permission denied on resource project \(name)."))
        }
        return project
    }

    /// The installation the path names, whose refresh token the request carries.
    private func authorized(_ request: Request, _ params: PathParameters) throws(GoogleAPIRequest.Refused)
        -> ClientBook.Installation
    {
        guard let header = request.header("authorization") else { throw Self.unauthenticated(missing: true) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == "FIS_v2", let i = book.installation(refreshToken: String(parts[1])) else {
            throw Self.unauthenticated(missing: false)
        }
        let project = directory.apiProject(params[.project] ?? "")
        guard project?.id == i.projectID, params[.id] == i.fid else {
            throw GoogleAPIRequest.Refused(response: .googleError(404, "NOT_FOUND", "Requested entity was not found."))
        }
        return i
    }

    static func unauthenticated(missing: Bool) -> GoogleAPIRequest.Refused {
        let message =
            missing
            ? "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
            : "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
        return GoogleAPIRequest.Refused(response: .googleError(401, "UNAUTHENTICATED", message))
    }

    /// A FID the client made: 22 URL-safe base64 characters, or firebase-messaging's 24
    /// standard ones; at most 64 of either alphabet.
    static func acceptable(_ fid: String) -> Bool {
        (16...64).contains(fid.utf8.count)
            && fid.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
                    || c == 0x2B || c == 0x2F || c == 0x3D
            }
    }
}
