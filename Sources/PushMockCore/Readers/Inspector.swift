/// The message inspector's API: sends with search and filters, one send with what each
/// device received and its timeline, and topics with their subscribers. Loop thread only.
final class Inspector {
    private let directory: ProjectDirectory
    private let log: EventLog

    init(directory: ProjectDirectory, log: EventLog) {
        self.directory = directory
        self.log = log
    }

    /// `GET .../messages?limit=&token=&device=&topic=&label=&event=&q=`, newest first. `event`
    /// keeps sends with at least one event of that kind; `q` searches the request body and
    /// the message ids. Each carries its outcome counts (`events`: kind → count).
    func listMessages(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let limit = min(max(1, request.queryValue("limit").flatMap(Int.init) ?? 100), 10_000)
        let topic = request.queryValue("topic").map(Topic.bareName)
        let label = request.queryValue("label")
        let text = request.queryValue("q")?.lowercased()
        var kind: EventKind?
        if let name = request.queryValue("event") {
            guard let k = EventKind(rawValue: name) else { throw Control.invalid("Unknown event '\(name)'.") }
            kind = k
        }
        let token = request.queryValue("token")
        let device = request.queryValue("device")
        // Filters on recipients read the log once and keep the sends it names.
        var named: Set<ObjectIdentifier>?
        if kind != nil || token != nil || device != nil {
            var ids = Set<ObjectIdentifier>()
            log.visit { e in
                guard let m = e.message, e.projectNumber == p.number else { return true }
                if let kind, e.kind != kind { return true }
                if let token, e.token != token { return true }
                if let device, e.device?.id != device { return true }
                ids.insert(ObjectIdentifier(m))
                return true
            }
            named = ids
        }
        let messages = p.messages.newest(limit: limit) { m in
            if let named, !named.contains(ObjectIdentifier(m)) { return false }
            if let topic, m.topic != topic { return false }
            if let label, m.options.analyticsLabel != label { return false }
            if let text, !m.requestBody.lowercased().containsBytes(of: text), !m.id.lowercased().containsBytes(of: text),
                !m.recipientIDs.contains(where: { $0.lowercased().containsBytes(of: text) })
            {
                return false
            }
            return true
        }
        let counts = eventCounts(of: messages)
        var w = JSONWriter()
        w.beginObject()
        w.key("messages")
        w.beginArray()
        for m in messages { ControlJSON.writeMessage(m, detail: false, counts: counts[ObjectIdentifier(m)], to: &w) }
        w.endArray()
        w.member("total", p.messages.count)
        w.member("evicted", p.messages.evicted)
        w.endObject()
        return .response(.json(200, w))
    }

    /// `GET .../messages/{id}`: the send, its request as received, every event, and per
    /// device what it received (the rendered APNs request or Android message) with its
    /// timeline.
    func message(_ params: [String: String]) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        guard let m = p.messages.message(id: params["id"]!) else { throw Control.notFound("Message \(params["id"]!) not found.") }
        var events: [Event] = []
        log.visit { e in
            if e.message === m { events.append(e) }
            return true
        }
        var w = JSONWriter()
        ControlJSON.writeMessage(m, detail: true, counts: eventCounts(of: [m])[ObjectIdentifier(m)], to: &w) { w in
            Self.writeDeliveries(m, events, to: &w)
        }
        return .response(.json(200, w))
    }

    /// Every event of a send, then each device's rendering and timeline.
    static func writeDeliveries(_ m: Message, _ events: [Event], to w: inout JSONWriter) {
        w.key("events")
        w.beginArray()
        for e in events { ControlJSON.writeEvent(e, to: &w) }
        w.endArray()
        w.key("devices")
        w.beginArray()
        var seen = Set<String>()
        for e in events {
            guard let d = e.device, let id = e.messageID, seen.insert(d.id).inserted else { continue }
            w.beginObject()
            w.member("device_id", d.id)
            w.member("platform", d.platform.rawValue)
            w.member("app", d.app)
            w.member("message_id", id)
            let timeline = events.filter { $0.device === d }
            w.member("fate", timeline.last.map { $0.kind.rawValue } ?? "")
            w.member("reason", ifPresent: timeline.last(where: { $0.reason != nil })?.reason)
            ControlJSON.writeRendering(m, id, d, to: &w)
            w.key("timeline")
            w.beginArray()
            for e in timeline {
                w.beginObject()
                w.member("seq", Int(e.seq))
                w.member("time", e.time.rfc3339)
                w.member("event", e.kind.rawValue)
                w.member("reason", ifPresent: e.reason)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    /// Event kinds per send. Reads the log newest first and stops at events older than the
    /// oldest of the sends (none of theirs can come before it), so a page of recent sends
    /// costs the events since then, not the whole log.
    func eventCounts(of messages: [Message]) -> [ObjectIdentifier: [EventKind: Int]] {
        var counts: [ObjectIdentifier: [EventKind: Int]] = [:]
        for m in messages { counts[ObjectIdentifier(m)] = [:] }
        guard let oldest = messages.map(\.receivedAt).min() else { return counts }
        log.visitNewestFirst { e in
            if let m = e.message, counts[ObjectIdentifier(m)] != nil { counts[ObjectIdentifier(m)]![e.kind, default: 0] += 1 }
            return e.time >= oldest
        }
        return counts
    }

    /// `GET .../topics`: every topic with its subscriber count and up to 100 device ids.
    func listTopics(_ params: [String: String]) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var w = JSONWriter()
        w.beginObject()
        w.key("topics")
        w.beginArray()
        for name in p.topics.names.sorted() {
            let devices = p.topics[name]!
            w.beginObject()
            w.member("name", name)
            w.member("subscribers", devices.count)
            w.key("devices")
            w.beginArray()
            for id in devices.keys.sorted(by: Self.deviceOrder).prefix(100) { w.string(id) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    /// d2 before d10.
    static func deviceOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
    }
}
