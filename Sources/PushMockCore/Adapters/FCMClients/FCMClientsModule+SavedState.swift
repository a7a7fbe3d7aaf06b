/// What `--data-dir` keeps of the client side (docs/durable-store.md): each project's row
/// carries its installations and the devices Firebase SDKs registered, the default project's
/// also the GCM check-ins and registrations (its real clients' devices), so a client that kept
/// its credentials only checks in and reconnects after a restart (docs/reference/fcm-clients.md
/// §3.1). Connections, and what waited for a client, are not kept.
extension FCMClientsModule {
    /// The project's `clients` member, or nil when it has none.
    func savedState(of project: Project) -> JSONValue? {
        var out: [(key: String, value: JSONValue)] = []
        let installations = book.installations(of: project.id).map { i in
            JSONValue.object(
                JSONObject([
                    ("fid", .string(i.fid)), ("app_id", .string(i.appID)), ("refresh_token", .string(i.refreshToken)),
                    ("auth_token", .string(i.authToken)), ("auth_expires", .number(JSONNumber(Int(i.authExpires)))),
                    ("sdk_version", .string(i.sdkVersion)),
                ]))
        }
        if !installations.isEmpty { out.append(("installations", .array(installations))) }
        if project.id == mcs.projectID {
            let checkins = book.checkins.values.sorted { $0.androidID < $1.androidID }.map { c in
                JSONValue.object(
                    JSONObject([
                        ("android_id", .string(String(c.androidID))), ("security_token", .string(String(c.securityToken))),
                        ("browser", .bool(c.browser)), ("version", c.version.map { .string($0) } ?? .null),
                        ("user_agent", c.userAgent.map { .string($0) } ?? .null),
                        ("checked_in_at", .number(JSONNumber(Int(c.checkedInAt)))),
                        ("device", c.deviceID.map { .string($0) } ?? .null),
                    ]))
            }
            if !checkins.isEmpty { out.append(("checkins", .array(checkins))) }
            let registrations = book.registrations.values.sorted { $0.token < $1.token }.map { r in
                JSONValue.object(
                    JSONObject([
                        ("token", .string(r.token)), ("android_id", .string(String(r.androidID))), ("app", .string(r.app)),
                        ("subtype", .string(r.subtype)), ("sender", .string(r.sender)),
                        ("appid", r.instanceID.map { .string($0) } ?? .null),
                    ]))
            }
            if !registrations.isEmpty { out.append(("gcm_registrations", .array(registrations))) }
        }
        let devices = project.devices.inOrder.filter { $0.realClient?.kind == .firebaseSDK }.map(Self.sdkDevice)
        if !devices.isEmpty { out.append(("sdk_devices", .array(devices))) }
        return out.isEmpty ? nil : .object(JSONObject(out))
    }

    private static func sdkDevice(_ d: Device) -> JSONValue {
        var fields: [(key: String, value: JSONValue)] = [
            ("id", .string(d.id)), ("platform", .string(d.platform.rawValue)), ("app", .string(d.app)), ("fid", .string(d.fid)),
            ("token", d.token.map { .string($0) } ?? .null), ("user_agent", d.realClient?.userAgent.map { .string($0) } ?? .null),
        ]
        if let apns = d.apnsToken, let env = d.apnsEnvironment {
            fields += [("apns_token", .string(apns)), ("apns_environment", .string(env.rawValue))]
        }
        if let sub = d.pushSubscription {
            fields.append(
                (
                    "web",
                    .object(
                        JSONObject([
                            ("endpoint", .string(sub.endpoint)), ("p256dh", .string(Base64URL.encode(sub.publicKey))),
                            ("auth", .string(Base64URL.encode(sub.auth))),
                            ("application_pub_key", sub.applicationServerKey.map { .string(Base64URL.encode($0)) } ?? .null),
                        ])
                    )
                ))
        }
        return .object(JSONObject(fields))
    }

