/// Resuming from the durable log at construction: the saved control-plane state, then the
/// newest events, then new events go to the store. What the store saved, pushmock wrote: a
/// saved device is read back without the control API's checks (they passed when it was
/// registered), and events are put back a group at a time as the store decodes them
/// (docs/durable-store.md, "A restart resumes").
extension Gateway {
    func resume(_ durable: DurableLog) throws(SeedError) {
        if let state = durable.savedState {
            let recording = changes.recording
            changes.recording = false
            defer { changes.recording = recording }
            // One time for all of it (its devices' `created_at` start afresh), read once for a
            // million devices.
            try clock.pinned { () throws(SeedError) in
                try seed(state, file: durable.path + " (saved state)", savedDevices: durable.savedDevices)
            }
        }
        var restoring = Restoring(cutShort: durable.cutShort)
        // A stored token that is its device's own is read as that String (two million events
        // name a million devices' tokens); the project is the last group's.
        try durable.readEvents({ id in restoring.project?.devices[id]?.token }, { restore($0, &restoring) })
        unrestored.cutShortSends = restoring.left.count
        log.continueAfter(durable.lastStoredSeq)
        log.sink = durable.sink
    }

    /// A project's saved devices, each from its row (a fixture's device, as `deviceRow`
    /// wrote it): its members are read as a registration's (`DeviceFields.spec`), its rules
    /// are not checked again (`DeviceRegistration.restore`). `fail` says what is wrong with a
    /// row, which means the store is damaged.
    func restoreSavedDevices(
        _ rows: SavedDeviceRows, in project: Project, fail: (String) -> SeedError
    ) throws(SeedError) {
        project.devices.reserveCapacity(project.devices.count + rows.count)
        var n = 0
        var members = DeviceMembers()
        let registration = registration // (not copied out of the gateway for each row)
        try rows.eachRow { (row) throws(SeedError) in
            n += 1
            func damaged(_ problem: String) -> SeedError { fail("saved device \(n) of \(rows.count) is damaged: \(problem)") }
            // Read straight into the registration's members (one for every row), no tree;
            // `topics` apart.
            var topics: [JSONValue] = []
            let read: Void? = try? JSONParser.reading(row) { (p) throws(JSONParseError) in
                try members.read(&p) { (name, p) throws(JSONParseError) in
                    guard name == "topics" else { return false }
                    topics = try p.readValue().arrayValue ?? []
                    return true
                }
            }
            guard read != nil else { throw damaged("not a JSON object") }
            let device: Device
            do throws(RegistrationError) {
                device = try registration.restore(DeviceFields.spec(taking: &members), in: project)
            } catch {
                throw damaged(error.message)
            }
            for topic in topics {
                guard let name = topic.stringValue, registration.restoreTopic(name, of: device, in: project) else {
                    throw damaged("topics: \(JSONWriter.quotedJSON(topic)) is not a topic it can be subscribed to")
                }
            }
        }
    }

    /// What putting events back keeps between groups: the messages made so far, and the
    /// sends cut short.
    struct Restoring {
        let cutShort: Set<String>
        /// The messages made so far, by `project id NUL message id`; the last one apart (a
        /// fan-out's groups follow one another).
        var messages: [String: Message] = [:]
        var last: Message?
        /// The cut-short sends met, by the same key.
        var left: Set<String> = []
        /// The project of the last group (a store holds mostly one).
        var project: Project?
        /// The event kinds and message types met so far, by their stored names: the reader
        /// hands back the same String for a repeated column, so a scan of the few met finds
        /// one for less than hashing its name (two million events).
        var kinds: [(name: String, value: EventKind)] = []
        var types: [(name: String, value: MessageType)] = []
    }

    /// The value `name` stands for among those met (`seen`), or made by `make` and remembered.
    private static func named<T>(_ name: String, _ seen: inout [(name: String, value: T)], _ make: (String) -> T?) -> T? {
        for (n, v) in seen where n == name { return v }
        guard let v = make(name) else { return nil }
        seen.append((name, v))
        return v
    }

