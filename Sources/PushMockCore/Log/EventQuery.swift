/// A filter over the log, from
/// `GET .../events?message_id=&device=&token=&topic=&event=&reason=&api=&since=&limit=&order=`.
public struct EventQuery: Hashable {
    public var projectID: String
    public var messageID: String?
    public var deviceID: String?
    public var token: String?
    public var topic: String?
    public var kind: EventKind?
    public var reason: String?
    /// The API of the send the event is about (`legacy`, `v1`, `apns`, `webpush`).
    public var api: String?
    /// The newest `limit` events, newest first (`order=newest`), as a log view reads them.
    public var newestFirst = false
    /// Only events with a larger `seq`.
    public var since: Int64 = 0
    public var limit: Int = 1000

    public static let maxLimit = 100_000
    /// The event seqs a query may name: 2^53 - 1, the largest a JavaScript number holds exactly,
    /// so `since + 1` never overflows (a log cannot reach it).
    public static let seqs: ClosedRange<Int64> = 0...9_007_199_254_740_991

    public init(projectID: String) { self.projectID = projectID }

    public func matches(_ e: Event) -> Bool {
        guard e.projectID == projectID else { return false }
        if let kind, e.kind != kind { return false }
        if let messageID, e.messageID != messageID { return false }
        if let deviceID, e.device?.id != deviceID { return false }
        if let token, !e.concerns(token: token) { return false }
        if let topic, e.message?.topic != topic { return false }
        if let reason, e.reason != reason { return false }
        if let api, e.message?.api != api { return false }
        return true
    }

    /// Matching events oldest first, at most `limit`; with `newestFirst`, the newest `limit`
    /// of them, newest first.
    public func run(on log: EventLog) -> [Event] {
        var out: [Event] = []
        if newestFirst {
            log.visitNewestFirst { e in
                guard e.seq > since else { return false }
                if matches(e) { out.append(e) }
                return out.count < limit
            }
            return out
        }
        log.visit(after: since) { e in
            if matches(e) { out.append(e) }
            return out.count < limit
        }
        return out
    }

    /// How many events match, counting no further than `atMost`.
    public func count(on log: EventLog, atMost: Int) -> Int {
        count(on: log, atMost: atMost, reading: .max).matched
    }

    /// How many of the next `reading` events after `since` match, counting no further than
    /// `atMost`, and the seq of the last event read (the log's last when it read to the end).
    func count(on log: EventLog, atMost: Int, reading: Int) -> (matched: Int, through: Int64) {
        var n = 0
        var read = 0
        var through = log.lastSeq
        log.visit(after: since) { e in
            if matches(e) { n += 1 }
            read += 1
            guard n < atMost, read < reading else {
                through = e.seq
                return false
            }
            return true
        }
        return (n, through)
    }
}
