/// How the control API and the saved state show projects, apps and APNs keys (devices:
/// `DeviceFields`; events, messages and renderings: `RecordJSON`).
enum ControlJSON {
    /// A project's `server_keys` and `apps` members (the project's view and its saved row).
    static func writeKeysAndApps(_ p: Project, projectNumber: Int64?, to w: inout JSONWriter) {
        w.key("server_keys")
        w.beginArray()
        for k in p.serverKeys { w.string(k) }
        w.endArray()
        w.key("apps")
        w.beginArray()
        for app in p.apps.values.sorted(by: { App.key($0.platform, $0.name) < App.key($1.platform, $1.name) }) {
            writeApp(app, projectNumber: projectNumber, to: &w)
        }
        w.endArray()
    }

    /// An app as the control API shows it; without `projectNumber`, as `POST .../apps` takes it
    /// (no `app_id`).
    static func writeApp(_ app: App, projectNumber: Int64?, to w: inout JSONWriter) {
        w.beginObject()
        w.member("platform", app.platform.rawValue)
        w.member("app", app.name)
        if let projectNumber { w.member("app_id", app.appID(projectNumber: projectNumber)) }
        if app.platform == .ios {
            w.key("apns_environments")
            w.beginArray()
            for e in [APNsEnvironment.sandbox, .production] where app.apnsCredentials.contains(e) { w.string(e.rawValue) }
            w.endArray()
        }
        w.endObject()
    }

    static func apnsKeyJSON(_ key: APNsKey, privatePEM: String?) -> String {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.member("key_id", key.keyID)
        w.member("team_id", key.teamID)
        if let e = key.environment {
            w.member("environment", e.rawValue)
        } else {
            w.key("environment")
            w.null()
        }
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
