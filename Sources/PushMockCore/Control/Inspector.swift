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
            let outlines = outlines(of: part)
            for m in part {
                if written > 0 { w.raw(",") }
                let outline = outlines[ObjectIdentifier(m)]
                RecordJSON.writeMessage(m, detail: false, counts: outline?.counts, to: &w) { w in
                    outline?.writeRecipient(of: m, to: &w)
                }
                written += 1
            }
            guard written == messages.count else { return (w.bytes, false) }
            w.raw("],\"matched\":\(matched),\"total\":\(total),\"evicted\":\(evicted)}")
            return (w.bytes, true)
        }
    }

    /// The most events and devices one send's detail lists (a legacy multicast reaches 1,000).
    static let detailLimit = 1000

    /// `GET .../messages/{id}?device_offset=&device_limit=`: the send, its request as
    /// received, its events (up to `detailLimit`), every device's outcome counted by platform,
    /// event and reason, and a page of its devices (from `device_offset`, `device_limit`,
    /// at most and by default `detailLimit`) with what each received (the rendered APNs
    /// request or Android message) and its timeline.
    func message(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        let id = try Control.path(params, .id)
        guard let m = p.messages.message(id: id) else { throw Control.notFound("Message \(id) not found.") }
        let offset = max(0, request.queryValue("device_offset").flatMap(Int.init) ?? 0)
        let limit = min(max(1, request.queryValue("device_limit").flatMap(Int.init) ?? Self.detailLimit), Self.detailLimit)
        let record = DeliveryRecord(of: m, in: log, limit: Self.detailLimit, deviceOffset: offset, deviceLimit: limit)
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
        var run = RecordJSON.EventRun()
        for e in record.events { RecordJSON.writeEvent(e, to: &w, in: &run) }
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
            w.member("fate", r.fate?.kind.rawValue ?? "")
            w.member("reason", ifPresent: r.fate?.reason)
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
        // Most devices first; then by platform, event and reason, so the order is stable.
        let outcomes = record.outcomes.sorted {
            ($1.value, $0.key.platform.rawValue, $0.key.kind.rawValue, $0.key.reason ?? "")
                < ($0.value, $1.key.platform.rawValue, $1.key.kind.rawValue, $1.key.reason ?? "")
        }
        w.array("outcomes") { w in
            for (o, n) in outcomes {
                w.object { w in
                    w.member("platform", o.platform.rawValue)
                    w.member("event", o.kind.rawValue)
                    w.member("reason", o.reason.map { .string($0) } ?? .null)
                    w.member("devices", n)
                }
            }
        }
    }

    /// What a list row says of a send's outcome: its event kinds, and who it reached.
    struct Outline {
        var counts: [EventKind: Int] = [:]
        /// The token of its first event naming one (the token as sent, for a send to one).
        var token: String?
        /// The first device it reached, and whether it reached another.
        var device: Device?
        var severalDevices = false

        /// Takes one of the send's events. They come newest first, so the token kept is the
        /// oldest event's: the one the send named.
        mutating func add(_ e: Event) {
            counts[e.kind, default: 0] += 1
            if let t = e.token { token = t }
            guard let d = e.device else { return }
            if let known = device, known !== d { severalDevices = true }
            device = d
        }

        /// `token` for a send to one token, and `device_id` when it reached one device.
        func writeRecipient(of m: Message, to w: inout JSONWriter) {
            if case .token = m.target { w.member("token", ifPresent: token) }
            w.member("device_id", ifPresent: severalDevices ? nil : device?.id)
        }
    }

    /// Each send's outline, a send to a browser counting the events of the push that carried
    /// it (`Message.forwarding`). Reads the log newest first and stops at events older than the
    /// oldest of the sends (none of theirs can come before it), so a page of recent sends
    /// costs the events since then, not the whole log.
    func outlines(of messages: [Message]) -> [ObjectIdentifier: Outline] {
        var outlines: [ObjectIdentifier: Outline] = [:]
        for m in messages { outlines[ObjectIdentifier(m)] = Outline() }
        guard let oldest = messages.map(\.receivedAt).min() else { return outlines }
        log.visitNewestFirst { e in
            if let m = e.message, outlines[ObjectIdentifier(m)] != nil {
                outlines[ObjectIdentifier(m)]!.add(e)
            }
            // What became of a send to a browser is told by the push that carried it, but for its own acceptance.
            if let carried = e.message?.forwarding, e.kind != .messageAccepted, outlines[ObjectIdentifier(carried)] != nil {
                outlines[ObjectIdentifier(carried)]!.counts[e.kind, default: 0] += 1
            }
            return e.time >= oldest
        }
        return outlines
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
                        w.array("devices", strings: devices.map(\.id).sorted(by: Self.deviceOrder).prefix(100))
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
