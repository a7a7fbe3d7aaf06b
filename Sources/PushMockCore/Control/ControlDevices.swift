/// The control API for fake devices: register, list, inspect, change, uninstall, subscribe,
/// and read what a device received; what a user or the SDK does on one is
/// `ControlDevices+Actions.swift`. The rules are `DeviceRegistration`'s. Loop thread only.
struct ControlDevices {
    let directory: ProjectDirectory
    let registration: DeviceRegistration
    /// Opening a notification brings the app to the foreground, with what that delivers, and
    /// is logged (`delivery.log`).
    let delivery: Delivery
    /// Keeps the failures scripted for a device's next sends.
    let chaos: Chaos

    func create(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: DeviceFields.registration)
        try checkRoom(for: 1)
        let device = try Control.mapped { () throws(RegistrationError) in
            var spec = try DeviceFields.spec(obj)
            // A browser's endpoint is on the push service it reached: here, the address the
            // request came to.
            if spec.pushOrigin == nil { spec.pushOrigin = request.origin }
            return try registration.register(spec, in: project)
        }
        return .response(.json(201, DeviceFields.json(device)))
    }

    /// `POST .../devices:batchCreate` with `{"platform", "app", "count", "topics"}`: many
    /// identical devices at once, for load tests. Answers the count and the id range. The
    /// first is registered at once with every check (a refusal is the answer); the rest, like
    /// it, in slices of `batchStep`, other connections served between them.
    func batchCreate(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: ["platform", "app", "apns_environment", "count", "topics"])
        guard let count = obj["count"]?.numberValue?.int, (1...Self.maxBatchCreate).contains(count) else {
            throw Control.invalid("Field 'count' must be a whole number in 1...\(Self.maxBatchCreate).")
        }
        let topics = obj["topics"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard topics.count == (obj["topics"]?.arrayValue?.count ?? 0), topics.allSatisfy(Topic.isValidName) else {
            throw Control.invalid("Field 'topics' must be a list of valid topic names.")
        }
        try checkRoom(for: count)
        let fields = JSONObject(obj.entries.filter { ["platform", "app", "apns_environment"].contains($0.key) })
        let spec = try Control.mapped { () throws(RegistrationError) in try DeviceFields.spec(fields) }
        let registration = registration
        // The first is registered with every check; the rest are like it (`registerAnother`).
        func make(first: Bool = false) throws(RegistrationError) -> Device {
            let d = try first ? registration.register(spec, in: project) : registration.registerAnother(like: spec, in: project)
            for t in topics { _ = project.topics.subscribe(d, to: t, at: d.createdAt) }
            return d
        }
        // Tables sized once: grown a device at a time, a million rehash on the loop.
        project.devices.reserveCapacity(project.devices.count + count)
        for t in topics { project.topics.reserve(count, for: t) }
        let first = try Control.mapped { () throws(RegistrationError) in try make(first: true) }
        var last = first
        var made = 1
        return .sliced(
            SlicedWork(savesWhenDone: true) {
                // The spec passed once; generated ids, tokens and FIDs do not collide.
                for _ in 0..<min(Self.batchStep, count - made) {
                    do throws(RegistrationError) { last = try make() } catch {
                        return .done(
                            .googleError(500, "INTERNAL", "Registered \(made) of \(count) devices, then: \(error.message)"))
                    }
                    made += 1
                }
                guard made == count else { return .more }
                return .done(.json(201, "{\"created\":\(count),\"first\":\"\(first.id)\",\"last\":\"\(last.id)\"}"))
            })
    }

    static let maxBatchCreate = 1_000_000
    static let batchStep = 1_000

    /// Refuses registrations beyond `--max-devices`.
    private func checkRoom(for count: Int) throws(ControlError) {
        let room = directory.roomForDevices
        guard count <= room else {
            throw ControlError(
                response: .googleError(
                    429, "RESOURCE_EXHAUSTED",
                    "pushmock holds the most devices --max-devices allows (room for \(max(0, room)) more); delete some or start it with a larger --max-devices."
                ))
        }
    }

    func list(_ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        var w = JSONWriter(capacity: 64 + project.devices.count * 400)
        w.beginObject()
        w.key("devices")
        w.beginArray()
        for d in project.devices.inOrder { w.raw(DeviceFields.json(d)) }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    func get(_ params: PathParameters) throws(ControlError) -> Reply {
        let (_, d) = try directory.device(params)
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// Changes the device's state; the transitions have consequences: back online delivers
    /// what was stored, launching the app hands over a held background push, force-quit
    /// discards it.
    func patch(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        let obj = try Control.body(request, allowed: DeviceFields.state.union(["apns_environment"]))
        // Everything is validated before anything changes.
        try Control.mapped { () throws(RegistrationError) in
            var state = d.state
            try DeviceFields.apply(obj, to: &state)
            let environment = try DeviceFields.string(obj, "apns_environment").map { e throws(RegistrationError) in
                try DeviceFields.environment(e)
            }
            try registration.change(d, to: state, apnsEnvironment: environment, project: project)
        }
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// The app was uninstalled: the device is gone and its token answers NotRegistered.
    func delete(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        registration.uninstall(d, project: project)
        return .response(.json(200, "{}"))
    }

    /// The client SDK's `subscribe(toTopic:)` / `unsubscribe(fromTopic:)`.
    func topic(_ params: PathParameters, subscribe: Bool) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        let topic = try Control.path(params, .topic)
        try Control.mapped { () throws(RegistrationError) in
            try registration.setTopic(topic, of: d, in: project, subscribed: subscribe)
        }
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// What the device received, oldest first, each with the exact payload it saw.
    func notifications(_ params: PathParameters) throws(ControlError) -> Reply {
        let (_, d) = try directory.device(params)
        var w = JSONWriter(capacity: 128 + d.inbox.count * 512)
        w.object { w in
            w.array("notifications") { w in
                for entry in d.inbox {
                    w.object { w in
                        w.member("message_id", entry.messageID)
                        w.member("received_at", entry.receivedAt.rfc3339)
                        w.member("shown", entry.shown.rawValue)
                        w.member("opened", entry.opened)
                        RecordJSON.writeRendering(entry.message, entry.messageID, d, to: &w)
                    }
                }
            }
            w.member("dropped_from_inbox", d.inboxDropped)
        }
        return .response(.json(200, w))
    }
}
