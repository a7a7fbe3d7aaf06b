/// What a `Connection` carries once it knows its protocol: HTTP/1.1 and HTTP/2 today, and next
/// a WebSocket (handed over after an HTTP/1.1 `101 Switching Protocols`, `Connection.switch`)
/// or a framed binary protocol on a listener of its own (`Listener`'s `SessionChoice`). The
/// connection owns the socket, its buffers, back-pressure, deadlines and fair turns; a session
/// reads whole messages from `connection.input`, hands them up, and writes what comes back
/// down with `connection.write`. It knows nothing of push.
protocol Session: AnyObject {
    /// Takes what the connection's input holds. False when the session is over: the
    /// connection closes once its output is sent (at once when `abandoned`).
    func receive() -> Bool
    /// The peer took all output: a session that held back goes on. False when it is over.
    func outputDrained() -> Bool
    /// No request being answered (one still arriving counts as idle): at the connection cap,
    /// the idle connection read from longest ago is closed to make room.
    var isIdle: Bool { get }
    /// Waiting for its next request's first bytes (HTTP/1.1 between requests): a request that
    /// came in time but was not read yet is not taken for one that never came.
    var awaitsRequest: Bool { get }
    /// The unread input the session lets wait before the connection stops reading.
    var inputLimit: Int { get }
    /// Whole messages read and left for a later turn, to be taken up with the next input.
    var hasDeferredWork: Bool { get }
    /// Dropped on purpose (chaos): the connection ends at once, sending nothing more.
    var abandoned: Bool { get }
    /// Server shutdown, or room needed at the connection cap: the session finishes what it
    /// can and says how the connection goes on.
    func drain(evicting: Bool) -> SessionEnd
    /// The table's sweep each second: the session's own bounds, beyond the connection's.
    /// While the connection is `ending`, only a peer that stopped reading matters.
    func check(now: UInt64, lastRead: UInt64, timeoutNanos: UInt64, ending: Bool) -> SessionEnd
    /// The connection ended: what is still to be answered goes nowhere.
    func connectionClosed()
}

/// How a connection goes on after its session was asked.
enum SessionEnd {
    case goOn
    /// Close once what is queued is sent (at once when the session was abandoned).
    case closeWhenFlushed
    /// Close now, with nothing more sent than what is already queued (an answer written in this
    /// turn of the loop, which goes at its end).
    case finish
    /// The peer stopped reading: reset, keeping nothing for it.
    case cutOff
}

extension Session {
    var awaitsRequest: Bool { false }
    var hasDeferredWork: Bool { false }
    var abandoned: Bool { false }
    func check(now: UInt64, lastRead: UInt64, timeoutNanos: UInt64, ending: Bool) -> SessionEnd { .goOn }
    func connectionClosed() {}
}

/// How a listener's connections choose their session: HTTP (ALPN, or the HTTP/2 preface on the
/// first bytes, else HTTP/1.1), or one protocol of the listener's own.
enum SessionChoice {
    case http
    case own((Connection) throws(ServerError) -> any Session)
}
