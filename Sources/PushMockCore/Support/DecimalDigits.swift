/// A number's decimal digits written into a caller's buffer, from its end backwards (no
/// String made): the JSON writer's integers, an HTTP/1.1 answer's status and length, `dN` ids.
public enum DecimalDigits {
    /// The most digits a `UInt64` has.
    public static let maxCount = 20

    /// Writes `n`'s digits so that they end just before `end` in `buffer` (which has room for
    /// `maxCount` before it); returns where they start.
    @inlinable
    public static func write(_ n: UInt64, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var i = end
        var rest = n
        repeat {
            i -= 1
            buffer[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        return i
    }
}
