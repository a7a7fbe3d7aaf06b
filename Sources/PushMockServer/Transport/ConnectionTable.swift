internal import CLibevent
import Glibc
import PushMockCore

/// Every open connection, on every port: one table, one `--max-connections`, one sweep a
/// second that applies `--timeout` (`Connection.checkTime`). At the cap the connection read
/// from longest ago among those not being answered (`Connection.idleSince`: idle, with requests
/// still arriving, or in its handshake for over a second) is closed to make room (HTTP/2 with a GOAWAY),
/// so idle or stalled clients cannot lock working ones out; only when every one is working do
/// the listeners pause until one closes. Out of descriptors, they pause for a moment
/// (`acceptFailed`). The table keeps each connection alive until it closes.
final class ConnectionTable {
    private let base: EventBase
    private let dispatcher: RequestDispatcher
    private let cap: Int
    private let timeoutNanos: UInt64
    private var listeners: [Listener] = []
    /// Loop thread only.
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var sweep: LoopEvent?
    /// Accepting paused for want of descriptors (`acceptFailed`), and its retry timer.
    private var outOfDescriptors = false
    private var warnedOutOfDescriptors = false
    private var acceptRetry: LoopEvent?
    /// Server shutdown: no new connections, and each open one finishes.
    private(set) var draining = false

    /// Where a connection with nothing unread reads (`ReadScratch`).
    let scratch = ReadScratch()
    /// Plain-socket connections whose answers go at the turn's end, and the event that sends
    /// them: made active when the first is added, it runs after every callback already due in
    /// this turn.
    private var due: [Connection] = []
    private var dueEvent: LoopEvent?

    /// Where a warning goes (standard error).
    private let warn: @Sendable (String) -> Void

    init(
        base: EventBase, dispatcher: RequestDispatcher, configuration: Configuration, warn: @escaping @Sendable (String) -> Void
    ) throws(ServerError) {
        self.base = base
        self.warn = warn
        self.dispatcher = dispatcher
        cap = configuration.maxConnections
        timeoutNanos = UInt64(configuration.timeoutSeconds) * 1_000_000_000
        sweep = try LoopEvent(
            base: base, fd: -1, what: Int16(EV_PERSIST), callback: tableSweep,
            argument: Unmanaged.passUnretained(self).toOpaque())
        sweep?.add(seconds: 1)
        dueEvent = try LoopEvent(
            base: base, fd: -1, what: 0, callback: tableTransmitDue, argument: Unmanaged.passUnretained(self).toOpaque())
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
        let now = MonotonicClock.nanos()
        if let idle = connections.values.compactMap({ c in c.idleSince(now: now).map { (c, $0) } }).min(by: { $0.1 < $1.1 })?.0 {
            idle.evict()
        }
        if connections.count >= cap { for l in listeners { l.pause() } }
    }

    func closed(_ connection: Connection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        if !draining, connections.count == cap - 1 || outOfDescriptors { resumeListeners() }
    }

    /// `accept` failed. Out of descriptors or memory, the idlest connections (up to
    /// `drainOnExhaustion`, as the cap's rule picks them) are closed to free descriptors for
    /// the clients waiting in the listen queue, and every listener pauses for a moment (half a
    /// second when none was idle, as nginx does) or until a connection closes. Anything else
    /// (a peer that reset before it was accepted) is passed over.
    func acceptFailed(_ error: Int32) {
        guard [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error), !draining, !outOfDescriptors else { return }
        outOfDescriptors = true
        for l in listeners { l.pause() }
        let now = MonotonicClock.nanos()
        let idle = connections.values.compactMap { c in c.idleSince(now: now).map { (c, $0) } }.sorted { $0.1 < $1.1 }
        for (c, _) in idle.prefix(Self.drainOnExhaustion) { c.evict() }
        if acceptRetry == nil {
            acceptRetry = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: tableAcceptRetry, argument: Unmanaged.passUnretained(self).toOpaque())
        }
        acceptRetry?.add(seconds: idle.isEmpty ? Self.acceptPause : 0.05)
        if !warnedOutOfDescriptors {
            warnedOutOfDescriptors = true
            warn(
                "pushmock: accept failed (\(String(cString: strerror(error)))): idle connections are closed and accepting pauses until descriptors are free; raise `ulimit -n` or lower --max-connections"
            )
        }
    }

    static let drainOnExhaustion = 16
    static let acceptPause = 0.5

    fileprivate func resumeListeners() {
        outOfDescriptors = false
        acceptRetry?.remove()
        guard !draining, connections.count < cap else { return }
        for l in listeners { l.resume() }
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
        due.removeAll()
        dueEvent = nil
    }

    /// Sends `connection`'s output once this turn's ready callbacks have run: every answer
    /// written in a turn leaves together (`Connection.deliver`).
    func transmitLater(_ connection: Connection) {
        guard !connection.isTransmitDue else { return }
        connection.isTransmitDue = true
        if due.isEmpty { dueEvent?.activate() }
        due.append(connection)
    }

    /// Walks the list in place (a copy of it would cost an allocation every turn); a
    /// connection added meanwhile is sent too.
    fileprivate func transmitDue() {
        var i = 0
        while i < due.count {
            let c = due[i]
            c.isTransmitDue = false
            c.transmitDue()
            i += 1
        }
        due.removeAll(keepingCapacity: true)
    }

    fileprivate func sweepNow() {
        let now = MonotonicClock.nanos()
        for c in Array(connections.values) { c.checkTime(now: now) }
    }
}

private func tableAcceptRetry(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionTable>.fromOpaque(arg).takeUnretainedValue().resumeListeners()
}

private func tableTransmitDue(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionTable>.fromOpaque(arg).takeUnretainedValue().transmitDue()
}

private func tableSweep(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<ConnectionTable>.fromOpaque(arg).takeUnretainedValue().sweepNow()
}
