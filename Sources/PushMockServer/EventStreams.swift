internal import CLibevent
import PushMockCore

/// One client of a streamed answer: an HTTP/1.1 request answered in chunks, or an HTTP/2
/// stream with a deferred body.
protocol StreamResponder: AnyObject {
    func begin(_ head: Response)
    func send(_ bytes: [UInt8])
    func end()
    /// The client went away.
    var isGone: Bool { get }
    /// Bytes of this answer written but not yet taken by the client.
    var pendingBytes: Int { get }
    /// Bytes of every answer on its connection not yet taken (on HTTP/2, all its streams').
    var connectionPendingBytes: Int { get }
    /// Drops the client (too slow to keep up).
    func cutOff()
}

/// Open event streams (SSE and NDJSON exports) and answers made in parts (long lists), fed
/// on a timer so bursts of events reach a client a few times a second, not once per event. A
/// live client whose unread output passes `maxPending` is cut off; an export or a long list is
/// written only while its connection keeps up (and the front door's `--timeout` drops one that
/// stops reading). Nothing here ever waits for a client.
final class EventStreams {
    static let tickSeconds = 0.1
    static let maxPending = 4 << 20
    /// Events per export step: about 300 KB.
    static let exportStep = 500
    /// An export keeps writing while less than this is unread.
    static let exportLowWater = 256 * 1024

    /// What a client is sent: events (live, or an export or long list), or a paged answer.
    private enum Feed {
        case events(EventStream)
        case pages(PagedAnswer)
    }

    private final class Client {
        let responder: any StreamResponder
        var feed: Feed
        var lastWrite: UInt64

        init(_ responder: any StreamResponder, _ feed: Feed) {
            self.responder = responder
            self.feed = feed
            lastWrite = MonotonicClock.nanos()
        }

        /// A live stream follows the log; anything else ends, and is written only while its
        /// client keeps up.
        var live: Bool {
            if case .events(let s) = feed { s.live } else { false }
        }
    }

    private let gateway: Gateway
    /// Loop thread only.
    private var clients: [ObjectIdentifier: Client] = [:]
    private var timer: LoopEvent?
    /// Within one step, what a live stream at a given filter and cursor is sent, so clients
    /// following the log alike (dashboards) share one formatting of each event.
    private var step: [EventQuery: (bytes: [UInt8], cursor: Int64)] = [:]

    init(base: EventBase, gateway: Gateway) throws(ServerError) {
        self.gateway = gateway
        timer = try LoopEvent(
            base: base, fd: -1, what: Int16(EV_PERSIST), callback: streamsTick,
            argument: Unmanaged.passUnretained(self).toOpaque())
        timer?.add(seconds: Self.tickSeconds)
    }

    func open(_ responder: any StreamResponder, _ stream: EventStream) { open(responder, stream.head, .events(stream)) }

    func open(_ responder: any StreamResponder, _ answer: PagedAnswer) { open(responder, answer.head, .pages(answer)) }

    private func open(_ responder: any StreamResponder, _ head: Response, _ feed: Feed) {
        responder.begin(head)
        let client = Client(responder, feed)
        clients[ObjectIdentifier(client)] = client
        pump(client)
        gateway.readers.streamClients = clients.count
    }

    fileprivate func tick() {
        guard !clients.isEmpty else { return }
        for client in Array(clients.values) { pump(client) }
        step.removeAll(keepingCapacity: true)
        gateway.readers.streamClients = clients.count
    }

    private func pump(_ c: Client) {
        if c.responder.isGone { return remove(c, end: true) }
        let live = c.live
        if live, c.responder.pendingBytes > Self.maxPending {
            c.responder.cutOff()
            return remove(c, end: false)
        }
        // An export or a long answer is written only while its connection keeps up: on HTTP/2
        // a hundred of them on one connection then hold one part, not one each.
        if !live, c.responder.connectionPendingBytes >= Self.exportLowWater { return }
        var rounds = 0
        repeat {
            let (bytes, finished) = next(c)
            if !bytes.isEmpty {
                c.responder.send(bytes)
                c.lastWrite = MonotonicClock.nanos()
            }
            if finished { return remove(c, end: true) }
            if bytes.isEmpty { break }
            rounds += 1
        } while !live && rounds < 16 && c.responder.connectionPendingBytes < Self.exportLowWater
        if case .events(let s) = c.feed, live, MonotonicClock.nanos() - c.lastWrite > UInt64(s.heartbeatSeconds * 1e9) {
            c.responder.send(Array(": heartbeat\n\n".utf8))
            c.lastWrite = MonotonicClock.nanos()
        }
    }

    /// The next bytes for a client.
    private func next(_ c: Client) -> (bytes: [UInt8], finished: Bool) {
        switch c.feed {
        case .pages(let answer): return answer.next()
        case .events(var stream):
            let part = next(&stream)
            c.feed = .events(stream)
            return part
        }
    }

    /// The next bytes of a stream; live streams that already started share them per step.
    private func next(_ stream: inout EventStream) -> (bytes: [UInt8], finished: Bool) {
        guard stream.live else { return gateway.readers.streamNext(&stream, maxEvents: Self.exportStep) }
        guard stream.started else { return gateway.readers.streamNext(&stream) }
        let key = stream.query
        if let shared = step[key] {
            stream.skip(to: shared.cursor)
            return (shared.bytes, false)
        }
        let (bytes, finished) = gateway.readers.streamNext(&stream)
        step[key] = (bytes, stream.query.since)
        return (bytes, finished)
    }

    private func remove(_ c: Client, end: Bool) {
        clients[ObjectIdentifier(c)] = nil
        if end { c.responder.end() }
    }

    /// Shutdown: every stream ends (an export where it got to).
    func endAll() {
        for c in Array(clients.values) { remove(c, end: true) }
        gateway.readers.streamClients = 0
    }
}

private func streamsTick(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<EventStreams>.fromOpaque(arg).takeUnretainedValue().tick()
}
