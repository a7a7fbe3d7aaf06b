internal import CLibevent
import Glibc

/// HTTP/1.1 over TLS. The decrypted bytes are relayed to the secure HTTP/1.1 front door over
/// an abstract Unix socket (the front door writes answers straight to its sockets): one route
/// table, one state, one HTTP/1.1 parser.
final class HTTP1Bridge {
    /// How much either side may buffer for the other before reading from it pauses.
    static let maxPending = 256 * 1024

    /// The side the front door serves; freed in deinit (which closes the socket).
    private let inner: OpaquePointer
    /// The TLS side, which owns this bridge.
    private unowned let connection: TLSConnection

    init(connection: TLSConnection, base: EventBase, address name: [UInt8]) throws(ServerError) {
        guard let inner = bufferevent_socket_new(base.pointer, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            throw ServerError("bufferevent_socket_new failed")
        }
        self.inner = inner
        self.connection = connection
        bufferevent_setcb(inner, bridgeInnerRead, bridgeInnerWrite, bridgeInnerEvent, Unmanaged.passUnretained(self).toOpaque())
        var addr = Self.address(name)
        let rc = withUnsafeMutablePointer(to: &addr.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bufferevent_socket_connect(inner, $0, Int32(addr.length)) }
        }
        guard rc == 0 else {
            bufferevent_free(inner)
            throw ServerError("cannot reach the internal HTTP/1.1 socket")
        }
        bufferevent_enable(inner, Int16(EV_READ | EV_WRITE))
    }

    deinit {
        bufferevent_setcb(inner, nil, nil, nil, nil)
        bufferevent_free(inner)
    }

    /// An abstract-namespace Unix address (a leading NUL, then `name`).
    static func address(_ name: [UInt8]) -> (storage: sockaddr_un, length: socklen_t) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { path in
            path[0] = 0
            for (i, byte) in name.prefix(path.count - 1).enumerated() { path[i + 1] = byte }
        }
        let length = MemoryLayout<sa_family_t>.size + 1 + min(name.count, MemoryLayout.size(ofValue: addr.sun_path) - 1)
        return (addr, socklen_t(length))
    }

    /// Bytes arrived from the client: pass them to the front door.
    func outerReadable() {
        guard let output = bufferevent_get_output(inner) else { return }
        evbuffer_add_buffer(output, connection.input)
        if evbuffer_get_length(output) > Self.maxPending { connection.setReading(false) }
    }

    /// The client took what we sent: the front door may send more.
    func outerWritable() { bufferevent_enable(inner, Int16(EV_READ)) }

    fileprivate func innerReadable() {
        guard let input = bufferevent_get_input(inner) else { return }
        evbuffer_add_buffer(connection.output, input)
        connection.transmit()
        if evbuffer_get_length(connection.output) > Self.maxPending { bufferevent_disable(inner, Int16(EV_READ)) }
    }

    /// The front door took what we passed on: the client may send more.
    fileprivate func innerWritable() { connection.setReading(true) }
    /// The front door closed its side (Connection: close, a timeout, an error).
    fileprivate func innerClosed() { connection.closeWhenFlushed() }
}

private func bridge(_ arg: UnsafeMutableRawPointer?) -> HTTP1Bridge? {
    arg.map { Unmanaged<HTTP1Bridge>.fromOpaque($0).takeUnretainedValue() }
}

private func bridgeInnerRead(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) { bridge(arg)?.innerReadable() }
private func bridgeInnerWrite(_ bev: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) { bridge(arg)?.innerWritable() }
private func bridgeInnerEvent(_ bev: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    if what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR) != 0 { bridge(arg)?.innerClosed() }
}
