internal import CLibevent

/// Enforces `--max-connections` on the evhttp listener. libevent 2.1 has no connection cap,
/// so this counts connections itself: evhttp asks us for each new connection's bufferevent
/// (`evhttp_set_bevcb`); right after evhttp has wrapped it (same loop pass, before any I/O
/// on it) we find the connection through the bufferevent's callback argument and register a
/// close callback. At the cap the listener is disabled; a close re-enables it.
final class ConnectionLimiter {
    let cap: Int
    /// Loop thread only.
    private(set) var open = 0
    private var pending: [OpaquePointer] = []
    private var listener: OpaquePointer?
    private var attach: LoopEvent?

    init(cap: Int) { self.cap = cap }

    /// Installs the callbacks on `http` once the listener exists. Unretained: the server
    /// owns this limiter for longer than `http` lives.
    func install(on http: OpaquePointer, base: EventBase, listener: OpaquePointer) throws(ServerError) {
        self.listener = listener
        let me = Unmanaged.passUnretained(self).toOpaque()
        attach = try LoopEvent(base: base, fd: -1, what: 0, callback: limiterAttach, argument: me)
        evhttp_set_bevcb(http, limiterNewBufferevent, me)
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
        for bev in pending {
            var argument: UnsafeMutableRawPointer?
            var read: bufferevent_data_cb?
            bufferevent_getcb(bev, &read, nil, nil, &argument)
            if read != nil, let evcon = argument {
                evhttp_connection_set_closecb(OpaquePointer(evcon), limiterClosed, me)
                open += 1
            }
            bufferevent_decref(bev)
        }
        pending.removeAll(keepingCapacity: true)
        if open >= cap, let listener { evconnlistener_disable(listener) }
    }

    fileprivate func closed() {
        open -= 1
        if open < cap, let listener { evconnlistener_enable(listener) }
    }
}

private func limiterNewBufferevent(_ base: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let base, let arg else { return nil }
    return Unmanaged<ConnectionLimiter>.fromOpaque(arg).takeUnretainedValue().newBufferevent(base)
}

private func limiterAttach(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionLimiter>.fromOpaque(arg).takeUnretainedValue().attachPending()
}

private func limiterClosed(_ evcon: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard evcon != nil, let arg else { return }
    Unmanaged<ConnectionLimiter>.fromOpaque(arg).takeUnretainedValue().closed()
}
