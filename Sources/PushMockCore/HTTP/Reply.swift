/// What a handler asks the transport to do: answer now, hold the request until the event
/// log has enough matching events or the wait runs out (long-poll), stream events, answer a
/// long list in parts as the client reads them, or (chaos) answer later or not at all.
///
/// The rare replies are `indirect` (their payload kept in a box of its own): a wait or a
/// stream holds a query of some 180 bytes, an enum is as large as its largest case, and every
/// answer is passed by value from the handler through the gateway to the transport. Boxed,
/// they leave an answer small to pass on (docs/PERFORMANCE.md).
public enum Reply {
    case response(Response)
    indirect case waitForEvents(EventWait)
    indirect case stream(EventStream)
    indirect case paged(PagedAnswer)
    /// Work too long for one turn of the loop (a large batch): the transport runs `step`
    /// a few milliseconds a turn, other connections served between, until it answers.
    case sliced(SlicedWork)
    /// Injected latency: answer after `seconds`, from a loop timer.
    indirect case delayed(Response, seconds: Double)
    /// An injected dropped connection: no answer; the connection ends as `DropMode` says.
    case drop(DropMode)
    /// A WebSocket opening handshake the route takes: the transport checks the handshake,
    /// answers `101 Switching Protocols` (or the RFC 6455 refusal), and carries the
    /// connection's messages to and from `endpoint` from then on.
    case webSocket(any MessageEndpoint)
}

/// A parked long-poll: the transport re-asks `gateway.readers.isReady(&wait)` after each change
/// (and in the next turn while `isCaughtUp` says it has not read the whole log), and answers
/// with `gateway.readers.finish(_:)` when it says ready or when `seconds` pass.
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

/// Work done in steps: each call of `step` does a bounded part (about a millisecond) and
/// says whether more is to do, whether it waits for something another thread does (a commit
/// with `--sync always`), or the answer.
public struct SlicedWork {
    public enum Step {
        case more
        case waiting
        case done(Response)
    }

    public let step: () -> Step
    /// Whether the state rows changed while it runs wait for its answer before they are
    /// saved (a batch registration: its devices are known to no client until then, and
    /// saving them as they come takes the core from it).
    public let savesWhenDone: Bool

    public init(savesWhenDone: Bool = false, step: @escaping () -> Step) {
        self.savesWhenDone = savesWhenDone
        self.step = step
    }

    /// Every step at once (tests, shutdown); a wait is waited out by asking again.
    public func finish() -> Response {
        while true { if case .done(let r) = step() { return r } }
    }
}

/// A long answer made in parts as the client reads them, never rendered ahead: the
/// transport calls `next` while the client keeps up, until it says the part was the last.
public struct PagedAnswer {
    public let head: Response
    public let next: () -> (bytes: [UInt8], finished: Bool)

    public init(head: Response, next: @escaping () -> (bytes: [UInt8], finished: Bool)) {
        self.head = head
        self.next = next
    }

    /// All parts at once, as one response (for an answer short enough to render whole).
    public func whole() -> Response {
        var r = head
        while true {
            let (bytes, finished) = next()
            r.body += bytes
            if finished { return r }
        }
    }
}
