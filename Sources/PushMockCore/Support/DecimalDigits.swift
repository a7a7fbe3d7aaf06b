/// A number's decimal digits: how many there are, and written into a caller's memory from the
/// last, two at a time (no String made): the store's event rows, the JSON writer's integers, an
/// HTTP/1.1 answer's status and length, an HTTP/2 answer's length, `dN` ids.
public enum DecimalDigits {
    /// The most digits a `UInt64` has.
    public static let maxCount = 20

    /// How many digits `n` has: log10 from log2 (1233 / 4096 ≈ log10(2)), then one comparison
    /// to correct it; `n | 1` so that 0 has one digit.
    @inlinable
    public static func count(_ n: UInt64) -> Int {
        let estimate = ((64 - (n | 1).leadingZeroBitCount) * 1233) >> 12
        return (n | 1) < powers[estimate] ? estimate : estimate + 1
    }

    /// Writes `n`'s digits so that they end just before `end` (with room for `count(n)` before
    /// it); returns where they start.
    @inlinable
    public static func write(_ n: UInt64, endingAt end: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var m = n
        var at = end
        while m >= 100 {
            let pair = Int(m % 100) * 2
            m /= 100
            at -= 2
            at[0] = pairs[pair]
            at[1] = pairs[pair + 1]
        }
        if m >= 10 {
            at -= 2
            at[0] = pairs[Int(m) * 2]
            at[1] = pairs[Int(m) * 2 + 1]
        } else {
            at -= 1
            at[0] = UInt8(ascii: "0") + UInt8(m)
        }
        return at
    }

    /// As `write(_:endingAt:)`, ending just before index `end` of `buffer` (which has room for
    /// `maxCount` before it); returns the index where they start.
    @inlinable
    public static func write(_ n: UInt64, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let base = buffer.baseAddress!
        return write(n, endingAt: base + end) - base
    }

    /// Appends `n`'s digits to `out`: one digit as one byte, more written on the stack and
    /// copied once (an array's append costs the same for one byte or twenty).
    @inlinable
    public static func append(_ n: UInt64, to out: inout [UInt8]) {
        if n < 10 { return out.append(UInt8(ascii: "0") + UInt8(n)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { digits in
            let start = write(n, endingAt: digits.count, in: digits)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// "00" to "99", two bytes each.
    @usableFromInline
    nonisolated(unsafe) static let pairs: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
        for i in 0..<100 {
            p[2 * i] = UInt8(ascii: "0") + UInt8(i / 10)
            p[2 * i + 1] = UInt8(ascii: "0") + UInt8(i % 10)
        }
        return UnsafePointer(p)
    }()

    /// 10 to the powers 0 through 19.
    @usableFromInline
    nonisolated(unsafe) static let powers: UnsafePointer<UInt64> = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: 20)
        p[0] = 1
        for i in 1..<20 { p[i] = p[i - 1] * 10 }
        return UnsafePointer(p)
    }()
}
