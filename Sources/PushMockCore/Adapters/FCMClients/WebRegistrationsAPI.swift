/// FCM registrations (`fcmregistrations.googleapis.com/v1/projects/{project}/registrations`),
/// the API the Firebase JS SDK and firebase-messaging get a Web token from
/// (docs/reference/fcm-clients.md §2): a browser's push subscription (endpoint, `p256dh`,
/// `auth`, application key) in, an FCM token out, authorized by an installation's auth token.
/// The token is a Web device of the project carrying that subscription: an FCM send to it is
/// encrypted for the browser's keys and handed to the subscription's push service
/// (`WebPushRelay`), pushmock's own when the endpoint is one of its. The iOS SDK's opt-in FID
/// registration (`ios`) makes an iOS device whose address is the FID. Loop thread only.
struct WebRegistrationsAPI {
    let book: ClientBook
    let directory: ProjectDirectory
    let registration: DeviceRegistration
    let changes: StateChanges
    let clock: Clock
    let random: RandomSource
    let inflate: (([UInt8]) -> [UInt8]?)?

    static let service = "fcmregistrations.googleapis.com"

    /// The registration a client posts (docs/reference/fcm-clients.md §2): a Web
    /// subscription, or the iOS SDK's APNs token.
    static let registration = ProtoType.message(
        "google.firebase.fcm.registration.v1.Registration",
        [
            "name": .string, "token": .string, "fcm_sdk_version": .string,
            "web": .message(
                "google.firebase.fcm.registration.v1.WebRegistration",
                [
                    "endpoint": .string, "p256dh": .string, "auth": .string, "application_pub_key": .string,
                    "origin": .string, "scope": .string,
                ]),
            "ios": .message(
                "google.firebase.fcm.registration.v1.IosRegistration",
                ["apns_token": .string, "app_version": .string, "apns_environment": .string, "bundle_id": .string]),
        ])

