/// One HTTP response as an adapter produced it; the transport writes it as is.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Shared, so answering does not allocate a header list.
    static let jsonHeaders: [(name: String, value: String)] = [("Content-Type", "application/json; charset=UTF-8")]

    public static func json(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: jsonHeaders, body: Array(text.utf8))
    }

    public static func json(_ status: Int, _ writer: JSONWriter) -> Response {
        Response(status: status, headers: jsonHeaders, body: writer.bytes)
    }

    public static func text(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "text/plain; charset=UTF-8")], body: Array(text.utf8))
    }

    public static func html(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Array(text.utf8))
    }

    /// Google's error shape (`google.rpc.Status`), used by the control API and the Google
    /// APIs: `{"error": {"code", "message", "status", "details"}}`; `details` holds encoded
    /// detail objects and is left out when empty.
    public static func googleError(_ code: Int, _ status: String, _ message: String, details: [String] = []) -> Response {
        var w = JSONWriter()
        w.beginObject()
        w.key("error")
        w.beginObject()
        w.member("code", code)
        w.member("message", message)
        w.member("status", status)
        if !details.isEmpty {
            w.key("details")
            w.beginArray()
            for d in details { w.raw(d) }
            w.endArray()
        }
        w.endObject()
        w.endObject()
        return json(code, w)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

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
