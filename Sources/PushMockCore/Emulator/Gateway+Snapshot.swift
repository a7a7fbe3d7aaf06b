/// The gateway's control-plane state as a seed fixture (`--seed`'s format, with device ids):
/// what `--data-dir` keeps so a restart resumes with the same projects, keys, apps, APNs keys,
/// service accounts, devices (tokens, states) and subscriptions. Restoring it is `seed`.
extension Gateway {
    /// Bumped by every request that may change the control-plane state (anything but a read
    /// or a send), so the server saves a snapshot only when something changed.
    func noteStateChange(_ request: Request) {
        let path = request.path
        // Sends change no control-plane state and come first: compared on bytes.
        if path.hasBytePrefix("/3/") || path.hasByteSuffix("/messages:send") { return }
        let read = request.method == "GET" || request.method == "HEAD"
        if read, !path.hasByteSuffix("/serviceAccount") { return }
        if path == "/fcm/send" || path == "/gcm/send" || path == "/token" { return }
        stateVersion &+= 1
    }

    public func snapshot() -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("projects")
        w.beginArray()
        for p in projects.values.sorted(by: { $0.id < $1.id }) {
            w.beginObject()
            w.member("id", p.id)
            Self.writeKeysAndApps(p, projectNumber: nil, to: &w)
            w.key("apns_keys")
            w.beginArray()
            for key in apnsKeys.values.filter({ $0.projectID == p.id }).sorted(by: { $0.keyID < $1.keyID }) {
                w.raw(Self.apnsKeyJSON(key, privatePEM: nil))
            }
            w.endArray()
            w.key("service_accounts")
            w.beginArray()
            for a in serviceAccounts.values.filter({ $0.projectID == p.id }).sorted(by: { $0.email < $1.email }) {
                w.beginObject()
                w.member("client_email", a.email)
                w.member("private_key_id", a.keyID)
                w.member("client_id", a.clientID)
                w.member("public_key", a.publicKeyPEM)
                w.endObject()
            }
            w.endArray()
            w.key("devices")
            w.beginArray()
            for d in p.deviceOrder { Self.writeDevice(d, asFixture: true, to: &w) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