    /// `POST .../registrations`: a Web token for the subscription (the same one again for the
    /// same installation and endpoint), or the iOS SDK's FID registration.
    func create(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            let (installation, project) = try authorized(request, params)
            let body = try GoogleAPIRequest.message(request, inflate: inflate, as: Self.registration)
            if let ios = body["ios"]?.objectValue { return try registerIOS(ios, installation, project, request) }
            let web = try webSubscription(body)
            let device = try register(web, installation, project, request, replacing: nil)
            return answer(device, project)
        }
    }

    /// `GET .../registrations/{token}`.
    func get(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            let (installation, project) = try authorized(request, params)
            return answer(try device(params, installation, project), project)
        }
    }

    /// `PATCH .../registrations/{token}`: the subscription changed (or the token is a week
    /// old); the answer's token may be new.
    func update(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            let (installation, project) = try authorized(request, params)
            let old = try device(params, installation, project)
            let web = try webSubscription(try GoogleAPIRequest.message(request, inflate: inflate, as: Self.registration))
            return answer(try register(web, installation, project, request, replacing: old), project)
        }
    }

    /// `DELETE .../registrations/{token}` (the JS SDK's `deleteToken`; the iOS SDK's
    /// unregister names the FID): the token is unregistered.
    func delete(_ request: Request, _ params: PathParameters) -> Reply {
        GoogleAPIRequest.run(request) { () throws(GoogleAPIRequest.Refused) in
            let (installation, project) = try authorized(request, params)
            let d = try device(params, installation, project)
            registration.uninstall(d, project: project)
            changes.project(project.id)
            return .json(200, "{}")
        }
    }

    // MARK: Parts

    /// The installation whose auth token the request carries (`x-goog-firebase-installations-auth`,
    /// with the JS SDK's `FIS ` prefix or without, as firebase-messaging and iOS send it), in
    /// the project the path names.
    private func authorized(_ request: Request, _ params: PathParameters) throws(GoogleAPIRequest.Refused)
        -> (ClientBook.Installation, Project)
    {
        try GoogleAPIRequest.checkAPIKey(request, service: Self.service)
        guard var token = request.header("x-goog-firebase-installations-auth") else {
            throw InstallationsAPI.unauthenticated(missing: true)
        }
        if token.hasPrefix("FIS ") { token.removeFirst(4) }
        guard let installation = book.installation(authToken: token), installation.authExpires > clock.now() else {
            throw InstallationsAPI.unauthenticated(missing: false)
        }
        guard let project = directory.apiProject(params[.project] ?? ""), project.id == installation.projectID else {
            throw GoogleAPIRequest.Refused(
                response: .googleError(403, "PERMISSION_DENIED", "The caller does not have permission"))
        }
        return (installation, project)
    }

    /// The Web device a path's token names, made with this installation.
    private func device(_ params: PathParameters, _ installation: ClientBook.Installation, _ project: Project)
        throws(GoogleAPIRequest.Refused) -> Device
    {
        let name = params[.token] ?? ""
        let d = directory.device(at: .registrationToken(name)) ?? directory.device(at: .installation(name))
        guard let d, d.projectID == project.id, d.fid == installation.fid, d.realClient?.kind == .firebaseSDK else {
            throw GoogleAPIRequest.Refused(response: .googleError(404, "NOT_FOUND", "Requested entity was not found."))
        }
        return d
    }

    /// `{"web": {"endpoint", "p256dh", "auth", "applicationPubKey", "origin"}}` as a remote
    /// subscription; `applicationPubKey` null or absent is FCM's default key.
    private func webSubscription(_ body: JSONObject) throws(GoogleAPIRequest.Refused) -> (PushSubscription, origin: String?) {
        guard let web = body["web"]?.objectValue, let endpoint = web["endpoint"]?.stringValue,
            let parts = Self.endpointParts(endpoint),
            let p256dh = web["p256dh"]?.stringValue.flatMap(Base64URL.decode), p256dh.count == 65, p256dh[0] == 4,
            let auth = web["auth"]?.stringValue.flatMap(Base64URL.decode), auth.count == 16
        else { throw GoogleAPIRequest.invalid("Request contains an invalid argument.") }
        var key: [UInt8]?
        if let text = web["application_pub_key"]?.stringValue {
            guard let k = Base64URL.decode(text), k.count == 65, k[0] == 4 else {
                throw GoogleAPIRequest.invalid("Request contains an invalid argument.")
            }
            key = k
        }
        let sub = PushSubscription(
            browser: parts.browser, origin: parts.origin, token: parts.token, applicationServerKey: key, privateKey: [],
            publicKey: p256dh, auth: auth, remotePath: parts.path)
        return (sub, web["origin"]?.stringValue)
    }

    /// An endpoint URL's origin, path and last segment, and whose push service it is: FCM's
    /// paths (`/fcm/send/`, `/wp/`) are Chrome's, `/wpush/` autopush's, Apple's host Safari's.
    static func endpointParts(_ endpoint: String) -> (origin: String, path: String, token: String, browser: Browser)? {
        guard endpoint.utf8.count <= 2048, endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://") else { return nil }
        let afterScheme = endpoint.firstRange(of: "://")!.upperBound
        guard let slash = endpoint[afterScheme...].firstIndex(of: "/") else { return nil }
        let origin = String(endpoint[..<slash])
        let path = String(endpoint[slash...])
        guard let token = path.split(separator: "/").last.map(String.init), !token.isEmpty, !path.contains("?") else {
            return nil
        }
        let host = endpoint[afterScheme..<slash].lowercased()
        let browser: Browser =
            path.hasPrefix("/wpush/") ? .firefox : (host.hasPrefix("web.push.apple.com") ? .safari : .chrome)
        return (origin, path, token, browser)
    }

    /// The Web device for a subscription: the installation's device for the same endpoint
    /// again, else a new one (one that replaces `replacing`, or another of the installation's,
    /// whose token is then unregistered).
    private func register(
        _ web: (PushSubscription, origin: String?), _ installation: ClientBook.Installation, _ project: Project,
        _ request: Request, replacing: Device?
    ) throws(GoogleAPIRequest.Refused) -> Device {
        let existing = replacing ?? directory.device(at: .installation(installation.fid))
        if let d = existing, d.pushSubscription?.endpoint == web.0.endpoint, d.pushSubscription?.publicKey == web.0.publicKey,
            d.pushSubscription?.auth == web.0.auth, d.pushSubscription?.applicationServerKey == web.0.applicationServerKey
        {
            return d
        }
        if let d = existing, d.projectID == project.id { registration.uninstall(d, project: project) }
        let client = RealClient(
            kind: .firebaseSDK, clientID: installation.fid, userAgent: Self.userAgent(request, installation), carrier: nil)
        guard
            let device = registration.registerSDKDevice(
                client, platform: .web, app: web.origin ?? installation.appID, fid: installation.fid,
                token: Identifiers.registrationToken(fid: Self.urlSafe(installation.fid, random), random), apns: nil,
                subscription: web.0, in: project)
        else {
            throw GoogleAPIRequest.Refused(
                response: .googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."))
        }
        changes.project(project.id)
        return device
    }

    /// The iOS SDK's FID registration: an iOS device whose FCM address is the FID.
    private func registerIOS(_ ios: JSONObject, _ installation: ClientBook.Installation, _ project: Project, _ request: Request)
        throws(GoogleAPIRequest.Refused) -> Response
    {
        guard let hex = ios["apns_token"]?.stringValue?.lowercased(), APNsToken(hex) != nil,
            let bundle = ios["bundle_id"]?.stringValue, !bundle.isEmpty
        else { throw GoogleAPIRequest.invalid("Request contains an invalid argument.") }
        let env: APNsEnvironment = ios["apns_environment"]?.stringValue == "PROD" ? .production : .sandbox
        if let d = directory.device(at: .installation(installation.fid)), d.projectID == project.id {
            registration.uninstall(d, project: project)
        }
        let client = RealClient(
            kind: .firebaseSDK, clientID: installation.fid, userAgent: Self.userAgent(request, installation), carrier: nil)
        guard
            registration.registerSDKDevice(
                client, platform: .ios, app: bundle, fid: installation.fid, token: nil, apns: (hex, env), subscription: nil,
                in: project) != nil
        else {
            throw GoogleAPIRequest.Refused(
                response: .googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."))
        }
        changes.project(project.id)
        return .json(200, #"{"name":"projects/\#(project.id)/registrations/\#(installation.fid)"}"#)
    }

    /// `{"name", "token", "web": {...}}`, as Google answers create, get and update.
    private func answer(_ d: Device, _ project: Project) -> Response {
        var w = JSONWriter(capacity: 512)
        w.object { w in
            w.member("name", "projects/\(project.id)/registrations/\(d.token ?? d.fid)")
            w.member("token", d.token ?? d.fid)
            if let sub = d.pushSubscription {
                w.member("web") { w in
                    w.object { w in
                        w.member("endpoint", sub.endpoint)
                        w.member("p256dh", Base64URL.encode(sub.publicKey))
                        w.member("auth", Base64URL.encode(sub.auth))
                        if let key = sub.applicationServerKey { w.member("applicationPubKey", Base64URL.encode(key)) }
                    }
                }
            }
        }
        return .json(200, w)
    }

    /// A token starts with its FID; one that is not URL-safe (firebase-messaging's standard
    /// base64) gives way to a new one, as tokens go in URL paths.
    static func urlSafe(_ fid: String, _ random: RandomSource) -> String {
        fid.contains(where: { "+/=".contains($0) }) ? Identifiers.fid(random) : fid
    }

    /// What the client says it is: the SDK version its installation gave, and its user agent.
    static func userAgent(_ request: Request, _ installation: ClientBook.Installation) -> String? {
        let parts = [installation.sdkVersion.isEmpty ? nil : "sdk " + installation.sdkVersion, request.header("user-agent")]
        let said = parts.compactMap { $0 }.joined(separator: "; ")
        return said.isEmpty ? nil : said
    }
}
