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
        return (n | 1) < power(estimate) ? estimate : estimate + 1
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

    /// "00" to "99", two bytes each. A literal, so the table lies in the binary: reading it
    /// needs no once-only initialization check, which a table built at run time costs on every
    /// access from another function.
    @inlinable
    static var pairs: UnsafePointer<UInt8> {
        let table: StaticString = """
            00010203040506070809101112131415161718192021222324\
            25262728293031323334353637383940414243444546474849\
            50515253545556575859606162636465666768697071727374\
            75767778798081828384858687888990919293949596979899
            """
        return table.utf8Start
    }

    /// 10 to the power `exponent` (0 through 19). A switch over literals, which the compiler
    /// makes a constant table, for the same reason.
    @inlinable
    public static func power(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        case 19: 10_000_000_000_000_000_000
        default: preconditionFailure("10^\(exponent) does not fit in UInt64")
        }
    }
}
