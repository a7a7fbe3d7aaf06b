/// The credentials a test needs: service accounts for Google's APIs; APNs auth keys (.p8),
/// provider certificates and pushmock's CA for the provider API. Loop thread only.
struct ControlCredentials {
    let directory: ProjectDirectory
    let credentials: Credentials
    let random: RandomSource
    let configuration: Configuration

    private var keys: (any KeyService)? { credentials.keys }
    /// `GET /emulator/v1/projects/{p}/serviceAccount`: the project's service-account JSON,
    /// accepted as is by `credentials.Certificate`, the same one every time. The first time,
    /// its RSA key comes from the key service's thread: the answer waits for it without
    /// holding the loop (503 `UNAVAILABLE` after `keyWait`). `token_uri` points at pushmock:
    /// Google's own token URI when asked as a Google host over TLS (pushmock answers there),
    /// else the host and scheme the request used.
    func serviceAccount(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        if let own = credentials.projectAccount(project.id) { return .response(.json(200, serviceAccountJSON(own, request))) }
        return try answerWithNewAccount(in: project, request, status: 200)
    }

    /// `POST .../serviceAccounts`: another service account of the project, with a new key.
    func addServiceAccount(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        _ = try Control.body(request, allowed: [])
        return try answerWithNewAccount(in: project, request, status: 201)
    }

    /// How long an answer waits for a key before it is 503 `UNAVAILABLE`.
    static let keyWait: UInt64 = 30_000_000_000

    /// A new account of the project, answered now when a key is ready, else once one is.
    private func answerWithNewAccount(in project: Project, _ request: Request, status: Int) throws(ControlError) -> Reply {
        guard let keys else { throw ControlError(response: .googleError(500, "INTERNAL", "No key service is configured.")) }
        let until = MonotonicClock.nanos() + Self.keyWait
        func attempt() -> SlicedWork.Step {
            // Another request may have made the project's account meanwhile.
            if status == 200, let own = credentials.projectAccount(project.id) {
                return .done(.json(200, serviceAccountJSON(own, request)))
            }
            do {
                let pair = try keys.generateRSAKey()
                return .done(.json(status, serviceAccountJSON(newServiceAccount(in: project, pair), request)))
            } catch is KeyNotReady {
                guard MonotonicClock.nanos() < until else {
                    var r = Response.googleError(503, "UNAVAILABLE", "No RSA key could be made in time; retry.")
                    r.headers.append(("Retry-After", "1"))
                    return .done(r)
                }
                return .waiting
            } catch {
                return .done(.googleError(500, "INTERNAL", "Key generation failed: \(error)"))
            }
        }
        if case .done(let r) = attempt() { return .response(r) }
        return .sliced(SlicedWork { attempt() })
    }

    private func newServiceAccount(in project: Project, _ pair: (privatePEM: String, publicPEM: String)) -> ServiceAccount {
        let account = ServiceAccount(
            projectID: project.id, email: "firebase-adminsdk-\(random.hex(5))@\(project.id).iam.gserviceaccount.com",
            keyID: random.hex(40), clientID: String(random.next() % 9_000_000_000_000_000_000 + 1_000_000_000_000_000_000),
            publicKeyPEM: pair.publicPEM, privateKeyPEM: pair.privatePEM)
        credentials.add(account)
        return account
    }

    private func serviceAccountJSON(_ account: ServiceAccount, _ request: Request) -> JSONWriter {
        let email = account.email
        let host = request.header("host") ?? "\(configuration.host):\(configuration.port)"
        var w = JSONWriter(capacity: 2400)
        w.beginObject()
        w.member("type", "service_account")
        w.member("project_id", account.projectID)
        w.member("private_key_id", account.keyID)
        w.member("private_key", account.privateKeyPEM ?? "")
        w.member("client_email", email)
        w.member("client_id", account.clientID)
        w.member("auth_uri", "https://accounts.google.com/o/oauth2/auth")
        let googleHost = host.split(separator: ":").first.map { $0.hasSuffix(".googleapis.com") } ?? false
        w.member(
            "token_uri",
            request.secure && googleHost
                ? "https://oauth2.googleapis.com/token"
                : (request.secure ? "https://" : "http://") + host + "/token")
        w.member("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs")
        w.member(
            "client_x509_cert_url",
            "https://www.googleapis.com/robot/v1/metadata/x509/" + email.replacingOccurrences(of: "@", with: "%40"))
        w.member("universe_domain", "googleapis.com")
        w.endObject()
        return w
    }

