internal import CLibevent
import PushMockCore

/// Something that can answer one request later: an evhttp request or an HTTP/2 stream.
protocol Responder: AnyObject {
    func respond(_ response: Response)
}

/// Requests parked on `GET .../events?wait=`: answered as soon as the log has enough
/// matching events, or when their wait runs out, or at shutdown.
final class LongPolls {
    fileprivate final class Parked {
        unowned let owner: LongPolls
        let request: any Responder
        var wait: EventWait
        /// The deadline timer; freed when the request is answered.
        var timer: LoopEvent?

        init(owner: LongPolls, request: any Responder, wait: EventWait) {
            self.owner = owner
            self.request = request
            self.wait = wait
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
        let p = Parked(owner: self, request: request, wait: wait)
        // The timer's argument is the Parked object, kept alive by `parked` until answered.
        guard let timer = try? LoopEvent(base: base, fd: -1, what: 0, callback: longPollExpired,
                                         argument: Unmanaged.passUnretained(p).toOpaque()) else {
            request.respond(gateway.finish(wait))
            return
        }
        p.timer = timer
        parked[ObjectIdentifier(p)] = p
        timer.add(seconds: wait.seconds)
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
        for p in parked.values where gateway.isReady(&p.wait) { answer(p) }
    }

    /// Answers everything now (shutdown).
    func answerAll() {
        for p in parked.values { answer(p) }
    }

    fileprivate func answer(_ p: Parked) {
        guard parked.removeValue(forKey: ObjectIdentifier(p)) != nil else { return }
        p.timer?.remove()
        p.request.respond(gateway.finish(p.wait))
        p.timer = nil
    }
}

private func longPollExpired(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let parked = Unmanaged<LongPolls.Parked>.fromOpaque(arg).takeUnretainedValue()
    parked.owner.answer(parked)
}
