/// The readers of the log: the events a query matches (oldest first; a long-poll until enough
/// match; or only their count), event streams and exports (`EventReaders+Streams.swift`),
/// and reports (`EventReaders+Reports.swift`). The APIs over them (`ControlEvents`, the Data
/// API) read the requests; these only read the log. The report cache and the count of open
/// streams are theirs. Loop thread only.
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

    /// The matching events (or their count): a list that may be long (`limit` over
    /// `renderedLimit`) is made as the client reads it, never rendered ahead.
    func answer(_ q: EventQuery, countOnly: Bool) -> Reply {
        guard !countOnly, q.limit > Self.renderedLimit else { return .response(eventsResponse(q, countOnly: countOnly)) }
        var stream = EventStream(format: .jsonList, query: q, live: false, until: log.lastSeq, heartbeatSeconds: 15)
        stream.remaining = q.limit
        return .stream(stream)
    }

    /// The longest `limit` answered in one piece (the default); longer lists are streamed.
    static let renderedLimit = 1000

    /// Whether a parked long-poll can be answered; reads on from where its last check
    /// stopped, at most `checkBatch` events (`isCaughtUp` says whether it read to the end).
    public func isReady(_ wait: inout EventWait) -> Bool {
        if wait.matched < wait.minimum, log.lastSeq > wait.checkedThrough {
            var q = wait.query
            q.since = wait.checkedThrough
            let (matched, through) = q.count(on: log, atMost: wait.minimum - wait.matched, reading: Self.checkBatch)
            wait.matched += matched
            wait.checkedThrough = through
        }
        return wait.matched >= wait.minimum
    }

    /// Whether a long-poll's checks have read the whole log (or found enough): if not, the
    /// next `isReady` reads on though nothing new was logged.
    public func isCaughtUp(_ wait: EventWait) -> Bool {
        wait.matched >= wait.minimum || wait.checkedThrough >= log.lastSeq
    }

    /// The most events one readiness check reads. A long-poll asking for more events than a
    /// long log holds would otherwise read the whole log in one call, and a hundred of them
    /// sent at once would hold the loop for as many reads; in runs of this size the transport
    /// reads them a few turns of the loop at a time (`LongPolls`).
    static let checkBatch = 4096

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
        var run = RecordJSON.EventRun()
        for e in events { RecordJSON.writeEvent(e, to: &w, in: &run) }
        w.endArray()
        w.member("last_seq", Int(log.lastSeq))
        w.member("evicted", log.evicted)
        w.endObject()
        return .json(200, w)
    }
}
