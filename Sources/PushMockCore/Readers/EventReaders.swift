/// The readers of the log: `GET .../events` (filtered, oldest first; with `wait` and `min` a
/// long-poll until enough events match; `count=true` answers only the count), event streams
/// and exports (`EventReaders+Streams.swift`), reports and the Data API
/// (`EventReaders+Reports.swift`, `EventReaders+DeliveryData.swift`). They only read; the
/// report cache and the count of open streams are theirs. Loop thread only.
public final class EventReaders {
    static let maxWaitSeconds = 60.0

    let log: EventLog
    let directory: ProjectDirectory
    /// The last report computed, reused while the log is unchanged.
    var reportCache: (key: ReportCacheKey, days: [String: ReportRow], total: ReportRow)?
    /// Open event streams (SSE and exports); the server keeps it current.
    public var streamClients = 0

    init(log: EventLog, directory: ProjectDirectory) {
        self.log = log
        self.directory = directory
    }

    /// The filters every log reader takes: `message_id`, `device`, `token`, `topic`, `event`.
    func eventFilters(_ request: Request, _ project: Project) throws(ControlError) -> EventQuery {
        var q = EventQuery(projectID: project.id)
        q.messageID = request.queryValue("message_id")
        q.deviceID = request.queryValue("device")
        q.token = request.queryValue("token")
        q.topic = request.queryValue("topic").map(Topic.bareName)
        if let name = request.queryValue("event") {
            guard let kind = EventKind(rawValue: name) else { throw Control.invalid("Unknown event '\(name)'.") }
            q.kind = kind
        }
        return q
    }

    func events(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var q = try eventFilters(request, p)
        if let s = request.queryValue("since") {
            guard let n = Int64(s), n >= 0 else { throw Control.invalid("'since' must be an event seq (a whole number).") }
            q.since = n
        }
        if let l = request.queryValue("limit") {
            guard let n = Int(l), (1...EventQuery.maxLimit).contains(n) else {
                throw Control.invalid("'limit' must be 1...\(EventQuery.maxLimit).")
            }
            q.limit = n
        }
        let countOnly = request.queryValue("count") == "true"
        var minimum = 1
        if let m = request.queryValue("min") {
            guard let n = Int(m), n >= 1, countOnly || n <= q.limit else {
                throw Control.invalid("'min' must be 1...limit, or any count with count=true.")
            }
            minimum = n
        }
        if let w = request.queryValue("wait") {
            guard let seconds = Double(w), seconds >= 0, seconds <= Self.maxWaitSeconds else {
                throw Control.invalid("'wait' must be 0...\(Int(Self.maxWaitSeconds)) seconds.")
            }
            var wait = EventWait(query: q, minimum: minimum, seconds: seconds, countOnly: countOnly)
            if seconds > 0, !isReady(&wait) { return .waitForEvents(wait) }
        }
        return answer(q, countOnly: countOnly)
    }

    /// The matching events (or their count): a list that may be long (`limit` over
    /// `renderedLimit`) is made as the client reads it, never rendered ahead.
    private func answer(_ q: EventQuery, countOnly: Bool) -> Reply {
        guard !countOnly, q.limit > Self.renderedLimit else { return .response(eventsResponse(q, countOnly: countOnly)) }
        var stream = EventStream(format: .jsonList, query: q, live: false, until: log.lastSeq, heartbeatSeconds: 15)
        stream.remaining = q.limit
        return .stream(stream)
    }

    /// The longest `limit` answered in one piece (the default); longer lists are streamed.
    static let renderedLimit = 1000

    /// Whether a parked long-poll can be answered; reads only the events logged since its
    /// last check.
    public func isReady(_ wait: inout EventWait) -> Bool {
        if wait.matched < wait.minimum, log.lastSeq > wait.checkedThrough {
            var q = wait.query
            q.since = wait.checkedThrough
            wait.matched += q.count(on: log, atMost: wait.minimum - wait.matched)
            wait.checkedThrough = log.lastSeq
        }
        return wait.matched >= wait.minimum
    }

    /// The answer to a long-poll, ready or timed out (a long list streamed, as without `wait`).
    public func finish(_ wait: EventWait) -> Reply { answer(wait.query, countOnly: wait.countOnly) }

    /// The matching events, or with `countOnly` just how many match (`count=true`).
    func eventsResponse(_ q: EventQuery, countOnly: Bool) -> Response {
        if countOnly {
            return .json(
                200, "{\"count\":\(q.count(on: log, atMost: Int.max)),\"last_seq\":\(log.lastSeq),\"evicted\":\(log.evicted)}")
        }
        let events = q.run(on: log)
        var w = JSONWriter(capacity: 64 + events.count * 600)
        w.beginObject()
        w.key("events")
        w.beginArray()
        for e in events { ControlJSON.writeEvent(e, to: &w) }
        w.endArray()
        w.member("last_seq", Int(log.lastSeq))
        w.member("evicted", log.evicted)
        w.endObject()
        return .json(200, w)
    }
}
