import PushMockCore

/// The pending commit's bytes (`PendingCommit`): written on the loop thread, then handed whole
/// to the writer thread, which only reads them. A class, so the bytes (`OwnedBytes`, which
/// cannot be copied) are handed over by reference.
final class ByteBuffer: @unchecked Sendable {
    private var out: OwnedBytes

    init(capacity: Int) { out = OwnedBytes(capacity: max(capacity, 64)) }

    var count: Int { out.count }
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(out.bytes) }

    func byte(_ b: UInt8) { out.append(b) }
    func append(_ p: UnsafeBufferPointer<UInt8>) { out.append(p) }
    func append(_ a: [UInt8]) { out.append(a) }

    /// Appends a copy of bytes already here.
    func repeatBytes(_ range: Range<Int>) { out.repeatBytes(range) }

    /// A JSON number.
    func int(_ n: Int64) { out.appendDecimal(n) }

    /// A JSON string, escaped as `JSONWriter` escapes.
    func string(_ s: String) { s.withBytes { out.appendQuoted($0) } }

    /// A JSON string from its UTF-8 bytes.
    func string(bytes u: UnsafeBufferPointer<UInt8>) { out.appendQuoted(u) }

    func null() { out.append("null") }
}
