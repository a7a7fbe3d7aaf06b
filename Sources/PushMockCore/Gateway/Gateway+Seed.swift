import Foundation

/// Why a seed fixture was refused: the file, where in it, and what is wrong.
public struct SeedError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// `--seed FILE`: projects, server keys, apps, APNs keys, service accounts, devices with fixed
/// tokens and states, and topic subscriptions, declared in JSON and loaded before the first
/// request, so CI tests know their tokens in advance (docs/control-api.md has the format).
/// Everything but projects and service accounts goes through the control API's own handlers,
/// so a fixture is checked exactly as the same calls would be.
extension Gateway {
    /// `savedDevices`: a saved state's devices, by project, restored after the fixture's own
    /// (`restoreSavedDevices`).
    public func seed(_ bytes: [UInt8], file: String, savedDevices: [String: SavedDeviceRows] = [:]) throws(SeedError) {
        func fail(_ path: String, _ problem: String) -> SeedError {
            SeedError(description: "\(file): \(path.isEmpty ? "the document" : path): \(problem)")
        }
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(bytes) } catch {
            throw fail(
                "",
                LegacyRequest.parseErrorText(error, bytes).replacingOccurrences(of: "JSON_PARSING_ERROR: ", with: "not JSON: "))
        }
        guard let root = parsed.objectValue else { throw fail("", "must be a JSON object") }
        try Self.onlyKeys(root, ["projects"], at: "", fail)
        guard let declared = root["projects"]?.arrayValue else { throw fail("projects", "must be a list of projects") }
        for (i, item) in declared.enumerated() {
            let at = "projects[\(i)]"
            guard let p = item.objectValue else { throw fail(at, "must be an object") }
            try Self.onlyKeys(
                p,
                ["id", "server_keys", "apps", "apns_keys", "service_accounts", "web_push_key", "devices", "bridges", "clients"],
                at: at,
                fail)
            guard let id = p["id"]?.stringValue, Configuration.isProjectID(id) else {
                throw fail(at + ".id", "must be a project id ([a-z0-9-], 1-63 characters)")
            }
            var keys = [Project.defaultServerKey(for: id)]
            if id == configuration.project { keys = configuration.serverKeys }
            if let list = p["server_keys"] {
                guard let given = list.arrayValue?.compactMap(\.stringValue), given.count == list.arrayValue?.count,
                    !given.isEmpty,
                    !given.contains("")
                else { throw fail(at + ".server_keys", "must be a list of non-empty strings") }
                keys = given
            }
            // A fixture declares the project from scratch (nothing has been served yet).
            directory.add(id, serverKeys: keys)
            let base = "/emulator/v1/projects/\(id)"
            try each(p, "apps", at: at, fail) { obj, path throws(SeedError) in
                try call("POST", base + "/apps", obj, at: path, fail)
            }
            try each(p, "apns_keys", at: at, fail) { obj, path throws(SeedError) in
                try call("POST", base + "/apnsKeys", obj, at: path, fail)
            }
            try each(p, "service_accounts", at: at, fail) { obj, path throws(SeedError) in
                try addServiceAccount(obj, project: id, at: path, fail)
            }
            if let key = p["web_push_key"] {
                guard let obj = key.objectValue else { throw fail(at + ".web_push_key", "must be an object") }
                try call("PUT", base + "/webPushKey", obj, at: at + ".web_push_key", fail)
            }
            // Devices go straight to registration, checked exactly as `POST .../devices`
            // checks them.
            let project = directory[id]!
            if let n = p["devices"]?.arrayValue?.count { project.devices.reserveCapacity(project.devices.count + n) }
            try each(p, "devices", at: at, fail) { obj, path throws(SeedError) in
                var fields = obj
                fields.entries.removeAll { $0.key == "topics" }
                let device: Device
                do throws(RegistrationError) { device = try registration.register(DeviceFields.spec(fields), in: project) } catch
                {
                    throw fail(path, error.message)
                }
                guard let topics = obj["topics"] else { return }
                guard let names = topics.arrayValue?.compactMap(\.stringValue), names.count == topics.arrayValue?.count else {
                    throw fail(path + ".topics", "must be a list of topic names")
                }
                for (k, topic) in names.enumerated() {
                    do throws(RegistrationError) {
                        try registration.setTopic(topic, of: device, in: project, subscribed: true)
                    } catch {
                        throw fail(path + ".topics[\(k)]", error.message)
                    }
                }
            }
            if let rows = savedDevices[id] { try restoreSavedDevices(rows, in: project) { fail(at + ".devices", $0) } }
            try each(p, "bridges", at: at, fail) { obj, path throws(SeedError) in
                try call("POST", base + "/bridges", obj, at: path, fail)
            }
            // What real clients registered (a saved state's; docs/durable-store.md).
            if let clients = p["clients"] {
                guard let obj = clients.objectValue else { throw fail(at + ".clients", "must be an object") }
                do throws(RestoreProblem) { try fcmClients?.restore(obj, in: project) } catch {
                    throw fail(at + ".clients." + error.at, error.problem)
                }
            }
        }
    }

    /// Runs one control-API call; a refusal becomes a seed error at `path` with its message.
    @discardableResult
    private func call(
        _ method: String, _ target: String, _ body: JSONObject?, at path: String,
        _ fail: (String, String) -> SeedError
    ) throws(SeedError) -> JSONObject {
        var w = JSONWriter()
        if let body { w.value(.object(body)) }
        let request = Request(method: method, target: target, headers: [("Content-Type", "application/json")], body: w.bytes)
        guard case .response(let r) = handle(request) else { return JSONObject() }
        let answer = (try? JSONParser.parse(r.body))?.objectValue ?? JSONObject()
        guard r.status < 300 else {
            throw fail(path, answer["error"]?["message"]?.stringValue ?? "refused with status \(r.status)")
        }
        return answer
    }

    /// A service account the test already holds (its JSON as Google or pushmock issued it):
    /// the token endpoint then accepts JWTs it signs.
    private func addServiceAccount(
        _ obj: JSONObject, project: String, at path: String,
        _ fail: (String, String) -> SeedError
    ) throws(SeedError) {
        guard let email = obj["client_email"]?.stringValue, !email.isEmpty else {
            throw fail(path + ".client_email", "is required")
        }
        let keyID = obj["private_key_id"]?.stringValue ?? ""
        let publicPEM: String
        let privatePEM = obj["private_key"]?.stringValue
        if let given = obj["public_key"]?.stringValue {
            publicPEM = given
        } else if let privatePEM {
            guard let keys = credentials.keys, let derived = try? keys.publicKey(fromPrivatePEM: privatePEM) else {
                throw fail(path + ".private_key", "is not a PEM private key")
            }
            publicPEM = derived
        } else {
            throw fail(path, "needs private_key (the service-account JSON) or public_key")
        }
        credentials.add(
            ServiceAccount(
                projectID: project, email: email, keyID: keyID,
                clientID: obj["client_id"]?.stringValue ?? "", publicKeyPEM: publicPEM, privateKeyPEM: privatePEM))
    }

    private func each(
        _ p: JSONObject, _ name: String, at: String, _ fail: (String, String) -> SeedError,
        _ body: (JSONObject, String) throws(SeedError) -> Void
    ) throws(SeedError) {
        guard let value = p[name] else { return }
        guard let list = value.arrayValue else { throw fail(at + "." + name, "must be a list") }
        for (i, item) in list.enumerated() {
            let path = "\(at).\(name)[\(i)]"
            guard let obj = item.objectValue else { throw fail(path, "must be an object") }
            try body(obj, path)
        }
    }

    private static func onlyKeys(
        _ obj: JSONObject, _ allowed: Set<String>, at: String,
        _ fail: (String, String) -> SeedError
    ) throws(SeedError) {
        if let unknown = obj.keys.first(where: { !allowed.contains($0) }) {
            throw fail(
                at.isEmpty ? unknown : at + "." + unknown,
                "unknown field (expected one of \(allowed.sorted().joined(separator: ", ")))")
        }
    }
}
