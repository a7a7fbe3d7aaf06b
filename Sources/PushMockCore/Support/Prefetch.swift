import CPrefetch

/// Cache hints for memory that will soon be read, asked for without waiting for it
/// (`CPrefetch`): the message store and the event log let go of what they made long ago.
enum Prefetch {
    /// The bytes of one cache line: what one hint brings in.
    static let lineBytes = 64

    /// Asks for the cache lines that hold `bytes` bytes from `address`. A hint never faults,
    /// whatever the address.
    @inline(__always)
    static func bytes(_ bytes: Int, at address: UnsafeRawPointer) {
        for offset in stride(from: 0, to: bytes, by: lineBytes) { pushmock_prefetch(address + offset) }
    }

    /// The address of the object a class reference stored at `field` points to, nil for nil.
    /// The reference is read as bits, not retained: a retain would wait for the very memory
    /// a prefetch asks for.
    @inline(__always)
    static func object(referencedAt field: UnsafeRawPointer) -> UnsafeRawPointer? {
        field.load(as: UnsafeRawPointer?.self)
    }
}
