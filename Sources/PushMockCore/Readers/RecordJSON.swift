/// How the log's records are shown, the same to the control API, the event streams and the
/// bridges: one event as a row of the BigQuery export's columns and pushmock's own, one send
/// with its outcome counts, and what a device was handed.
enum RecordJSON {
    /// `"apns": {"headers": {...}, "payload": {...}}` for iOS, `"android": {...}` for Android,
    /// `"web": {"payload": {...}, "notification": {...}}` for a browser.
    static func writeRendering(_ message: Message, _ messageID: String, _ device: Device, to w: inout JSONWriter) {
        switch device.platform {
        case .ios:
            let r = APNsRendering.render(message: message, messageID: messageID, device: device)
            w.key("apns")
            w.beginObject()
            w.key("headers")
            w.beginObject()
            for (k, v) in r.headers { w.member(JSONKey(k), v) }
            w.endObject()
            w.key("payload")
            w.raw(r.payload)
            w.endObject()
        case .android:
            w.key("android")
            AndroidRendering.write(message: message, messageID: messageID, device: device, to: &w)
        case .web:
            let r = WebRendering.render(message: message, messageID: messageID, device: device)
            w.key("web")
            w.beginObject()
            w.key("payload")
            w.raw(r.payload)
            if let n = r.notification {
                w.key("notification")
                w.raw(n)
            }
            w.endObject()
        }
    }

    /// What a run of events written into one writer last wrote that the next event often
    /// repeats, and where it lies in the writer: one send's events share a time; its events
    /// for one recipient the columns that say whose they are, and (delivered and displayed
    /// ones) a payload. Made once, copied after.
    struct EventRun {
        fileprivate var time: (value: Int64, bytes: Range<Int>)?
        /// Whose the last columns were, and where they lie.
        fileprivate var recipient: Recipient?
        fileprivate var sendColumns = 0..<0
        fileprivate var recipientColumns = 0..<0
        /// The recipient's payload, once one of its events carried it.
        fileprivate var payload: Range<Int>?

        init() {}
    }

    /// What the columns from `project_number` to `bulk_id`, and from `analytics_label` to
    /// `token`, are written from: two events with the same have the same columns.
    fileprivate struct Recipient {
        let message: Message
        let device: Device?
        let messageID: String?
        let token: String?
        let projectID: String
        let projectNumber: Int64
        let messageType: MessageType?

        init(_ e: Event, _ m: Message) {
            message = m
            device = e.device
            messageID = e.messageID
            token = e.token
            projectID = e.projectID
            projectNumber = e.projectNumber
            messageType = e.messageType
        }

        /// Whether `e`, an event of `m`, is this recipient's.
        func matches(_ e: Event, _ m: Message) -> Bool {
            message === m && device === e.device && projectNumber == e.projectNumber && messageType == e.messageType
                && messageID == e.messageID && token == e.token && projectID == e.projectID
        }
    }

    /// One log row: the BigQuery export's columns, then pushmock's own.
    static func writeEvent(_ e: Event, to w: inout JSONWriter) {
        var run = EventRun()
        writeEvent(e, to: &w, in: &run)
    }

    /// One log row of a run of them written into `w`.
    static func writeEvent(_ e: Event, to w: inout JSONWriter, in run: inout EventRun) {
        let m = e.message
        w.beginObject()
        w.member("seq", Int(e.seq))
        w.key("event_timestamp")
        if let time = run.time, time.value == e.time {
            w.raw(repeating: time.bytes)
        } else {
            let start = w.byteCount
            e.time.withRFC3339 { w.string(bytes: $0) }
            run.time = (e.time, start..<w.byteCount)
        }
        if let m, run.recipient?.matches(e, m) == true {
            w.members(repeating: run.sendColumns)
            w.member("event", e.kind.rawValue)
            w.members(repeating: run.recipientColumns)
        } else {
            let send = w.byteCount
            writeSendColumns(e, to: &w)
            run.sendColumns = send..<w.byteCount
            w.member("event", e.kind.rawValue)
            let own = w.byteCount
            writeRecipientColumns(e, to: &w)
            run.recipientColumns = own..<w.byteCount
            run.recipient = m.map { Recipient(e, $0) }
            run.payload = nil
        }
        optional(&w, "reason", e.reason)
        if let delay = e.delay { w.member("delay_ms", Int(delay / 1000)) }
        if let m, let d = e.device, let id = e.messageID,
            e.kind == .messageDelivered || e.kind == .messageDisplayed || e.kind == .messagePresented
        {
            w.key("payload")
            if let payload = run.payload {
                w.raw(repeating: payload)
            } else {
                let start = w.byteCount
                w.beginObject()
                writeRendering(m, id, d, to: &w)
                w.endObject()
                run.payload = start..<w.byteCount
            }
        }
        w.endObject()
    }

