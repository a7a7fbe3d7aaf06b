internal import CLibevent
import Glibc

/// One listening port: plain, or TLS with `tls`; its connections speak HTTP, or the protocol
/// `choice` starts. Accepted sockets go to the connection table, which pauses and resumes
/// every listener together at `--max-connections`.
final class Listener {
    private let base: EventBase
    private unowned let table: ConnectionTable
    /// TLS's settings and identity, on the TLS port.
    let tls: TLSContext?
    let choice: SessionChoice
    /// Freed by `close()` (closing the socket).
    private var listener: OpaquePointer?

    init(base: EventBase, table: ConnectionTable, tls: TLSContext?, choice: SessionChoice) {
        self.base = base
        self.table = table
        self.tls = tls
        self.choice = choice
    }

    deinit { close() }

    /// Binds and returns the port actually bound (for port 0).
    func bind(host: String, port: Int) throws(ServerError) -> Int {
        let l = try SocketPort.listen(
            base: base, host: host, port: port, callback: listenerAccepted,
            argument: Unmanaged.passUnretained(self).toOpaque())
        listener = l
        evconnlistener_set_error_cb(l, listenerFailed)
        return try SocketPort.bound(evconnlistener_get_fd(l))
    }

    func pause() {
        if let listener { evconnlistener_disable(listener) }
    }

    func resume() {
        if let listener { evconnlistener_enable(listener) }
    }

    func close() {
        if let listener { evconnlistener_free(listener) }
        listener = nil
    }

    fileprivate func accepted(_ fd: Int32) { table.accept(fd, on: self) }

    /// `accept` failed; out of descriptors (`EMFILE`, `ENFILE`) or memory, the table pauses
    /// every listener for a moment: retrying at once would spin the loop.
    fileprivate func failed(_ error: Int32) { table.acceptFailed(error) }
}

private func listenerFailed(_ listener: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    let error = errno
    guard let arg else { return }
    Unmanaged<Listener>.fromOpaque(arg).takeUnretainedValue().failed(error)
}

private func listenerAccepted(
    _ listener: OpaquePointer?, _ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>?, _ len: Int32,
    _ arg: UnsafeMutableRawPointer?
) {
    guard let arg else {
        close(fd)
        return
    }
    Unmanaged<Listener>.fromOpaque(arg).takeUnretainedValue().accepted(fd)
}
