/// GCM token registration, form-encoded and authorized by a check-in (`AidLogin <android
/// id>:<security token>`), answered as `token=...` or `Error=<CODE>` (docs/reference/fcm-clients.md
/// §4): `register3` on `android.clients.google.com` (Chrome's push subscriptions and
/// firebase-messaging's: a subscription on FCM's endpoint, delivered over MCS) and the iOS SDK's
/// `register` on `fcmtoken.googleapis.com` (an FCM token for the APNs token the app sent). Both
/// take `delete=true` to delete. Loop thread only.
struct GCMRegisterAPI {
    let book: ClientBook
    let mcs: MCSServer
    let directory: ProjectDirectory
    let registration: DeviceRegistration
    let changes: StateChanges
    let random: RandomSource

    /// Chromium's error codes (`registration_request.cc`); a bad `AidLogin` is 401, the rest
    /// answer 200 with the error in the body, as Google's GCM endpoints did.
    enum Failure: String, Error {
        case authenticationFailed = "AUTHENTICATION_FAILED"
        case invalidParameters = "INVALID_PARAMETERS"
        case invalidSender = "INVALID_SENDER"
        case fisAuthError = "FIS_AUTH_ERROR"
        case tooManyRegistrations = "TOO_MANY_REGISTRATIONS"

        var response: Response { Self.body(self == .authenticationFailed ? 401 : 200, "Error=" + rawValue) }

        static func body(_ status: Int, _ text: String) -> Response {
            // No trailing newline: clients take everything after `token=` as the token.
            Response(status: status, headers: [("Content-Type", "text/plain; charset=UTF-8")], body: Array(text.utf8))
        }
    }

    /// `POST /c2dm/register3`: `app`, `X-subtype`, `device`, `sender` (a project number or an
    /// application server key), Chrome's `appid`, `scope`, `gmsv`; `delete=true` deletes.
    func register3(_ request: Request) -> Reply {
        .response(
            answer { () throws(Failure) in
                let (checkin, form) = try authorized(request)
                guard checkin.browser, let device = mcs.device(of: checkin), let project = directory[device.projectID] else {
                    throw .authenticationFailed
                }
                guard let app = form["app"], !app.isEmpty else { throw .invalidParameters }
                let subtype = form["X-subtype"] ?? ""
                let instanceID = form["appid"]
                if form["delete"] == "true" {
                    let gone = book.registrations(of: checkin.androidID).filter {
                        $0.app == app && $0.subtype == subtype && (form["sender"] == nil || $0.sender == form["sender"])
                    }
                    for r in gone {
                        book.removeRegistration(r.token)
                        mcs.unsubscribe(r)
                    }
                    changes.project(mcs.projectID)
                    // Chrome's Instance ID delete reads `token=`; the plain form `deleted=<app>`.
                    return Failure.body(200, instanceID != nil ? "token=" + (gone.first?.token ?? "") : "deleted=" + app)
                }
                guard let sender = form["sender"], Self.isSender(sender) else { throw .invalidSender }
                if let same = book.registrations(of: checkin.androidID).first(where: {
                    $0.app == app && $0.subtype == subtype && $0.sender == sender
                }) {
                    return Failure.body(200, "token=" + same.token)
                }
                guard book.registrations.count < ClientBook.limit else { throw .tooManyRegistrations }
                let r = ClientBook.GCMRegistration(
                    token: random.base64URL(11) + ":APA91b" + random.base64URL(134), androidID: checkin.androidID, app: app,
                    subtype: subtype, sender: sender, instanceID: instanceID)
                book.add(r)
                mcs.subscribe(r, on: device, project: project)
                changes.project(mcs.projectID)
                return Failure.body(200, "token=" + r.token)
            })
    }

