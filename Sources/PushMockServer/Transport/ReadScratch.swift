internal import CLibevent

/// The loop's one read buffer for connections with nothing unread. libevent frees an input
/// chain once it is drained, so reading each request into a chain of its own would allocate
/// and free 16 KiB a request; instead the read goes here, the input refers to these bytes rather
/// than copying them (`evbuffer_add_reference`), and whatever the session has not taken when
/// the connection's turn ends is copied into the input's own memory (`keepUnread`), so the
/// next connection can read here. Loop thread only.
final class ReadScratch {
    let bytes: UnsafeMutableRawPointer
    let count = 16 * 1024
    /// Whether an input still refers to the buffer: cleared by libevent when it lets go of them
    /// (drained, pulled up into a chain of its own, or freed).
    fileprivate(set) var isReferenced = false

    init() {
        bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
    }

    deinit { bytes.deallocate() }

    /// The whole buffer, as a read's destination.
    var space: iovec { iovec(iov_base: bytes, iov_len: count) }

    /// Adds the `n` bytes just read into the buffer to `input` by reference; false if libevent
    /// could not.
    func lend(_ n: Int, to input: OpaquePointer) -> Bool {
        guard evbuffer_add_reference(input, bytes, n, scratchReleased, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            return false
        }
        isReferenced = true
        return true
    }

    /// Copies what `input` still holds into memory of its own if it refers to the buffer (the
    /// tail of the read, and any chains read after it); false if libevent could not.
    func keepUnread(in input: OpaquePointer) -> Bool {
        guard isReferenced else { return true }
        let n = evbuffer_get_length(input)
        let copy = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 1)
        defer { copy.deallocate() }
        // Removing drains the referring chain (so `isReferenced` is cleared) before the bytes
        // are added back.
        return Int(evbuffer_remove(input, copy, n)) == n && evbuffer_add(input, copy, n) == 0
    }
}

/// libevent lets go of the scratch bytes.
private func scratchReleased(_ data: UnsafeRawPointer?, _ length: Int, _ extra: UnsafeMutableRawPointer?) {
    guard let extra else { return }
    Unmanaged<ReadScratch>.fromOpaque(extra).takeUnretainedValue().isReferenced = false
}
