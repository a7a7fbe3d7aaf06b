internal import CLibevent
import Glibc
import PushMockCore

/// Every open connection, on every port: one table, one `--max-connections`, one sweep a
/// second that applies `--timeout` (`Connection.checkTime`). At the cap the connection idle
/// longest is closed to make room (HTTP/2 with a GOAWAY), so idle clients cannot lock new
/// ones out; only when none is idle do the listeners pause until one closes. The table keeps
/// each connection alive until it closes.
final class ConnectionTable {
    private let base: EventBase
    private let dispatcher: RequestDispatcher
    private let cap: Int
    private let timeoutNanos: UInt64
    private var listeners: [Listener] = []
    /// Loop thread only.
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var sweep: LoopEvent?
    /// Server shutdown: no new connections, and each open one finishes.
    private(set) var draining = false

    init(base: EventBase, dispatcher: RequestDispatcher, configuration: Configuration) throws(ServerError) {
        self.base = base
        self.dispatcher = dispatcher
        cap = configuration.maxConnections
        timeoutNanos = UInt64(configuration.timeoutSeconds) * 1_000_000_000
        sweep = try LoopEvent(
            base: base, fd: -1, what: Int16(EV_PERSIST), callback: tableSweep,
            argument: Unmanaged.passUnretained(self).toOpaque())
        sweep?.add(seconds: 1)
    }

    deinit { close() }

    var openConnections: Int { connections.count }

    /// A listener for `host:port`, plain or TLS; returns the port bound.
    func listen(host: String, port: Int, tls: TLSContext?, choice: SessionChoice = .http) throws(ServerError) -> Int {
        let listener = Listener(base: base, table: self, tls: tls, choice: choice)
        let bound = try listener.bind(host: host, port: port)
        listeners.append(listener)
        return bound
    }

    func accept(_ fd: Int32, on listener: Listener) {
        let channel: ByteChannel
        if let tls = listener.tls {
            guard let c = try? ByteChannel(fd: fd, context: tls) else {
                Glibc.close(fd)
                return
            }
            channel = c
        } else {
            channel = ByteChannel(fd: fd)
        }
        guard
            let connection = try? Connection(
                table: self, base: base, channel: channel, dispatcher: dispatcher, timeoutNanos: timeoutNanos,
                choice: listener.choice)
        else { return }
        connections[ObjectIdentifier(connection)] = connection
        guard connections.count >= cap else { return }
        if let idle = connections.values.compactMap({ c in c.idleSince.map { (c, $0) } }).min(by: { $0.1 < $1.1 })?.0 {
            idle.evict()
        }
        if connections.count >= cap { for l in listeners { l.pause() } }
    }

    func closed(_ connection: Connection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        if !draining, connections.count == cap - 1 { for l in listeners { l.resume() } }
    }

    /// Shutdown: no new connections; each open one drains (`Connection.drain`).
    func stopAccepting() {
        draining = true
        for l in listeners { l.close() }
        for c in Array(connections.values) { c.drain() }
    }

    /// Frees the listeners and every connection, without answering them.
    func close() {
        for l in listeners { l.close() }
        listeners.removeAll()
        for c in Array(connections.values) { c.finish() }
        connections.removeAll()
        sweep = nil
    }

    fileprivate func sweepNow() {
        let now = MonotonicClock.nanos()
        for c in Array(connections.values) { c.checkTime(now: now) }
    }
}

private func tableSweep(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionTable>.fromOpaque(arg).takeUnretainedValue().sweepNow()
}
