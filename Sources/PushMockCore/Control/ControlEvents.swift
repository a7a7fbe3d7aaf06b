/// The control API over the log's readers: `GET .../events` (filtered, oldest first; with
/// `wait` and `min` a long-poll until enough events match; `count=true` answers only the
/// count), `events:stream`, `events:export` and `reports`. It reads the query and answers its
/// errors in Google's shape; `EventReaders` does the reading. Loop thread only.
struct ControlEvents {
    let readers: EventReaders
    let directory: ProjectDirectory
    let log: EventLog

    /// The filters every log reader takes: `message_id`, `device`, `token`, `topic`, `event`.
    private func filters(_ request: Request, _ project: Project) throws(ControlError) -> EventQuery {
        var q = EventQuery(projectID: project.id)
        q.messageID = request.queryValue("message_id")
        q.deviceID = request.queryValue("device")
        q.token = request.queryValue("token")
        q.topic = request.queryValue("topic").map(Topic.bareName)
        if let name = request.queryValue("event") {
            guard let kind = EventKind(rawValue: name) else { throw Control.invalid("Unknown event '\(name)'.") }
            q.kind = kind
        }
        q.reason = request.queryValue("reason")
        q.api = request.queryValue("api")
        return q
    }

    func events(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let p = try directory.named(params)
        var q = try filters(request, p)
        if let s = request.queryValue("since") {
            guard let n = Int64(s), EventQuery.seqs.contains(n) else {
                throw Control.invalid("'since' must be an event seq (a whole number, 0...\(EventQuery.seqs.upperBound)).")
            }
            q.since = n
        }
        if let l = request.queryValue("limit") {
            guard let n = Int(l), (1...EventQuery.maxLimit).contains(n) else {
                throw Control.invalid("'limit' must be 1...\(EventQuery.maxLimit).")
            }
            q.limit = n
        }
        switch request.queryValue("order") {
        case nil, "oldest": break
        case "newest":
            // A page read newest first, answered whole (a log view's page, not an export).
            guard q.limit <= EventReaders.renderedLimit else {
                throw Control.invalid("'order=newest' takes a limit of at most \(EventReaders.renderedLimit).")
            }
            q.newestFirst = true
        case let other?: throw Control.invalid("'order' must be oldest or newest, not '\(other)'.")
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
            let most = EventReaders.maxWaitSeconds
            guard let seconds = Double(w), seconds >= 0, seconds <= most else {
                throw Control.invalid("'wait' must be 0...\(Int(most)) seconds.")
            }
            var wait = EventWait(query: q, minimum: minimum, seconds: seconds, countOnly: countOnly)
            if seconds > 0, !readers.isReady(&wait) { return .waitForEvents(wait) }
        }
        return readers.answer(q, countOnly: countOnly)
    }

    /// `GET .../events:stream` (Server-Sent Events; resumes after `Last-Event-ID` or `since`,
    /// else starts with the next event) and `GET .../events:export` (NDJSON of the log's
    /// columns through the last event at the time of the request). Both take the filters of
    /// `GET .../events`.
    func stream(_ request: Request, _ params: PathParameters, format: EventStream.Format) throws(ControlError) -> Reply {
        var q = try filters(request, try directory.named(params))
        var since: Int64? = nil
        for value in [request.queryValue("since"), request.header("last-event-id")].compactMap({ $0 }) {
            guard let n = Int64(value), EventQuery.seqs.contains(n) else {
                throw Control.invalid("'since' and Last-Event-ID must be an event seq (0...\(EventQuery.seqs.upperBound)).")
            }
            since = max(since ?? 0, n)
        }
        var heartbeat = 15.0
        if let h = request.queryValue("heartbeat") {
            guard let s = Double(h), (0.1...300).contains(s) else {
                throw Control.invalid("'heartbeat' must be 0.1...300 seconds.")
            }
            heartbeat = s
        }
        let live = format == .sse
        q.since = since ?? (live ? log.lastSeq : 0)
        return .stream(EventStream(format: format, query: q, live: live, until: log.lastSeq, heartbeatSeconds: heartbeat))
    }

    /// `GET .../reports?from=&to=&platform=&app=&analytics_label=&format=`: per day and in
    /// total, as JSON or the console's CSV export.
    func reports(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        var f = EventReaders.ReportFilter()
        for (name, value) in [("from", request.queryValue("from")), ("to", request.queryValue("to"))] {
            guard let value else { continue }
            guard let day = Timestamp.dayNumber(value) else { throw Control.invalid("'\(name)' must be a date, YYYY-MM-DD.") }
            if name == "from" { f.from = day } else { f.to = day }
        }
        if let p = request.queryValue("platform") {
            guard let platform = Platform(rawValue: p.lowercased()) else {
                throw Control.invalid("'platform' must be \(Platform.spelled).")
            }
            f.platform = platform
        }
        f.app = request.queryValue("app")
        f.label = request.queryValue("analytics_label")
        let (days, total) = readers.reportRows(project, f)
        switch request.queryValue("format") {
        case nil, "json"?: return .response(.json(200, EventReaders.reportJSON(project, days, total)))
        case "csv"?:
            var response = Response.text(200, EventReaders.reportCSV(days, total))
            response.headers = [
                ("Content-Type", "text/csv; charset=UTF-8"),
                ("Content-Disposition", "attachment; filename=\"\(project.id)-reports.csv\""),
            ]
            return .response(response)
        default: throw Control.invalid("'format' must be json or csv.")
        }
    }
}
