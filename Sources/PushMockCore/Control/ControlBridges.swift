/// `.../bridges`: make, list, show and remove a project's delivery bridges (docs/bridges.md).
/// A bad configuration is a 400 that says what is wrong, and changes nothing.
struct ControlBridges {
    let directory: ProjectDirectory
    let bridges: Bridges
    let random: RandomSource

    func create(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(
            request,
            allowed: [
                "id", "device", "topic", "app", "sdk_devices", "events", "queue_limit", "webhook", "simulator", "command",
            ])
        let bridge = try BridgeConfig.parse(obj, in: project, bridges: bridges, random: random)
        bridges.add(bridge)
        return .response(.json(201, json(bridge)))
    }

    func list(_ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.key("bridges")
        w.beginArray()
        for b in bridges.list(project.id) { w.raw(json(b)) }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    func get(_ params: PathParameters) throws(ControlError) -> Reply {
        .response(.json(200, json(try find(params))))
    }

    func delete(_ params: PathParameters) throws(ControlError) -> Reply {
        let b = try find(params)
        guard b.projectID != nil else {
            throw Control.failedPrecondition("Bridge \(b.id) comes from --webhook and serves every project; restart without it.")
        }
        bridges.remove(b)
        return .response(.json(200, "{}"))
    }

    private func find(_ params: PathParameters) throws(ControlError) -> Bridge {
        let project = try directory.named(params)
        let id = try Control.path(params, .bridge)
        guard let b = bridges.bridge(project.id, id) else { throw Control.notFound("No bridge \(id) in project \(project.id).") }
        return b
    }

    /// The bridge with what it has done.
    private func json(_ b: Bridge) -> String {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        b.write(to: &w)
        if b.projectID == nil { w.member("every_project", true) }
        let s = bridges.stats(of: b)
        w.member("stats") { w in
            w.object { w in
                let counts: [(JSONKey, Int)] = [
                    ("forwarded", s.forwarded), ("attempts", s.attempts), ("succeeded", s.succeeded), ("failed", s.failed),
                    ("overflowed", s.overflowed),
                ]
                for (name, n) in counts { w.member(name, n) }
            }
        }
        w.endObject()
        return w.text
    }
}
