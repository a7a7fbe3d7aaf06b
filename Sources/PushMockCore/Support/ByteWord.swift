/// Eight bytes read as one word, and the classic "has a zero byte" bit tricks over it: the
/// JSON writer checks long strings this way, the reader an integer's digits, and the HTTP/1.1
/// head reader its field values (the parser's strings are scanned sixteen bytes at a time,
/// `CByteScan`). A mask may flag a byte that does not match (a borrow from a lower byte), but
/// a borrow only runs upward from a byte that did: so a mask is 0 exactly when no byte
/// matches, and the lowest byte it flags always matches (`first`). The word is read
/// little-endian, as on every platform pushmock builds for, so that byte is the first in
/// memory.
enum ByteWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
    }

    /// The high bit of each byte that may be `byte`.
    @inline(__always)
    static func mask(of byte: UInt8, in w: UInt64) -> UInt64 {
        let v = w ^ (ones &* UInt64(byte))
        return (v &- ones) & ~v & highs
    }

    /// The high bit of each byte that may be below 0x20 (a control character).
    @inline(__always)
    static func controlMask(_ w: UInt64) -> UInt64 { (w &- 0x2020_2020_2020_2020) & ~w & highs }

    /// The high bit of each byte that may need a JSON string's attention: a quote, a
    /// backslash or a control character.
    @inline(__always)
    static func escapeMask(_ w: UInt64) -> UInt64 { controlMask(w) | mask(of: 0x22, in: w) | mask(of: 0x5C, in: w) }

    /// The place in the word of the first byte a mask flags (the mask is not 0).
    @inline(__always)
    static func first(_ mask: UInt64) -> Int { mask.trailingZeroBitCount >> 3 }

    /// 0x20 in each byte that is an ASCII small letter (a to z), 0 in the others: OR-ed into
    /// another word, it makes each of that word's capitals equal to the small letter here,
    /// and changes nothing where this word has no letter. (The sums are taken on the low seven
    /// bits of each byte, so no carry leaves a byte.)
    @inline(__always)
    static func smallLetterBits(_ w: UInt64) -> UInt64 {
        let low = w & ~highs
        let fromA = low &+ ones &* (0x80 - 0x61)
        let pastZ = low &+ ones &* (0x80 - 0x7B)
        return (fromA & ~pastZ & ~w & highs) >> 2
    }

    /// The high bit of each byte that is 0x80 or above (not ASCII).
    @inline(__always)
    static func nonASCIIMask(_ w: UInt64) -> UInt64 { w & highs }

    /// The high bit of each byte that is no ASCII digit. A byte 0xFA or above carries into
    /// the next one's test, but it is flagged itself, so the lowest flagged byte is always
    /// the first that is no digit (`first`).
    @inline(__always)
    static func nonDigitMask(_ w: UInt64) -> UInt64 {
        let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let threes: UInt64 = 0x3030_3030_3030_3030
        // 0 in a byte whose high half is 3 both as it is and with 6 added (0x30 to 0x39).
        let off = ((w & nibbles) ^ threes) | (((w &+ 0x0606_0606_0606_0606) & nibbles) ^ threes)
        // The high bit of each byte of `off` that is not 0 (no carry leaves a byte).
        return (((off & ~highs) &+ ~highs) | off) & highs
    }

    /// The number eight ASCII digits spell, the first in memory the most significant.
    @inline(__always)
    static func eightDigits(_ w: UInt64) -> UInt64 {
        var v = w &- 0x3030_3030_3030_3030
        v = (v &* 10) &+ (v >> 8) // each pair of digits in the low byte of its 16 bits
        let pairs: UInt64 = 0x0000_00FF_0000_00FF
        return ((v & pairs) &* (100 + (1_000_000 << 32)) &+ ((v >> 16) & pairs) &* (1 + (10_000 << 32))) >> 32
    }

    /// Whether a byte needs a JSON string's attention: a quote, a backslash or a control
    /// character.
    @inline(__always)
    static func needsEscape(_ w: UInt64) -> Bool { escapeMask(w) != 0 }
}
