import Glibc
import PushMockCore

/// What the HTTP sessions use to reach the gateway: it hands over whole requests and framing
/// errors, carries out replies that are not answers at once (long-polls, delays, streams,
/// drops), and holds the limits every connection shares. Loop thread only.
final class RequestDispatcher {
    private let gateway: Gateway
    private let polls: LongPolls
    private let streams: EventStreams
    let maxBodyBytes: Int
    /// `--access-log`: a line per request on standard output.
    private let accessLog: Bool
    /// One head parser and one answer encoder for every HTTP/1.1 connection: they remember the
    /// last request's Strings and the current `Date`, which clients and seconds repeat. Each
    /// call finishes before the next one starts (one thread), so sharing them is safe.
    private var parser = HTTP1HeadParser(maxHeadBytes: 64 * 1024)
    private var encoder = HTTP1Encoder()

    init(gateway: Gateway, polls: LongPolls, streams: EventStreams, maxBodyBytes: Int, accessLog: Bool = false) {
        self.gateway = gateway
        self.polls = polls
        self.streams = streams
        self.maxBodyBytes = maxBodyBytes
        self.accessLog = accessLog
    }

    /// The gateway's reply; its time counts against the connection's turn.
    func handle(_ request: Request, on connection: Connection) -> Reply {
        let reply = gateway.handle(request)
        connection.spend(gateway.lastRequestNanos)
        if accessLog { log(request, status: gateway.lastStatus, nanos: gateway.lastRequestNanos) }
        return reply
    }

    /// `--access-log`'s line: when, what, the answer and how long it took. The query is left
    /// out: it may carry an access token.
    private func log(_ request: Request, status: Int, nanos: UInt64) {
        let ms = Double(nanos / 1000) / 1000
        let line =
            "\(Clock.wallNow().rfc3339) \(request.method) \(request.path) \(status) \(ms)ms"
            + (request.connection?.isHTTP2 == true ? " h2" : " h1") + "\n"
        line.withCString { _ = write(1, $0, strlen($0)) }
    }

    /// The longest request head an HTTP/1.1 connection reads.
    var maxHeadBytes: Int { parser.maxHeadBytes }

    /// Reads an HTTP/1.1 request head from the start of `bytes`.
    func parseHead(_ bytes: UnsafeRawBufferPointer) -> HTTP1HeadParser.Outcome { parser.parse(bytes) }

    /// An HTTP/1.1 answer's bytes, handed to `send` (valid during the call).
    func encode(_ response: Response, to head: HTTP1Head, close: Bool, send: (UnsafeRawBufferPointer) -> Void) {
        encoder.answer(response, to: head, close: close, send: send)
    }

    /// What a new HTTP/2 connection offers (the gateway's policy).
    func http2Policy(_ context: ConnectionContext) -> HTTP2Policy { gateway.http2Policy(context) }

    /// The gateway's answer to a request that could not be read whole.
    func framingError(_ error: FramingError, _ request: Request?) -> Response {
        let response = gateway.framingError(error, request)
        if accessLog { log(request ?? Request(method: "-", target: "-"), status: response.status, nanos: 0) }
        return response
    }

    /// Carries out a reply that is not an answer at once.
    func carry(_ reply: Reply, to responder: any Responder, stream: @autoclosure () -> any StreamResponder) {
        PushMockServer.carry(reply, to: responder, stream: stream(), polls: polls, streams: streams)
    }

    /// After a request answered at once: long-polls may now be satisfied.
    func noteChanges() { polls.noteChanges() }
}
