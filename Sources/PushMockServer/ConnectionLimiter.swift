internal import CLibevent
import PushMockCore

/// Bounds evhttp's connections in number and in time.
///
/// Number: `--max-connections`. libevent 2.1 has no connection cap, so this counts
/// connections itself: evhttp asks us for each new connection's bufferevent
/// (`evhttp_set_bevcb`); right after evhttp has wrapped it (same loop pass, before any I/O on
/// it) we find the connection through the bufferevent's callback argument and register a
/// close callback. At the cap the listener is disabled; a close re-enables it.
///
/// Time: evhttp's timeout only bounds silence, so a client that trickles a byte a second
/// (slowloris) would hold its connection forever. Each connection therefore gets `--timeout`
/// seconds to deliver a whole request, counted from its opening or from the moment its
/// previous answer was sent (as Go's `ReadTimeout`); a request waiting for its answer (a
/// long-poll, a stream) has no deadline. A sweep each second closes the late ones.
final class ConnectionLimiter {
    let cap: Int
    private let timeoutNanos: UInt64
    /// Loop thread only.
    private(set) var open = 0
    private var pending: [OpaquePointer] = []
    private var listener: OpaquePointer?
    private var attach: LoopEvent?
    private var sweep: LoopEvent?
    /// Every open connection, with when its next request must have arrived whole; 0 while
    /// a request waits for its answer.
    private var deadlines: [OpaquePointer: UInt64] = [:]

    /// `cap` nil: no cap (the TLS listener caps the bridged connections itself).
    init(cap: Int?, timeoutSeconds: Int) {
        self.cap = cap ?? Int.max
        timeoutNanos = UInt64(timeoutSeconds) * 1_000_000_000
    }

    /// Installs the callbacks on `http` once it listens. Unretained: the server owns this
    /// limiter for longer than `http` lives.
    func install(on http: OpaquePointer, base: EventBase, listener: OpaquePointer?) throws(ServerError) {
        self.listener = listener
        let me = Unmanaged.passUnretained(self).toOpaque()
        attach = try LoopEvent(base: base, fd: -1, what: 0, callback: limiterAttach, argument: me)
        sweep = try LoopEvent(base: base, fd: -1, what: Int16(EV_PERSIST), callback: limiterSweep, argument: me)
        sweep?.add(seconds: 1)
        evhttp_set_bevcb(http, limiterNewBufferevent, me)
    }

    /// A whole request arrived on its connection: no deadline until its answer is sent.
    func requestArrived(_ req: OpaquePointer) {
        guard let evcon = evhttp_request_get_connection(req), deadlines[evcon] != nil else { return }
        deadlines[evcon] = 0
        evhttp_request_set_on_complete_cb(req, limiterAnswered, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func answered(_ req: OpaquePointer) {
        guard let evcon = evhttp_request_get_connection(req), deadlines[evcon] != nil else { return }
        deadlines[evcon] = Metrics.monotonicNanos() + timeoutNanos
    }

    fileprivate func newBufferevent(_ base: OpaquePointer) -> OpaquePointer? {
        guard let bev = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        // Our reference keeps the bufferevent alive until `attachPending` even if evhttp
        // gives up on the connection first.
        bufferevent_incref(bev)
        pending.append(bev)
        attach?.activate()
        return bev
    }

    fileprivate func attachPending() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let deadline = Metrics.monotonicNanos() + timeoutNanos
        for bev in pending {
            var argument: UnsafeMutableRawPointer?
            var read: bufferevent_data_cb?
            bufferevent_getcb(bev, &read, nil, nil, &argument)
            if read != nil, let evcon = argument {
                evhttp_connection_set_closecb(OpaquePointer(evcon), limiterClosed, me)
                deadlines[OpaquePointer(evcon)] = deadline
                open += 1
            }
            bufferevent_decref(bev)
        }
        pending.removeAll(keepingCapacity: true)
        if open >= cap, let listener { evconnlistener_disable(listener) }
    }

    fileprivate func closed(_ evcon: OpaquePointer) {
        guard deadlines.removeValue(forKey: evcon) != nil else { return }
        open -= 1
        if open < cap, let listener { evconnlistener_enable(listener) }
    }

    /// Closes the connections whose request is late (from a timer, outside evhttp's callbacks).
    fileprivate func closeLate() {
        let now = Metrics.monotonicNanos()
        let late = deadlines.compactMap { $0.value != 0 && $0.value < now ? $0.key : nil }
        for evcon in late { evhttp_connection_free(evcon) }
    }
}

private func limiter(_ arg: UnsafeMutableRawPointer?) -> ConnectionLimiter? {
    arg.map { Unmanaged<ConnectionLimiter>.fromOpaque($0).takeUnretainedValue() }
}

private func limiterNewBufferevent(_ base: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let base else { return nil }
    return limiter(arg)?.newBufferevent(base)
}

private func limiterAttach(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) { limiter(arg)?.attachPending() }
private func limiterSweep(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) { limiter(arg)?.closeLate() }

private func limiterClosed(_ evcon: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let evcon else { return }
    limiter(arg)?.closed(evcon)
}

private func limiterAnswered(_ req: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let req else { return }
    limiter(arg)?.answered(req)
}