    /// Puts a saved `clients` member back; what is not as saved is named in the error.
    func restore(_ saved: JSONObject, in project: Project) throws(RestoreProblem) {
        for item in saved["installations"]?.arrayValue ?? [] {
            guard let fid = item["fid"]?.stringValue, let app = item["app_id"]?.stringValue,
                let refresh = item["refresh_token"]?.stringValue, let auth = item["auth_token"]?.stringValue,
                let expires = item["auth_expires"]?.numberValue?.int
            else { throw RestoreProblem(at: "installations", "an installation without its fid, tokens or app id") }
            book.add(
                ClientBook.Installation(
                    projectID: project.id, fid: fid, appID: app, refreshToken: refresh, authToken: auth,
                    authExpires: Timestamp(expires), sdkVersion: item["sdk_version"]?.stringValue ?? ""))
        }
        for item in saved["checkins"]?.arrayValue ?? [] {
            // Both non-zero and below 2^63, as check-in hands them out (clients keep them in int64s).
            guard let id = item["android_id"]?.stringValue.flatMap({ UInt64($0) }),
                let token = item["security_token"]?.stringValue.flatMap({ UInt64($0) }), (1..<1 << 63).contains(id),
                (1..<1 << 63).contains(token)
            else { throw RestoreProblem(at: "checkins", "a check-in without its android id or security token (1 to 2^63-1)") }
            let checkin = ClientBook.Checkin(
                androidID: id, securityToken: token, browser: item["browser"]?.boolValue ?? false,
                version: item["version"]?.stringValue, userAgent: item["user_agent"]?.stringValue,
                checkedInAt: Timestamp(item["checked_in_at"]?.numberValue?.int ?? 0), deviceID: item["device"]?.stringValue)
            book.record(checkin)
        }
        for item in saved["gcm_registrations"]?.arrayValue ?? [] {
            guard let token = item["token"]?.stringValue, let id = item["android_id"]?.stringValue.flatMap({ UInt64($0) }),
                let app = item["app"]?.stringValue, let sender = item["sender"]?.stringValue
            else { throw RestoreProblem(at: "gcm_registrations", "a registration without its token, app or sender") }
            book.add(
                ClientBook.GCMRegistration(
                    token: token, androidID: id, app: app, subtype: item["subtype"]?.stringValue ?? "", sender: sender,
                    instanceID: item["appid"]?.stringValue))
        }
        // Each browser's device, with its subscriptions.
        for checkin in book.checkins.values where checkin.browser && checkin.deviceID != nil {
            mcs.device(of: checkin)
        }
        for item in saved["sdk_devices"]?.arrayValue ?? [] {
            guard let obj = item.objectValue, restoreSDKDevice(obj, in: project) != nil else {
                throw RestoreProblem(at: "sdk_devices", "a device that cannot be registered again")
            }
        }
    }

    private func restoreSDKDevice(_ d: JSONObject, in project: Project) -> Device? {
        guard let id = d["id"]?.stringValue, let platform = d["platform"]?.stringValue.flatMap(Platform.init),
            let app = d["app"]?.stringValue, let fid = d["fid"]?.stringValue
        else { return nil }
        var apns: (String, APNsEnvironment)?
        if let token = d["apns_token"]?.stringValue, let env = d["apns_environment"]?.stringValue.flatMap(APNsEnvironment.init) {
            apns = (token, env)
        }
        var sub: PushSubscription?
        if let web = d["web"]?.objectValue {
            guard let endpoint = web["endpoint"]?.stringValue, let parts = WebRegistrationsAPI.endpointParts(endpoint),
                let p256dh = web["p256dh"]?.stringValue.flatMap(Base64URL.decode),
                let auth = web["auth"]?.stringValue.flatMap(Base64URL.decode)
            else { return nil }
            sub = PushSubscription(
                browser: parts.browser, origin: parts.origin, token: parts.token,
                applicationServerKey: web["application_pub_key"]?.stringValue.flatMap(Base64URL.decode), privateKey: [],
                publicKey: p256dh, auth: auth, remotePath: parts.path)
        }
        let client = RealClient(kind: .firebaseSDK, clientID: fid, userAgent: d["user_agent"]?.stringValue, carrier: nil)
        return mcs.registration.registerSDKDevice(
            client, platform: platform, app: app, fid: fid, token: d["token"]?.stringValue, apns: apns, subscription: sub,
            in: project, id: id)
    }
}

/// A saved `clients` member that is not as pushmock writes it.
struct RestoreProblem: Error {
    let at: String
    let problem: String

    init(at: String, _ problem: String) {
        self.at = at
        self.problem = problem
    }
}
