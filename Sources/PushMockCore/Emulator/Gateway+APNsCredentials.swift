/// APNs credentials a test needs to push through the provider API: auth keys (.p8) and
/// provider certificates, and pushmock's CA.
extension Gateway {
    /// `POST .../apnsKeys` with `{"key_id", "team_id", "public_key", "environment", "topics"}`
    /// (all optional): registers a key; without `public_key` pushmock makes one and returns
    /// its private half as `private_key` (the .p8 file's text).
    func addAPNsKey(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        let obj = try Control.body(request, allowed: ["key_id", "team_id", "public_key", "environment", "topics"])
        let keyID = try Control.string(obj, "key_id") ?? random.upperAlphanumeric(10)
        let teamID = try Control.string(obj, "team_id") ?? project.teamID
        for (name, value) in [("key_id", keyID), ("team_id", teamID)] where !Self.isAppleID(value) {
            throw Control.invalid("Invalid value at '\(name)': expected 10 upper-case letters and digits.")
        }
        guard apnsKeys[keyID] == nil else { throw Control.conflict("APNs key \(keyID) is already registered.") }
        let environment = try Control.string(obj, "environment").map { e throws(ControlError) in try Self.apnsEnvironment(e) }
        var topics: [String]?
        if let list = obj["topics"], list != .null {
            guard let items = list.arrayValue?.compactMap(\.stringValue), items.count == list.arrayValue?.count, !items.isEmpty else {
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
        let key = APNsKey(keyID: keyID, teamID: teamID, projectID: project.id, publicKeyPEM: publicPEM,
                          environment: environment, topics: topics)
        apnsKeys[keyID] = key
        return .response(.json(201, Self.apnsKeyJSON(key, privatePEM: privatePEM)))
    }

    /// `GET .../apnsKeys`: the project's keys, without private halves.
    func listAPNsKeys(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        let mine = apnsKeys.values.filter { $0.projectID == project.id }.sorted { $0.keyID < $1.keyID }
        return .response(.json(200, "{\"keys\":[" + mine.map { Self.apnsKeyJSON($0, privatePEM: nil) }.joined(separator: ",") + "]}"))
    }

    /// `POST .../apnsCertificates` with `{"bundle_id", "environment"}`: a provider certificate
    /// and its key, signed by pushmock's CA; `sandbox` makes a development certificate, no
    /// environment a universal one.
    func issueAPNsCertificate(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        let obj = try Control.body(request, allowed: ["bundle_id", "environment"])
        guard let bundle = try Control.string(obj, "bundle_id"), !bundle.isEmpty else {
            throw Control.invalid("Field 'bundle_id' is required.")
        }
        let environment = try Control.string(obj, "environment").map { e throws(ControlError) in try Self.apnsEnvironment(e) }
        guard let keys else { throw ControlError(response: .googleError(500, "INTERNAL", "No key service is configured.")) }
        let issued: (certificatePEM: String, privateKeyPEM: String)
        do { issued = try keys.issueAPNsCertificate(bundleID: bundle, teamID: project.teamID, environment: environment) } catch {
            throw ControlError(response: .googleError(500, "INTERNAL", "Certificate issuance failed: \(error)"))
        }
        var w = JSONWriter(capacity: 2048)
        w.beginObject()
        w.member("bundle_id", bundle)
        w.member("team_id", project.teamID)
        if let environment { w.member("environment", environment.rawValue) } else { w.key("environment"); w.null() }
        w.member("certificate", issued.certificatePEM)
        w.member("private_key", issued.privateKeyPEM)
        w.endObject()
        return .response(.json(201, w))
    }

    /// `GET /emulator/v1/ca.pem`: the CA to trust.
    func caCertificate(_ request: Request) -> Reply {
        guard let pem = keys?.certificateAuthorityPEM else { return .response(.googleError(404, "NOT_FOUND", "No CA is configured.")) }
        return .response(Response(status: 200, headers: [("Content-Type", "application/x-pem-file")], body: Array(pem.utf8)))
    }

    static func isAppleID(_ s: String) -> Bool {
        s.utf8.count == 10 && s.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    static func apnsKeyJSON(_ key: APNsKey, privatePEM: String?) -> String {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.member("key_id", key.keyID)
        w.member("team_id", key.teamID)
        if let e = key.environment { w.member("environment", e.rawValue) } else { w.key("environment"); w.null() }
        w.key("topics")
        if let topics = key.topics {
            w.beginArray()
            for t in topics { w.string(t) }
            w.endArray()
        } else {
            w.null()
        }
        w.member("public_key", key.publicKeyPEM)
        if let privatePEM { w.member("private_key", privatePEM) }
        w.endObject()
        return w.text
    }
}
