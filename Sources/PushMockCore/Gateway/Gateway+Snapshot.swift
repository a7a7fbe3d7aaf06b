/// The gateway's control-plane state as a seed fixture (`--seed`'s format, with device ids):
/// what `--data-dir` keeps so a restart resumes with the same projects, keys, apps, APNs keys,
/// service accounts, devices (tokens, states) and subscriptions. Restoring it is `seed`;
/// `changes.version` says when it is worth saving again.
extension Gateway {
    public func snapshot() -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.key("projects")
        w.beginArray()
        for p in directory.all.sorted(by: { $0.id < $1.id }) {
            w.beginObject()
            w.member("id", p.id)
            ControlJSON.writeKeysAndApps(p, projectNumber: nil, to: &w)
            w.key("apns_keys")
            w.beginArray()
            for key in credentials.apnsKeys.values.filter({ $0.projectID == p.id }).sorted(by: { $0.keyID < $1.keyID }) {
                w.raw(ControlJSON.apnsKeyJSON(key, privatePEM: nil))
            }
            w.endArray()
            w.key("service_accounts")
            w.beginArray()
            for a in credentials.serviceAccounts.values.filter({ $0.projectID == p.id }).sorted(by: { $0.email < $1.email }) {
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
            for d in p.devices.inOrder { ControlJSON.writeDevice(d, asFixture: true, to: &w) }
            w.endArray()
            w.key("bridges")
            w.beginArray()
            for b in bridges.forSnapshot(p.id) {
                w.beginObject()
                b.write(to: &w)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
