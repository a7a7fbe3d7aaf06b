/// The control API for projects, apps, sends, the event log and the clock.
extension Gateway {
    func projectInfo(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try controlProject(params)
        var w = JSONWriter()
        w.beginObject()
        w.member("id", p.id)
        w.member("number", String(p.number))
        w.member("apple_team_id", p.teamID)
        Self.writeKeysAndApps(p, projectNumber: p.number, to: &w)
        w.member("devices", p.devices.count)
        w.member("topics", p.topics.count)
        w.member("messages", p.messages.count)
        w.member("messages_evicted", p.messages.evicted)
        w.member("events_in_log", log.count)
        w.member("events_evicted", log.evicted)
        w.endObject()
        return .response(.json(200, w))
    }

    /// A project's `server_keys` and `apps` members (the project's view and its snapshot).
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

    /// Back to the start state: no devices, topics, groups, apps, sends or events.
    func resetProject(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let old = try controlProject(params)
        for d in old.deviceOrder { waiting[Self.waitingKey(d)] = nil }
        log.removeAll(projectID: old.id)
        addProject(old.id, serverKeys: old.serverKeys)
        return .response(.json(200, "{}"))
    }

    /// Declares an app (needed with `--strict-apps`) and, for iOS, the APNs environments
    /// it has a credential for; `[]` means none, so sends answer InvalidApnsCredential.
    func putApp(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try controlProject(params)
        let obj = try Control.body(request, allowed: ["platform", "app", "apns_environments"])
        guard let platform = obj["platform"]?.stringValue.flatMap(Platform.init) else {
            throw Control.invalid("Field 'platform' must be ios or android.")
        }
        guard let name = obj["app"]?.stringValue, !name.isEmpty else { throw Control.invalid("Field 'app' is required.") }
        var envs: Set<APNsEnvironment> = [.sandbox, .production]
        if let list = obj["apns_environments"] {
            guard let items = list.arrayValue, items.allSatisfy({ $0.stringValue.flatMap(APNsEnvironment.init) != nil }) else {
                throw Control.invalid("Field 'apns_environments' must be a list of sandbox and production.")
            }
            envs = Set(items.compactMap { $0.stringValue.flatMap(APNsEnvironment.init) })
        }
        let app = p.addApp(platform, name, credentials: envs)
        var w = JSONWriter()
        Self.writeApp(app, projectNumber: p.number, to: &w)
        return .response(.json(200, w))
    }

    func listApps(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try controlProject(params)
        var w = JSONWriter()
        w.beginObject()
        w.key("apps")
        w.beginArray()
        for app in p.apps.values.sorted(by: { $0.name < $1.name }) { Self.writeApp(app, projectNumber: p.number, to: &w) }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    /// Clears the project's sends, inboxes and events; devices and topics stay.
    func clearMessages(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try controlProject(params)
        p.messages.removeAll()
        for d in p.deviceOrder { d.clearInbox() }
        log.removeAll(projectID: p.id)
        return .response(.json(200, "{}"))
    }

    func clockInfo(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        .response(.json(200, "{\"mode\":\"\(clock.mode.rawValue)\",\"now\":\"\(clock.now().rfc3339)\"}"))
    }

    func advanceClock(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let obj = try Control.body(request, allowed: ["seconds"])
        guard let seconds = obj["seconds"]?.numberValue?.double, seconds >= 0, seconds.isFinite else {
            throw Control.invalid("Field 'seconds' must be a number of seconds, 0 or more.")
        }
        guard clock.advance(seconds: seconds) else {
            throw Control.failedPrecondition("The clock is the system clock; start pushmock with --clock manual to advance it.")
        }
        expireDue()
        return try clockInfo(request, params)
    }
}
