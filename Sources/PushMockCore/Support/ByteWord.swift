/// Eight bytes read as one word, and the classic "has a zero byte" bit tricks over it: the
/// JSON parser and writer scan long strings this way. The tests may say "maybe" (a borrow
/// from a lower byte); they never miss, so callers check the bytes again when one says yes.
enum ByteWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
    }

    /// Whether a byte may be `byte`.
    @inline(__always)
    static func mayHave(_ byte: UInt8, in w: UInt64) -> Bool {
        let v = w ^ (ones &* UInt64(byte))
        return (v &- ones) & ~v & highs != 0
    }

    /// Whether a byte may be below 0x20 (a control character).
    @inline(__always)
    static func mayHaveControl(_ w: UInt64) -> Bool {
        (w &- 0x2020_2020_2020_2020) & ~w & highs != 0
    }

    /// Whether a byte is 0x80 or above (not ASCII).
    @inline(__always)
    static func hasNonASCII(_ w: UInt64) -> Bool { w & highs != 0 }

    /// Whether a byte may need a JSON string's attention: a quote, a backslash or a control
    /// character.
    @inline(__always)
    static func mayNeedEscape(_ w: UInt64) -> Bool {
        mayHaveControl(w) || mayHave(0x22, in: w) || mayHave(0x5C, in: w)
    }
}