    /// `POST /register` on `fcmtoken.googleapis.com` (the iOS SDK): `app` (the bundle id),
    /// `sender` (the project number), `appid` (the FID, whose installation's auth token
    /// `x-goog-firebase-installations-auth` carries), `apns_token` (`p_` or `s_` and the hex
    /// token), `gmp_app_id`; `delete=true` deletes the FID's token. The token is an iOS device
    /// of the app in the sender's project, tied to that APNs token.
    func registerIOS(_ request: Request) -> Reply {
        .response(
            answer { () throws(Failure) in
                let (_, form) = try authorized(request)
                guard let app = form["app"], !app.isEmpty, let fid = form["appid"], !fid.isEmpty else { throw .invalidParameters }
                let number = form["sender"] ?? form["gmp_app_id"]?.split(separator: ":").dropFirst().first.map(String.init) ?? ""
                guard let project = directory.apiProject(number) else { throw .invalidSender }
                var fis = request.header("x-goog-firebase-installations-auth") ?? ""
                if fis.hasPrefix("FIS ") { fis.removeFirst(4) }
                guard let installation = book.installation(authToken: fis), installation.projectID == project.id,
                    installation.fid == fid
                else { throw .fisAuthError }
                let existing = directory.device(at: .installation(fid)).flatMap { $0.projectID == project.id ? $0 : nil }
                if form["delete"] == "true" {
                    if let d = existing, d.realClient?.kind == .firebaseSDK {
                        registration.uninstall(d, project: project)
                        changes.project(project.id)
                    }
                    return Failure.body(200, "deleted=" + app)
                }
                guard let tuple = form["apns_token"], tuple.hasPrefix("p_") || tuple.hasPrefix("s_"),
                    APNsToken(String(tuple.dropFirst(2)).lowercased()) != nil
                else { throw .invalidParameters }
                let apns = (
                    String(tuple.dropFirst(2)).lowercased(), tuple.hasPrefix("p_") ? APNsEnvironment.production : .sandbox
                )
                if let d = existing, d.realClient?.kind == .firebaseSDK, d.app == app, d.apnsToken == apns.0,
                    d.apnsEnvironment == apns.1, let token = d.token
                {
                    return Failure.body(200, "token=" + token)
                }
                if let d = existing { registration.uninstall(d, project: project) }
                let said = [form["X-cliv"], form["X-osv"].map { "iOS " + $0 }, form["app_ver"].map { "app " + $0 }]
                let client = RealClient(
                    kind: .firebaseSDK, clientID: fid, userAgent: said.compactMap { $0 }.joined(separator: "; "), carrier: nil)
                guard
                    let device = registration.registerSDKDevice(
                        client, platform: .ios, app: app, fid: fid, token: Identifiers.registrationToken(fid: fid, random),
                        apns: apns, subscription: nil, in: project), let token = device.token
                else { throw .tooManyRegistrations }
                changes.project(project.id)
                return Failure.body(200, "token=" + token)
            })
    }

    /// A sender: a project number, or an application server key (a P-256 point, base64url).
    static func isSender(_ s: String) -> Bool {
        if (1...20).contains(s.utf8.count), s.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return true }
        guard let key = Base64URL.decode(s) else { return false }
        return key.count == 65 && key[0] == 4
    }

    /// The check-in `AidLogin` names and the form; `device`, when given, must be its id.
    private func authorized(_ request: Request) throws(Failure) -> (ClientBook.Checkin, [String: String]) {
        guard let checkin = book.checkin(aidLogin: request.header("authorization")) else { throw .authenticationFailed }
        guard let pairs = URLCoding.formPairs(String(decoding: request.body, as: UTF8.self)) else { throw .invalidParameters }
        var form: [String: String] = [:]
        for (k, v) in pairs { form[k] = v }
        if let device = form["device"], device != String(checkin.androidID) { throw .authenticationFailed }
        return (checkin, form)
    }

    private func answer(_ body: () throws(Failure) -> Response) -> Response {
        do { return try body() } catch { return error.response }
    }
}
