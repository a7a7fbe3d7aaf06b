internal import CLibevent
import PushMockCore

/// Something that can answer one request later: an HTTP/1.1 exchange or an HTTP/2 stream.
protocol Responder: AnyObject {
    func respond(_ response: Response)
    /// Ends the connection with no answer (chaos): at once, or over HTTP/2 after a GOAWAY
    /// that tells the client this request was not processed.
    func drop(_ mode: DropMode)
}

/// Carries out the gateway's reply to one request; `stream` is its answer as an event stream.
func carry(
    _ reply: Reply, to responder: any Responder, stream: @autoclosure () -> any StreamResponder,
    polls: LongPolls, streams: EventStreams
) {
    switch reply {
    case .response(let response): responder.respond(response)
    case .waitForEvents(let wait): polls.park(responder, wait)
    case .stream(let events): streams.open(stream(), events)
    case .delayed(let response, let seconds): polls.answer(responder, response, after: seconds)
    case .drop(let mode): responder.drop(mode)
    }
    polls.noteChanges()
}

/// Requests answered later: long-polls on `GET .../events?wait=`, answered as soon as the
/// log has enough matching events, or when their wait runs out; and answers chaos delays,
/// sent when their timer fires. All are answered at once at shutdown.
final class LongPolls {
    fileprivate enum Pending {
        case events(EventWait)
        case fixed(Response)
    }

    fileprivate final class Parked {
        unowned let owner: LongPolls
        let request: any Responder
        var pending: Pending
        /// The deadline timer; freed when the request is answered.
        var timer: LoopEvent?

        init(owner: LongPolls, request: any Responder, pending: Pending) {
            self.owner = owner
            self.request = request
            self.pending = pending
        }
    }

    private let base: EventBase
    private let gateway: Gateway
    /// Loop thread only.
    private var parked: [ObjectIdentifier: Parked] = [:]
    private var lastSeenSeq: Int64 = 0

    init(base: EventBase, gateway: Gateway) {
        self.base = base
        self.gateway = gateway
    }

    var count: Int { parked.count }

    func park(_ request: any Responder, _ wait: EventWait) {
        hold(Parked(owner: self, request: request, pending: .events(wait)), seconds: wait.seconds)
    }

    /// Sends `response` after `seconds` (chaos latency).
    func answer(_ request: any Responder, _ response: Response, after seconds: Double) {
        hold(Parked(owner: self, request: request, pending: .fixed(response)), seconds: seconds)
    }

    private func hold(_ p: Parked, seconds: Double) {
        // The timer's argument is the Parked object, kept alive by `parked` until answered.
        guard
            let timer = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: longPollExpired,
                argument: Unmanaged.passUnretained(p).toOpaque())
        else {
            p.request.respond(response(for: p))
            return
        }
        p.timer = timer
        parked[ObjectIdentifier(p)] = p
        timer.add(seconds: seconds)
    }

    private func response(for p: Parked) -> Response {
        switch p.pending {
        case .events(let wait): gateway.readers.finish(wait)
        case .fixed(let response): response
        }
    }

    /// Re-checks parked long-polls when the log has grown.
    func noteChanges() {
        if gateway.log.lastSeq != lastSeenSeq {
            lastSeenSeq = gateway.log.lastSeq
            recheck()
        }
    }

    /// Answers every parked request whose condition now holds.
    func recheck() {
        for p in parked.values {
            guard case .events(var wait) = p.pending else { continue }
            let ready = gateway.readers.isReady(&wait)
            p.pending = .events(wait)
            if ready { answer(p) }
        }
    }

    /// Answers everything now (shutdown).
    func answerAll() {
        for p in parked.values { answer(p) }
    }

    fileprivate func answer(_ p: Parked) {
        guard parked.removeValue(forKey: ObjectIdentifier(p)) != nil else { return }
        p.timer?.remove()
        p.request.respond(response(for: p))
        p.timer = nil
    }
}

private func longPollExpired(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let parked = Unmanaged<LongPolls.Parked>.fromOpaque(arg).takeUnretainedValue()
    parked.owner.answer(parked)
}
