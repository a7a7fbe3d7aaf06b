/// A streamed answer over the log: Server-Sent Events as they are logged
/// (`events:stream`), or the log as NDJSON up to the moment of the request (`events:export`).
/// The transport asks `EventReaders.streamNext` for the next bytes on a timer and while the
/// client keeps up; this value remembers how far the client got.
public struct EventStream {
    /// `jsonList`: the answer of `GET .../events`, `{"events":[…],"last_seq":…,"evicted":…}`,
    /// made as the client reads it (a long list is not rendered ahead).
    public enum Format: Sendable { case sse, ndjson, jsonList }

    public let format: Format
    /// Filters; `query.since` is the cursor: the last seq sent.
    public internal(set) var query: EventQuery
    /// SSE follows the log; an export stops at `until`.
    public let live: Bool
    public let until: Int64
    public let heartbeatSeconds: Double
    public internal(set) var started = false
    /// A `jsonList`'s events still to send (its `limit`), and whether one was sent.
    var remaining = Int.max
    var listed = false

    /// Moves the cursor, when another client at the same place was sent this step's bytes.
    public mutating func skip(to cursor: Int64) { query.since = cursor }

    /// At most this many events per client per step: under load the stream thins out and
    /// says so with an `event: gap` naming the skipped seqs (read them from `GET .../events`).
    public static let maxPerStep = 1000

    public var head: Response {
        if format == .jsonList { return Response(status: 200, headers: Response.jsonHeaders) }
        let type = format == .sse ? "text/event-stream; charset=utf-8" : "application/x-ndjson"
        return Response(
            status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")])
    }
}

extension EventReaders {
    /// The next bytes for a stream (empty when there is nothing new), and whether an export
    /// is complete.
    public func streamNext(_ s: inout EventStream, maxEvents: Int = EventStream.maxPerStep) -> (bytes: [UInt8], finished: Bool) {
        let starting = !s.started
        s.started = true
        let end = s.live ? log.lastSeq : s.until
        var events: [Event] = []
        var skippedFrom: Int64?
        if s.live {
            // The newest matching events, read back from the end: a backlog larger than one
            // step is skipped without being read.
            var reachedCursor = false
            log.visitNewestFirst { e in
                if e.seq <= s.query.since {
                    reachedCursor = true
                    return false
                }
                if s.query.matches(e) { events.append(e) }
                return events.count < maxEvents
            }
            events.reverse()
            let oldestRead = events.first?.seq ?? end + 1
            if !reachedCursor, oldestRead > s.query.since + 1 { skippedFrom = s.query.since + 1 }
        } else {
            let first = log.lastSeq - Int64(log.count) + 1
            if s.format != .jsonList, s.query.since + 1 < first { skippedFrom = s.query.since + 1 }
            let most = min(maxEvents, s.remaining)
            var reachedEnd = true
            log.visit(after: s.query.since) { e in
                guard e.seq <= end else { return false }
                if s.query.matches(e) { events.append(e) }
                if events.count >= most {
                    reachedEnd = false
                    return false
                }
                return true
            }
            s.remaining -= events.count
            // Read through `end` (or the list is long enough): nothing more to send.
            if reachedEnd || s.remaining == 0 {
                s.query.since = end
                s.remaining = 0
            }
        }
        // Top-level writes: the writer adds no commas between them. About a kilobyte an
        // event with its payload, so a step's bytes are rarely moved to grow.
        var w = JSONWriter(capacity: 256 + events.count * 1024)
        if starting, s.format == .sse {
            w.raw("retry: 1000\n\n")
        }
        if starting, s.format == .jsonList {
            w.raw("{\"events\":[")
        }
        if let from = skippedFrom {
            let to = (events.first?.seq ?? end + 1) - 1
            w.raw("event: gap\nid: \(to)\ndata: {\"from\":\(from),\"to\":\(to)}\n\n")
        }
        var run = RecordJSON.EventRun()
        for e in events {
            switch s.format {
            case .sse:
                w.raw("id: ")
                w.int64(e.seq)
                w.raw("\ndata: ")
                RecordJSON.writeEvent(e, to: &w, in: &run)
                w.raw("\n\n")
            case .ndjson:
                RecordJSON.writeEvent(e, to: &w, in: &run)
                w.raw("\n")
            case .jsonList:
                if s.listed { w.raw(",") }
                s.listed = true
                RecordJSON.writeEvent(e, to: &w, in: &run)
            }
        }
        if let last = events.last, s.remaining > 0 {
            s.query.since = last.seq
        } else if s.live || skippedFrom != nil {
            s.query.since = max(s.query.since, end)
        }
        let finished = !s.live && s.query.since >= s.until
        if finished, s.format == .jsonList {
            w.raw("],\"last_seq\":\(log.lastSeq),\"evicted\":\(log.evicted)}")
        }
        return (w.bytes, finished)
    }
}