    /// `POST .../apnsKeys` with `{"key_id", "team_id", "public_key", "environment", "topics"}`
    /// (all optional): registers a key; without `public_key` pushmock makes one and returns
    /// its private half as `private_key` (the .p8 file's text).
    func addAPNsKey(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: ["key_id", "team_id", "public_key", "environment", "topics"])
        let keyID = try Control.string(obj, "key_id") ?? random.upperAlphanumeric(10)
        let teamID = try Control.string(obj, "team_id") ?? project.teamID
        for (name, value) in [("key_id", keyID), ("team_id", teamID)] where !Self.isAppleID(value) {
            throw Control.invalid("Invalid value at '\(name)': expected 10 upper-case letters and digits.")
        }
        guard credentials.apnsKeys[keyID] == nil else { throw Control.conflict("APNs key \(keyID) is already registered.") }
        let environment = try Control.string(obj, "environment").map { e throws(ControlError) in
            try Control.mapped { () throws(RegistrationError) in try DeviceFields.environment(e) }
        }
        var topics: [String]?
        if let list = obj["topics"], list != .null {
            guard let items = list.arrayValue?.compactMap(\.stringValue), items.count == list.arrayValue?.count, !items.isEmpty
            else {
                throw Control.invalid("Field 'topics' must be a non-empty list of bundle ids.")
            }
            topics = items
        }
        var privatePEM: String?
        let publicPEM: String
        if let given = try Control.string(obj, "public_key") {
            guard given.containsBytes(of: "-----BEGIN PUBLIC KEY-----") else {
                throw Control.invalid("Field 'public_key' must be a PEM public key (BEGIN PUBLIC KEY).")
            }
            publicPEM = given
        } else {
            guard let keys else { throw ControlError(response: .googleError(500, "INTERNAL", "No key service is configured.")) }
            do { (privatePEM, publicPEM) = try keys.generateP256Key() } catch {
                throw ControlError(response: .googleError(500, "INTERNAL", "Key generation failed: \(error)"))
            }
        }
        let key = APNsKey(
            keyID: keyID, teamID: teamID, projectID: project.id, publicKeyPEM: publicPEM,
            environment: environment, topics: topics)
        credentials.add(key)
        return .response(.json(201, ControlJSON.apnsKeyJSON(key, privatePEM: privatePEM)))
    }

    /// `GET .../apnsKeys`: the project's keys, without private halves.
    func listAPNsKeys(_ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let mine = credentials.apnsKeys.values.filter { $0.projectID == project.id }.sorted { $0.keyID < $1.keyID }
        return .response(
            .json(200, "{\"keys\":[" + mine.map { ControlJSON.apnsKeyJSON($0, privatePEM: nil) }.joined(separator: ",") + "]}"))
    }

    /// `POST .../apnsCertificates` with `{"bundle_id", "environment"}`: a provider certificate
    /// and its key, signed by pushmock's CA; `sandbox` makes a development certificate, no
    /// environment a universal one.
    func issueAPNsCertificate(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: ["bundle_id", "environment"])
        guard let bundle = try Control.string(obj, "bundle_id"), !bundle.isEmpty else {
            throw Control.invalid("Field 'bundle_id' is required.")
        }
        let environment = try Control.string(obj, "environment").map { e throws(ControlError) in
            try Control.mapped { () throws(RegistrationError) in try DeviceFields.environment(e) }
        }
        guard let keys else { throw ControlError(response: .googleError(500, "INTERNAL", "No key service is configured.")) }
        let issued: (certificatePEM: String, privateKeyPEM: String)
        do { issued = try keys.issueAPNsCertificate(bundleID: bundle, teamID: project.teamID, environment: environment) } catch {
            throw ControlError(response: .googleError(500, "INTERNAL", "Certificate issuance failed: \(error)"))
        }
        var w = JSONWriter(capacity: 2048)
        w.beginObject()
        w.member("bundle_id", bundle)
        w.member("team_id", project.teamID)
        if let environment {
            w.member("environment", environment.rawValue)
        } else {
            w.key("environment")
            w.null()
        }
        w.member("certificate", issued.certificatePEM)
        w.member("private_key", issued.privateKeyPEM)
        w.endObject()
        return .response(.json(201, w))
    }

    /// `GET /emulator/v1/ca.pem`: the CA to trust.
    func caCertificate() -> Reply {
        guard let pem = keys?.certificateAuthorityPEM else {
            return .response(.googleError(404, "NOT_FOUND", "No CA is configured."))
        }
        return .response(Response(status: 200, headers: [("Content-Type", "application/x-pem-file")], body: Array(pem.utf8)))
    }

    static func isAppleID(_ s: String) -> Bool {
        s.utf8.count == 10 && s.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }
}
