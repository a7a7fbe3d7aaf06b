/// A growing run of bytes in memory of its own. It cannot be copied, so an append is a bounds
/// check and a copy: an array checks on every append whether its buffer is shared. For bytes
/// written piece by piece on every request: JSON answers (`JSONWriter`), an HTTP/1.1 answer
/// (`HTTP1Encoder`), an HTTP/2 answer's header block, the store's pending commit.
public struct OwnedBytes: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0

    public var count: Int { written }

    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written; valid until the next change.
    @inlinable public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: written) }

    /// A copy as an array.
    public var array: [UInt8] { Array(bytes) }

    /// Empties it, keeping its memory.
    public mutating func removeAll() { written = 0 }

    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) {
        if written + n > capacity { grow(to: written + n) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: written)
        base.deallocate()
        base = moved
        capacity = larger
    }

    @inlinable @inline(__always)
    public mutating func append(_ b: UInt8) {
        reserve(1)
        base[written] = b
        written += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ u: UnsafeBufferPointer<UInt8>) {
        guard let from = u.baseAddress, !u.isEmpty else { return }
        reserve(u.count)
        copyBytes(from: from, to: base + written, count: u.count)
        written += u.count
    }

    public mutating func append(_ a: [UInt8]) { a.withUnsafeBufferPointer { append($0) } }

    public mutating func append(_ s: StaticString) {
        append(s.utf8Bytes)
    }

    /// Appends a copy of bytes already here.
    public mutating func repeatBytes(_ range: Range<Int>) {
        reserve(range.count)
        (base + written).update(from: base + range.lowerBound, count: range.count)
        written += range.count
    }

    /// A decimal number, written in place (`DecimalDigits`).
    public mutating func appendDecimal(_ n: Int64) {
        reserve(20)
        if n < 0 {
            base[written] = UInt8(ascii: "-")
            written += 1
        }
        let digits = DecimalDigits.count(n.magnitude)
        _ = DecimalDigits.write(n.magnitude, endingAt: base + written + digits)
        written += digits
    }

    /// A JSON string in quotes, escaped as JSON requires (most need nothing: copied as they
    /// are checked).
    public mutating func appendQuoted(_ u: UnsafeBufferPointer<UInt8>) {
        reserve(u.count + 2)
        guard Self.copyUnescaped(u, to: base + written + 1) else {
            var escaped: [UInt8] = []
            JSONWriter.appendQuoted(bytes: u, to: &escaped)
            return append(escaped)
        }
        base[written] = UInt8(ascii: "\"")
        base[written + 1 + u.count] = UInt8(ascii: "\"")
        written += u.count + 2
    }

    /// A JSON string from bytes known to need no escape (`JSONKey`'s names written in the
    /// source), in quotes.
    public mutating func appendQuoted(literal s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n + 2)
        base[written] = UInt8(ascii: "\"")
        copyBytes(from: s.utf8Start, to: base + written + 1, count: n)
        base[written + 1 + n] = UInt8(ascii: "\"")
        written += n + 2
    }

    /// A part of a JSON string, escaped, without quotes.
    public mutating func appendEscaped(_ u: UnsafeBufferPointer<UInt8>) {
        reserve(u.count)
        guard Self.copyUnescaped(u, to: base + written) else {
            var escaped: [UInt8] = []
            JSONWriter.appendEscaped(bytes: u, to: &escaped)
            return append(escaped)
        }
        written += u.count
    }

    /// Copies `u` to `to` unless one of its bytes needs a JSON escape (a quote, a backslash, a
    /// control character): then false, and what was copied is not counted. Eight bytes at a
    /// time, each word checked as it is copied; the last word ends with the last byte (it may
    /// overlap the one before), so there is no tail to copy a byte at a time.
    @inline(__always)
    private static func copyUnescaped(_ u: UnsafeBufferPointer<UInt8>, to: UnsafeMutablePointer<UInt8>) -> Bool {
        guard let from = u.baseAddress else { return true }
        let n = u.count
        guard n >= 8 else {
            for i in 0..<n {
                let c = from[i]
                if JSONWriter.needsEscape(byte: c) { return false }
                to[i] = c
            }
            return true
        }
        var i = 0
        while true {
            let w = ByteWord.load(from + i)
            if ByteWord.needsEscape(w) { return false }
            UnsafeMutableRawPointer(to + i).storeBytes(of: w, as: UInt64.self)
            if i + 8 == n { return true }
            i = min(i + 8, n - 8)
        }
    }

    /// ASCII capitals from `start` on, made lower-case in place.
    public mutating func lowercase(from start: Int) {
        for i in start..<written where base[i] &- UInt8(ascii: "A") < 26 { base[i] |= 0x20 }
    }
}
