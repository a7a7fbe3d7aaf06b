/// What a handler asks the transport to do: answer now, hold the request until the event
/// log has enough matching events or the wait runs out (long-poll), stream events, or (chaos)
/// answer later or not at all.
public enum Reply {
    case response(Response)
    case waitForEvents(EventWait)
    case stream(EventStream)
    /// Injected latency: answer after `seconds`, from a loop timer.
    case delayed(Response, seconds: Double)
    /// An injected dropped connection: no answer; the connection ends as `DropMode` says.
    case drop(DropMode)
}

/// A parked long-poll: the transport re-asks `gateway.readers.isReady(&wait)` after each change
/// and answers with `gateway.readers.finish(_:)` when it says ready or when `seconds` pass.
public struct EventWait {
    public let query: EventQuery
    public let minimum: Int
    public let seconds: Double
    public let countOnly: Bool
    /// Progress so far, so each re-check reads only events logged since the last one.
    var checkedThrough: Int64 = 0
    var matched = 0

    init(query: EventQuery, minimum: Int, seconds: Double, countOnly: Bool) {
        self.query = query
        self.minimum = minimum
        self.seconds = seconds
        self.countOnly = countOnly
        checkedThrough = query.since
    }
}
