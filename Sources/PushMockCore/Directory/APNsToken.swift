/// An APNs device token as the index of iOS devices keys it: 64 hex digits read as 32 bytes.
/// Upper and lower case name the same token, and a lookup hashes one word instead of 64 bytes
/// of String (tokens are random, so any one of their words hashes well).
struct APNsToken: Hashable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// Nil unless `hex` is 64 hex digits (Pushy's rule for a device token).
    init?(_ hex: String) {
        guard hex.utf8.count == 64 else { return nil }
        let words: (UInt64, UInt64, UInt64, UInt64)? = hex.withBytes { bytes in
            guard let p = bytes.baseAddress, let a = Self.word(p), let b = Self.word(p + 16), let c = Self.word(p + 32),
                let d = Self.word(p + 48)
            else { return nil }
            return (a, b, c, d)
        }
        guard let words else { return nil }
        self.words = words
    }

    /// 16 hex digits as a number; nil if any is not one.
    private static func word(_ p: UnsafePointer<UInt8>) -> UInt64? {
        guard let high = eight(ByteWord.load(p)), let low = eight(ByteWord.load(p + 8)) else { return nil }
        return high << 32 | low
    }

    /// Eight hex digits (either case), read as one word, as 32 bits: all bytes checked and
    /// converted together.
    /// The bits are in an order of their own: only equality and hashing use them.
    private static func eight(_ x: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard x & highs == 0 else { return nil }
        // A byte's high bit says whether it is at least `low` (no byte is 0x80 or more, so
        // the sum never carries into the next byte).
        func atLeast(_ v: UInt64, _ low: UInt64) -> UInt64 { (v &+ ones &* (0x80 - low)) & highs }
        let folded = x | 0x2020_2020_2020_2020
        let digit = atLeast(x, 0x30) & ~atLeast(x, 0x3A)
        let letter = atLeast(folded, 0x61) & ~atLeast(folded, 0x67)
        guard digit | letter == highs else { return nil }
        var v = (x & 0x0F0F_0F0F_0F0F_0F0F) &+ (letter >> 7) &* 9
        v = (v | v >> 4) & 0x00FF_00FF_00FF_00FF
        v = (v | v >> 8) & 0x0000_FFFF_0000_FFFF
        return (v | v >> 16) & 0xFFFF_FFFF
    }

    static func == (a: APNsToken, b: APNsToken) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
}
