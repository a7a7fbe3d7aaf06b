internal import CLibevent
import PushMockCore

/// A connection carrying a binary protocol of a module's own, on a listener of its own (MCS on
/// `--mcs-port`): the bytes read are handed up to the module's `StreamEndpoint`, which takes
/// whole packets and leaves the rest for later; what it sends is written as it comes. It knows
/// nothing of push. Bounds: the module may leave at most `maxUnread` bytes untaken (a packet
/// larger is refused by the module, which closes); while more than
/// `Connection.maxPendingOutput` waits to be sent, nothing more is read. Silence is the
/// module's to judge (its heartbeats); the connection's sweep only ends a peer that stops
/// reading what it is sent.
final class StreamSession: Session, StreamChannel {
    /// The most bytes handed up at once, and left untaken.
    static let maxUnread = 256 * 1024

    private let connection: Connection
    private let endpoint: any StreamEndpoint
    private var closing = false
    private var ended = false

    init(connection: Connection, endpoint: any StreamEndpoint) {
        self.connection = connection
        self.endpoint = endpoint
        endpoint.opened(self)
    }

    var inputLimit: Int { Self.maxUnread }
    var isIdle: Bool { !ended && connection.pendingOutput == 0 }

    func receive() -> Bool {
        guard !ended, !closing else { return false }
        let input = connection.input
        while !closing, connection.pendingOutput < Connection.maxPendingOutput {
            let available = min(evbuffer_get_length(input), Self.maxUnread)
            guard available > 0 else { break }
            let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, available), count: available)
            let taken = endpoint.received(bytes)
            guard taken > 0 else {
                // A module that takes nothing from a full window is waiting for more than it allows.
                if available >= Self.maxUnread { close() }
                break
            }
            evbuffer_drain(input, taken)
        }
        if closing { evbuffer_drain(input, evbuffer_get_length(input)) }
        return !closing
    }

    // MARK: StreamChannel

    func send(_ bytes: [UInt8]) {
        guard !closing, !ended else { return }
        bytes.withUnsafeBytes { connection.write($0) }
        connection.flush()
    }

    func close() {
        guard !closing, !ended else { return }
        closing = true
        connection.closeWhenFlushed()
        endConnection()
    }

    var pendingBytes: Int { ended ? 0 : connection.pendingOutput }

    // MARK: Session

    func outputDrained() -> Bool {
        if !ended, !closing, evbuffer_get_length(connection.input) > 0 { return receive() }
        return !closing
    }

    /// Shutdown or room needed at the cap: the module is told, and the connection closes.
    func drain(evicting: Bool) -> SessionEnd {
        close()
        return .closeWhenFlushed
    }

    func connectionClosed() { endConnection() }

    private func endConnection() {
        guard !ended else { return }
        ended = true
        endpoint.closed()
    }
}