    /// `project_number` to `bulk_id`: the send's and the device's.
    private static func writeSendColumns(_ e: Event, to w: inout JSONWriter) {
        let m = e.message
        w.member("project_number", Int(e.projectNumber))
        optional(&w, "message_id", e.messageID)
        w.key("instance_id")
        if let d = e.device { d.withFID { w.string(bytes: $0) } } else { w.null() }
        optional(&w, "message_type", e.messageType?.rawValue)
        optional(&w, "sdk_platform", e.device?.platform.sdkPlatform)
        optional(&w, "app_name", e.device?.app)
        optional(&w, "collapse_key", m?.options.collapseKey)
        w.key("priority")
        if let m { w.int(m.options.priority.apnsPriority) } else { w.null() }
        w.key("ttl")
        if let m { w.int(m.options.ttl) } else { w.null() }
        optional(&w, "topic", m?.topic)
        w.key("bulk_id")
        if let b = m?.bulkID { w.int64(b) } else { w.null() }
    }

    /// `analytics_label` to `token`.
    private static func writeRecipientColumns(_ e: Event, to w: inout JSONWriter) {
        optional(&w, "analytics_label", e.message?.options.analyticsLabel)
        w.member("project_id", e.projectID)
        optional(&w, "device_id", e.device?.id)
        optional(&w, "token", e.token)
    }

    private static func optional(_ w: inout JSONWriter, _ name: JSONKey, _ value: String?) {
        w.key(name)
        if let value { w.string(value) } else { w.null() }
    }

    /// A send's summary: what it was, a one-line `summary` of its content, and how many
    /// events of each kind it has (`counts`); with `detail`, the request exactly as received;
    /// `more` writes further members before the object closes.
    static func writeMessage(
        _ m: Message, detail: Bool, counts: [EventKind: Int]?, to w: inout JSONWriter,
        more: (inout JSONWriter) -> Void = { _ in }
    ) {
        w.beginObject()
        w.member("message_id", m.id)
        w.member("api", m.api)
        w.member("http_version", m.overHTTP2 ? "2" : "1.1")
        w.member("tls", m.overTLS)
        w.member("target", m.target.name)
        switch m.target {
        case .topic(let t): w.member("topic", t)
        case .condition(let c): w.member("condition", c)
        case .group(let g): w.member("notification_key_name", g)
        case .token, .multicast: break
        }
        w.member("message_type", m.options.messageType.rawValue)
        w.member("received_at", m.receivedAt.rfc3339)
        w.member("dry_run", m.dryRun)
        w.member("accepted", m.accepted)
        w.member("failed", m.failed)
        w.member("analytics_label", ifPresent: m.options.analyticsLabel)
        // A push FCM made for a browser names the send it carries.
        w.member("forwarding", ifPresent: m.forwarding?.id)
        w.member("summary", Self.summary(m))
        if let counts {
            w.key("counts")
            w.beginObject()
            for kind in EventKind.allCases { if let n = counts[kind] { w.member(JSONKey(kind.rawValue), n) } }
            w.endObject()
        }
        if detail {
            w.key("request")
            w.beginObject()
            w.member("method", ifPresent: m.requestHead.method.isEmpty ? nil : m.requestHead.method)
            w.member("path", ifPresent: m.requestHead.path.isEmpty ? nil : m.requestHead.path)
            w.member("content_type", ifPresent: m.requestContentType)
            w.key("headers")
            w.beginArray()
            for h in m.requestHead.headers {
                w.beginObject()
                w.member("name", h.name)
                w.member("value", h.value)
                w.endObject()
            }
            w.endArray()
            w.member("body", m.requestBody)
            if let json = try? JSONParser.parse(m.requestBytes) { w.member("json", json) }
            w.endObject()
            if let shown = m.details?.shown, !shown.isEmpty { w.member("details", .object(JSONObject(shown))) }
        }
        more(&w)
        w.endObject()
    }

    /// One line for a list: the notification's title and body, else the data keys.
    static func summary(_ m: Message) -> String {
        let c = m.content
        if m.format.direct, let aps = (try? JSONParser.parse(m.requestBytes))?["aps"] {
            if let s = aps["alert"]?.stringValue { return s }
            let parts = [aps["alert"]?["title"]?.stringValue, aps["alert"]?["body"]?.stringValue].compactMap { $0 }
            if !parts.isEmpty { return parts.joined(separator: " — ") }
        }
        // The common notification, else a platform's own (a v1 message may have only one:
        // `android.notification`, `apns.payload.aps.alert`, `webpush.notification`).
        let blocks = c.perPlatform
        let alert = blocks?["apns"]?["payload"]?["aps"]?["alert"]
        let notifications = [
            c.notification, blocks?["notification"]?.objectValue, blocks?["android"]?["notification"]?.objectValue,
            alert?.objectValue, blocks?["webpush"]?["notification"]?.objectValue,
        ]
        for case let n? in notifications {
            let parts = [n["title"]?.stringValue, n["body"]?.stringValue].compactMap { $0 }
            if !parts.isEmpty { return parts.joined(separator: " — ") }
        }
        if let s = alert?.stringValue { return s }
        if let d = c.data ?? blocks?["android"]?["data"]?.objectValue ?? blocks?["webpush"]?["data"]?.objectValue, !d.isEmpty {
            return "data: " + d.keys.joined(separator: ", ")
        }
        // Web Push data that is not a JSON object: its text; one that did not decrypt: why.
        if let why = c.payloadError { return "undecryptable: " + why }
        if let p = c.payload, !p.isEmpty { return "data: " + String(String(decoding: p, as: UTF8.self).prefix(80)) }
        return m.options.contentAvailable ? "silent (content-available)" : ""
    }
}
