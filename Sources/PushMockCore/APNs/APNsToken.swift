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
                  let d = Self.word(p + 48) else { return nil }
            return (a, b, c, d)
        }
        guard let words else { return nil }
        self.words = words
    }

    /// 16 hex digits as a number; nil if any is not one.
    private static func word(_ p: UnsafePointer<UInt8>) -> UInt64? {
        var w: UInt64 = 0, bad = false
        for i in 0..<16 {
            let c = p[i], digit = c &- 0x30, letter = (c | 0x20) &- 0x61
            bad = bad || (digit >= 10 && letter >= 6)
            w = w << 4 | UInt64(digit < 10 ? digit : letter &+ 10)
        }
        return bad ? nil : w
    }

    static func == (a: APNsToken, b: APNsToken) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
}