    /// Puts one stored group of events back into the log, after the state was restored. Each
    /// send becomes a message again, without its request body (which is not stored): its
    /// options and target come from the columns, so the log's rows read as before. Events
    /// that cannot be put back (a damaged row, a project the saved state lacks), and those of
    /// sends cut short before their answer, are counted in `unrestored` for the server to
    /// report.
    private func restore(_ g: StoredGroup, _ r: inout Restoring) {
        unrestored.read += max(g.events.count, 1)
        if g.isDamaged {
            unrestored.unknownKind += 1
            return
        }
        if !r.cutShort.isEmpty, let id = g.messageID, case let key = g.projectID + "\u{0}" + id, r.cutShort.contains(key) {
            unrestored.cutShort += g.events.count
            r.left.insert(key)
            return
        }
        if r.project?.id != g.projectID { r.project = directory.project(g.projectID) }
        guard let project = r.project else {
            unrestored.unknownProject += g.events.count
            return
        }
        var message: Message?
        if let id = g.messageID { message = storedMessage(id, of: g, in: project, &r) }
        let device = g.deviceID.flatMap { project.devices[$0] }
        // The device's own token when it is the one stored: a restart holds each once, as
        // the log did before it.
        let token = g.token == device?.token ? device?.token : g.token
        let type = g.messageType.flatMap { Self.named($0, &r.types) { MessageType(rawValue: $0) } }
        for own in g.events {
            guard let kind = Self.named(own.kind, &r.kinds, { EventKind(rawValue: $0) }) else {
                unrestored.unknownKind += 1
                continue
            }
            log.restore(
                Event(
                    seq: own.seq, time: g.time, kind: kind, projectID: project.id, projectNumber: project.number,
                    message: message, messageID: message?.id ?? g.messageID, messageType: type, device: device, token: token,
                    reason: own.reason, delay: nil))
        }
    }

    /// The message a group's events belong to, made once per id; nil for events of no
    /// particular send.
    private func storedMessage(_ id: String, of g: StoredGroup, in project: Project, _ r: inout Restoring) -> Message? {
        if let m = r.last, m.id == id, m.projectID == project.id { return m }
        let key = project.id + "\u{0}" + id
        if let m = r.messages[key] {
            r.last = m
            return m
        }
        guard let options = Self.options(g) else { return nil }
        let m = Message(
            id: id, projectID: project.id, projectNumber: project.number, api: g.api ?? "unknown",
            target: g.topic.map { .topic($0) } ?? .token, options: options, format: .stored, requestBytes: [],
            requestHead: RequestHead(), receivedAt: g.time, bulkID: g.bulkID, dryRun: false)
        project.messages.add(m) // once per id: `messages` remembers it
        r.messages[key] = m
        r.last = m
        return m
    }

    /// A message's options from a group's columns; nil for events of no particular send.
    private static func options(_ g: StoredGroup) -> PushOptions? {
        guard let type = g.messageType.flatMap(MessageType.init), let ttl = g.ttl, let priority = g.priority else { return nil }
        var content = PushContent(
            priority: priority == 10 ? .high : .normal, collapseKey: g.collapseKey, ttl: ttl,
            analyticsLabel: g.label)
        content.options.isNotification = type == .displayNotification
        return content.options
    }
}

/// Stored events left out of the log at start, by why; the rows stay in the store.
public struct Unrestored: Equatable, Sendable {
    /// How many stored events were read back (a damaged block counts as one).
    public var read = 0
    /// The `event` column names no event pushmock logs: the row is damaged.
    public var unknownKind = 0
    /// The project is not in the saved state (damaged, or created less than a second before
    /// pushmock was killed, so its state was never saved).
    public var unknownProject = 0
    /// Events of sends a stop cut short before they were answered, and how many sends.
    public var cutShort = 0
    public var cutShortSends = 0
    public var count: Int { unknownKind + unknownProject }
}
