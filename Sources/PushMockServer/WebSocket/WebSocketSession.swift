internal import CLibevent
import PushMockCore

/// A WebSocket (RFC 6455) on a connection an HTTP/1.1 request switched after `101 Switching
/// Protocols`: frames are read with `WebSocketReader`, whole text messages handed to the
/// module's `MessageEndpoint`, pings answered, and what the endpoint sends written as frames.
/// It knows nothing of push. Bounds: a message of at most `maxMessage` bytes (else close
/// 1009); a peer silent for `--timeout` is pinged, and closed (1001) when it stays silent
/// another `--timeout`; while more than `Connection.maxPendingOutput` waits to be sent,
/// nothing more is read.
final class WebSocketSession: Session, MessageChannel {
    /// The largest message taken; Mozilla's push messages are a few hundred bytes.
    static let maxMessage = 64 * 1024

    private let connection: Connection
    private let endpoint: any MessageEndpoint
    private var reader = WebSocketReader(maxMessage: WebSocketSession.maxMessage)
    /// A close frame was sent (ours or the answer to the peer's): nothing more is written.
    private var closeSent = false
    private var ended = false
    /// When a ping was sent for silence, if one is out.
    private var pingedAt: UInt64?

    init(connection: Connection, endpoint: any MessageEndpoint) {
        self.connection = connection
        self.endpoint = endpoint
    }

    /// Tells the endpoint the connection is open; it may send at once.
    func open() { endpoint.opened(self) }

    var inputLimit: Int { Self.maxMessage + 16 }
    var isIdle: Bool { !ended && connection.pendingOutput == 0 }

    func receive() -> Bool {
        guard !ended else { return false }
        let input = connection.input
        while !closeSent, connection.pendingOutput < Connection.maxPendingOutput {
            let available = evbuffer_get_length(input)
            guard available > 0 else { break }
            let scanned = min(available, Self.maxMessage + 14)
            let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, scanned), count: scanned)
            let step: (consumed: Int, frame: WebSocketReader.Frame?)
            do throws(WebSocketReader.Failure) { step = try reader.read(bytes) } catch {
                close(code: error.code, reason: error.reason)
                return false
            }
            guard step.consumed > 0 else { break }
            evbuffer_drain(input, step.consumed)
            pingedAt = nil
            if let frame = step.frame, !handle(frame) { return false }
        }
        if closeSent { evbuffer_drain(input, evbuffer_get_length(input)) }
        return !closeSent
    }

    /// One frame; false when it closed the connection.
    private func handle(_ frame: WebSocketReader.Frame) -> Bool {
        switch frame {
        case .text(let text): endpoint.received(text)
        case .binary: close(code: 1003, reason: "only text messages are taken")
        case .ping(let payload): write(WebSocketWriter.pong(payload))
        case .pong: break
        case .close(let code, _):
            // Answer with the peer's code (RFC 6455 §5.5.1), then close once it is sent.
            close(code: code ?? 1000, reason: "")
        }
        return !closeSent
    }

    // MARK: MessageChannel

    func send(_ text: String) { write(WebSocketWriter.text(text)) }

    func close(code: Int, reason: String) {
        guard !closeSent, !ended else { return }
        write(WebSocketWriter.close(code: code, reason: reason))
        closeSent = true
        connection.closeWhenFlushed()
        endConnection()
    }

    var pendingBytes: Int { ended ? 0 : connection.pendingOutput }

    private func write(_ frame: [UInt8]) {
        guard !closeSent, !ended else { return }
        frame.withUnsafeBytes { connection.write($0) }
        connection.flush()
    }

    // MARK: Session

    func outputDrained() -> Bool {
        if !ended, evbuffer_get_length(connection.input) > 0 { return receive() }
        return !closeSent
    }

    /// Shutdown: close 1001 (going away); at the connection cap the same.
    func drain(evicting: Bool) -> SessionEnd {
        close(code: 1001, reason: evicting ? "connection limit" : "server shutting down")
        return .closeWhenFlushed
    }

    /// A peer silent for `--timeout` is pinged; silent for another, it is closed.
    func check(now: UInt64, lastRead: UInt64, timeoutNanos: UInt64, ending: Bool) -> SessionEnd {
        guard !ending, !ended else { return .goOn }
        if let pinged = pingedAt {
            if now &- pinged > timeoutNanos {
                close(code: 1001, reason: "no answer to ping")
                return .closeWhenFlushed
            }
        } else if now &- lastRead > timeoutNanos {
            pingedAt = now
            write(WebSocketWriter.ping([]))
        }
        return .goOn
    }

    func connectionClosed() { endConnection() }

    /// Tells the endpoint once.
    private func endConnection() {
        guard !ended else { return }
        ended = true
        endpoint.closed()
    }
}
