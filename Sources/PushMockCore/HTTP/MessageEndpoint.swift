/// A module's side of a connection that carries whole messages both ways after an HTTP/1.1
/// `101 Switching Protocols` (a WebSocket, RFC 6455): the transport does the handshake and the
/// framing and hands each whole text message up; the module answers through the channel at
/// any time. Loop thread only.
public protocol MessageEndpoint: AnyObject {
    /// The handshake is done; `channel` reaches the peer until `closed`.
    func opened(_ channel: any MessageChannel)
    /// One whole text message.
    func received(_ text: String)
    /// The connection ended (either side closed it, or it was lost).
    func closed()
}

/// The transport's side of a message connection, as a module holds it.
public protocol MessageChannel: AnyObject {
    /// Sends one text message.
    func send(_ text: String)
    /// Closes with a status code (RFC 6455 §7.4) and a short reason.
    func close(code: Int, reason: String)
    /// Bytes written and not yet taken by the peer.
    var pendingBytes: Int { get }
}

/// A module's side of a connection on a listener of its own that carries a binary protocol
/// (MCS): the transport hands up the bytes as they arrive, and the module frames them, answers
/// through the channel at any time, and keeps its own time bounds. Loop thread only.
public protocol StreamEndpoint: AnyObject {
    /// The connection is open (its TLS handshake done); `channel` reaches the peer until `closed`.
    func opened(_ channel: any StreamChannel)
    /// The bytes read so far and not yet taken; returns how many it took (what it leaves is
    /// handed up again with more). It may close the channel.
    func received(_ bytes: UnsafeRawBufferPointer) -> Int
    /// The connection ended (either side closed it, or it was lost).
    func closed()
}

/// The transport's side of a binary connection, as a module holds it.
public protocol StreamChannel: AnyObject {
    func send(_ bytes: [UInt8])
    /// Closes once what was sent is flushed; nothing more is read.
    func close()
    /// Bytes written and not yet taken by the peer.
    var pendingBytes: Int { get }
}
