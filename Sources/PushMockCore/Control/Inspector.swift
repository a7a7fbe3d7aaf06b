/// The message inspector's API: sends with search and filters, one send with what each
/// device received and its timeline, and topics with their subscribers. Loop thread only.
struct Inspector {
    let directory: ProjectDirectory
    let log: EventLog

    /// `GET .../messages?limit=&token=&device=&topic=&label=&event=&q=`, newest first. `event`
    /// keeps sends with at least one event of that kind; `q` searches the request body and
    /// the message ids. Each carries its outcome counts (`events`: kind → count).
    func listMessages(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let limit = min(max(1, request.queryValue("limit").flatMap(Int.init) ?? 100), 10_000)
        let offset = max(0, request.queryValue("offset").flatMap(Int.init) ?? 0)
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
                if let token, !e.concerns(token: token) { return true }
                if let device, e.device?.id != device { return true }
                ids.insert(ObjectIdentifier(m))
                return true
            }
            named = ids
        }
        let (messages, matched) = p.messages.newest(limit: limit, offset: offset) { m in
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
        let list = pages(messages, matched: matched, total: p.messages.count, evicted: p.messages.evicted)
        return limit > EventReaders.renderedLimit ? .paged(list) : .response(list.whole())
    }

    /// The list of sends, `{"messages":[…],"matched":…,"total":…,"evicted":…}`, 500 sends a
    /// part; each part's outcome counts are read when it is made.
    private func pages(_ messages: [Message], matched: Int, total: Int, evicted: Int) -> PagedAnswer {
        var written = 0
        return PagedAnswer(head: Response(status: 200, headers: Response.jsonHeaders)) { [self] in
            // Top-level writes: the writer adds no commas between them.
            var w = JSONWriter(capacity: 64 * 1024)
            if written == 0 { w.raw("{\"messages\":[") }
            let part = Array(messages[written..<min(written + 500, messages.count)])
            let counts = eventCounts(of: part)
            for m in part {
                if written > 0 { w.raw(",") }
                RecordJSON.writeMessage(m, detail: false, counts: counts[ObjectIdentifier(m)], to: &w)
                written += 1
            }
            guard written == messages.count else { return (w.bytes, false) }
            w.raw("],\"matched\":\(matched),\"total\":\(total),\"evicted\":\(evicted)}")
            return (w.bytes, true)
        }
    }

    /// The most events and devices one send's detail lists (a legacy multicast reaches 1,000).
    static let detailLimit = 1000

    /// `GET .../messages/{id}`: the send, its request as received, its events, and per device
    /// what it received (the rendered APNs request or Android message) with its timeline;
    /// up to `detailLimit` events and devices, with the totals.
    func message(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let id = try Control.path(params, .id)
        guard let m = p.messages.message(id: id) else { throw Control.notFound("Message \(id) not found.") }
        let record = DeliveryRecord(of: m, in: log, limit: Self.detailLimit)
        var w = JSONWriter()
        RecordJSON.writeMessage(m, detail: true, counts: record.counts, to: &w) { w in
            Self.writeDeliveries(m, record, to: &w)
        }
        return .response(.json(200, w))
    }

    /// A send's events, then each device's rendering and timeline.
    static func writeDeliveries(_ m: Message, _ record: DeliveryRecord, to w: inout JSONWriter) {
        w.key("events")
        w.beginArray()
        for e in record.events { RecordJSON.writeEvent(e, to: &w) }
        w.endArray()
        w.member("events_total", record.eventsTotal)
        w.key("devices")
        w.beginArray()
        for r in record.recipients {
            let d = r.device
            w.beginObject()
            w.member("device_id", d.id)
            w.member("platform", d.platform.rawValue)
            w.member("app", d.app)
            w.member("message_id", r.messageID)
            w.member("fate", r.timeline.last.map { $0.kind.rawValue } ?? "")
            w.member("reason", ifPresent: r.timeline.last(where: { $0.reason != nil })?.reason)
            RecordJSON.writeRendering(m, r.messageID, d, to: &w)
            w.key("timeline")
            w.beginArray()
            for e in r.timeline {
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
        w.member("devices_total", record.devicesTotal)
    }

    /// Event kinds per send, a send to a browser counting the events of the push that carried
    /// it (`Message.forwarding`). Reads the log newest first and stops at events older than the
    /// oldest of the sends (none of theirs can come before it), so a page of recent sends
    /// costs the events since then, not the whole log.
    func eventCounts(of messages: [Message]) -> [ObjectIdentifier: [EventKind: Int]] {
        var counts: [ObjectIdentifier: [EventKind: Int]] = [:]
        for m in messages { counts[ObjectIdentifier(m)] = [:] }
        guard let oldest = messages.map(\.receivedAt).min() else { return counts }
        log.visitNewestFirst { e in
            if let m = e.message, counts[ObjectIdentifier(m)] != nil { counts[ObjectIdentifier(m)]![e.kind, default: 0] += 1 }
            // What became of a send to a browser is told by the push that carried it, but for its own acceptance.
            if let carried = e.message?.forwarding, e.kind != .messageAccepted, counts[ObjectIdentifier(carried)] != nil {
                counts[ObjectIdentifier(carried)]![e.kind, default: 0] += 1
            }
            return e.time >= oldest
        }
        return counts
    }

    /// `GET .../topics`: every topic with its subscriber count and up to 100 device ids.
    func listTopics(_ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var w = JSONWriter()
        w.object { w in
            w.array("topics") { w in
                for name in p.topics.names.sorted() {
                    let devices = p.topics[name]!
                    w.object { w in
                        w.member("name", name)
                        w.member("subscribers", devices.count)
                        w.array("devices", strings: devices.keys.sorted(by: Self.deviceOrder).prefix(100))
                    }
                }
            }
        }
        return .response(.json(200, w))
    }

    /// d2 before d10.
    static func deviceOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
    }
}
