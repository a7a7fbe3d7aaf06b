/// The control API for projects, apps, clearing a project's sends and events, and the clock.
/// Loop thread only.
struct ControlProjects {
    let directory: ProjectDirectory
    let delivery: Delivery
    let bridges: Bridges
    let log: EventLog
    let clock: Clock

    func info(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var w = JSONWriter()
        w.beginObject()
        w.member("id", p.id)
        w.member("number", String(p.number))
        w.member("apple_team_id", p.teamID)
        ControlJSON.writeKeysAndApps(p, projectNumber: p.number, to: &w)
        w.member("devices", p.devices.count)
        w.member("topics", p.topics.count)
        w.member("messages", p.messages.count)
        w.member("messages_evicted", p.messages.evicted)
        w.member("events_in_log", log.count)
        w.member("events_evicted", log.evicted)
        w.endObject()
        return .response(.json(200, w))
    }

    /// Back to the start state: no devices, topics, groups, apps, bridges, sends or events.
    func reset(_ params: PathParameters) throws(ControlError) -> Reply {
        let old = try directory.named(params)
        delivery.forgetWaiting(in: old)
        bridges.removeAll(projectID: old.id)
        log.removeAll(projectID: old.id)
        // A project made on first use goes, and frees its place under --max-projects: its
        // next use makes the same empty project. One with its own keys (a fixture's, the
        // --project one) is kept, empty, with its keys.
        if old.id != directory.defaultProject.id, old.serverKeys == [Project.defaultServerKey(for: old.id)] {
            directory.remove(old.id)
        } else {
            directory.add(old.id, serverKeys: old.serverKeys)
        }
        return .response(.json(200, "{}"))
    }

    /// Declares an app (needed with `--strict-apps`) and, for iOS, the APNs environments
    /// it has a credential for; `[]` means none, so sends answer InvalidApnsCredential.
    func putApp(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let obj = try Control.body(request, allowed: ["platform", "app", "apns_environments"])
        guard let platform = obj["platform"]?.stringValue.flatMap(Platform.init) else {
            throw Control.invalid("Field 'platform' must be \(Platform.spelled).")
        }
        guard let name = obj["app"]?.stringValue, !name.isEmpty else { throw Control.invalid("Field 'app' is required.") }
        try Control.mapped { () throws(RegistrationError) in try DeviceRegistration.checkApp(name, on: platform) }
        var envs: Set<APNsEnvironment> = [.sandbox, .production]
        if let list = obj["apns_environments"] {
            guard let items = list.arrayValue, items.allSatisfy({ $0.stringValue.flatMap(APNsEnvironment.init) != nil }) else {
                throw Control.invalid("Field 'apns_environments' must be a list of sandbox and production.")
            }
            envs = Set(items.compactMap { $0.stringValue.flatMap(APNsEnvironment.init) })
        }
        let app = p.addApp(platform, name, credentials: envs)
        var w = JSONWriter()
        ControlJSON.writeApp(app, projectNumber: p.number, to: &w)
        return .response(.json(200, w))
    }

    func listApps(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var w = JSONWriter()
        w.object { w in
            w.array("apps") { w in
                for app in p.apps.values.sorted(by: { $0.name < $1.name }) {
                    ControlJSON.writeApp(app, projectNumber: p.number, to: &w)
                }
            }
        }
        return .response(.json(200, w))
    }

    /// Clears the project's sends, inboxes and events; devices and topics stay.
    func clearMessages(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        p.messages.removeAll()
        for d in p.devices.inOrder { d.clearInbox() }
        log.removeAll(projectID: p.id)
        return .response(.json(200, "{}"))
    }

    /// `DELETE .../messages/{id}`: the send leaves the list and the devices' inboxes; the log
    /// keeps what happened to it, so reports and exports still count it.
    func deleteMessage(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let id = try Control.path(params, .id)
        guard let m = p.messages.message(id: id) else { throw Control.notFound("Message \(id) not found.") }
        p.messages.remove(m)
        for d in p.devices.inOrder { d.removeFromInbox(m) }
        return .response(.json(200, "{}"))
    }

    func clockInfo() -> Reply {
        .response(.json(200, "{\"mode\":\"\(clock.mode.rawValue)\",\"now\":\"\(clock.now().rfc3339)\"}"))
    }

    func advanceClock(_ request: Request) throws(ControlError) -> Reply {
        let obj = try Control.body(request, allowed: ["seconds"])
        guard let seconds = obj["seconds"]?.numberValue?.double, seconds >= 0, seconds.isFinite else {
            throw Control.invalid("Field 'seconds' must be a number of seconds, 0 or more.")
        }
        guard clock.mode == .manual else {
            throw Control.failedPrecondition("The clock is the system clock; start pushmock with --clock manual to advance it.")
        }
        let most = clock.secondsLeft.rounded(.down)
        guard seconds <= most else {
            throw Control.invalid(
                "Field 'seconds' must be at most \(Int(most)): the clock cannot pass \(Timestamp.latest.rfc3339).")
        }
        clock.advance(seconds: seconds)
        delivery.expireDue()
        return clockInfo()
    }
}
