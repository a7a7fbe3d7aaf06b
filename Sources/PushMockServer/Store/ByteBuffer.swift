import PushMockCore

/// A growing run of bytes in memory of its own, appended to without `Array`'s checks for
/// every append: the pending commit (`PendingCommit`) is written here on the loop thread,
/// then handed whole to the writer thread, which only reads it.
final class ByteBuffer: @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `n` more bytes.
    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { grow(to: count + n) }
    }

    private func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    func append(_ p: UnsafeBufferPointer<UInt8>) {
        guard let from = p.baseAddress else { return }
        reserve(p.count)
        (base + count).update(from: from, count: p.count)
        count += p.count
    }

    func append(_ a: [UInt8]) { a.withUnsafeBufferPointer { append($0) } }

    /// Appends a copy of bytes already here.
    func repeatBytes(_ range: Range<Int>) {
        reserve(range.count)
        (base + count).update(from: base + range.lowerBound, count: range.count)
        count += range.count
    }

    /// A JSON number, written in place (`DecimalDigits`).
    func int(_ n: Int64) {
        reserve(21)
        if n < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        let digits = DecimalDigits.count(n.magnitude)
        _ = DecimalDigits.write(n.magnitude, endingAt: base + count + digits)
        count += digits
    }

    /// A JSON string, escaped as `JSONWriter` escapes.
    func string(_ s: String) { s.withBytes { string(bytes: $0) } }

    /// A JSON string from its UTF-8 bytes.
    func string(bytes u: UnsafeBufferPointer<UInt8>) {
        guard !JSONWriter.needsEscape(u) else {
            var escaped: [UInt8] = []
            JSONWriter.appendQuoted(bytes: u, to: &escaped)
            return append(escaped)
        }
        reserve(u.count + 2)
        base[count] = UInt8(ascii: "\"")
        if let from = u.baseAddress { (base + count + 1).update(from: from, count: u.count) }
        base[count + 1 + u.count] = UInt8(ascii: "\"")
        count += u.count + 2
    }

    func null() {
        reserve(4)
        base[count] = UInt8(ascii: "n")
        base[count + 1] = UInt8(ascii: "u")
        base[count + 2] = UInt8(ascii: "l")
        base[count + 3] = UInt8(ascii: "l")
        count += 4
    }
}
