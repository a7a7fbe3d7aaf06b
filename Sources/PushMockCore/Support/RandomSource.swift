/// SplitMix64: fast, seedable randomness for identifiers. Seed it in tests for repeatable
/// tokens; the default seed comes from the system generator. A class, so the parts that draw
/// identifiers share one sequence. Loop thread only.
public final class RandomSource: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        state = seed ?? system.next()
    }

    public func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `count` characters of the URL-safe base64 alphabet.
    public func base64URL(_ count: Int) -> String { base64URL(after: "", count) }

    /// `count` lower-case hex digits.
    public func hex(_ count: Int) -> String { characters(count, from: Self.hexDigits, bits: 4) }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    /// Upper-case letters and digits, the shape of Apple key and team ids.
    public func upperAlphanumeric(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        return String(decoding: (0..<count).map { _ in alphabet[Int(next() % 36)] }, as: UTF8.self)
    }

    /// `prefix`, `count` characters of the URL-safe base64 alphabet, then `middle` and `more`
    /// characters more (a FID, and the token that begins with it), written in a buffer on the
    /// stack and made a string once: a batch makes a million tokens at once. Draws as
    /// `base64URL(count)` then `base64URL(more)`. Made by `String(decoding:)`, which marks the
    /// string ASCII, so comparing a send's token with it takes the fast path
    /// (docs/PERFORMANCE.md).
    public func base64URL(after prefix: String, _ count: Int, then middle: String = "", _ more: Int = 0) -> String {
        var prefix = prefix
        var middle = middle
        return prefix.withUTF8 { head in
            middle.withUTF8 { mid in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: head.count + count + mid.count + more) { out in
                    var at = 0
                    func place(_ bytes: UnsafeBufferPointer<UInt8>) {
                        _ = UnsafeMutableBufferPointer(rebasing: out[at..<(at + bytes.count)]).initialize(fromContentsOf: bytes)
                        at += bytes.count
                    }
                    func draw(_ n: Int) {
                        drawBase64URL(into: UnsafeMutableBufferPointer(rebasing: out[at..<(at + n)]))
                        at += n
                    }
                    place(head)
                    draw(count)
                    place(mid)
                    draw(more)
                    return String(decoding: UnsafeBufferPointer(out), as: UTF8.self)
                }
            }
        }
    }

    /// `count` characters drawn from an alphabet of 2^`bits` symbols, made a string once from a
    /// buffer on the stack (message ids are drawn on every send).
    private func characters(_ count: Int, from alphabet: [UInt8], bits: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { out in
            alphabet.withUnsafeBufferPointer { draw(into: out, from: $0, bits: bits) }
            return String(decoding: UnsafeBufferPointer(out), as: UTF8.self)
        }
    }

    /// Two base64url symbols for each 12 bits, the first in the low byte.
    private static let base64URLPairs: [UInt16] = (0..<4096).map {
        UInt16(base64URL[$0 & 63]) | UInt16(base64URL[$0 >> 6]) << 8
    }

    /// As `draw(into:from:bits:)` with the base64url alphabet, the same symbols from the same
    /// words, but two stored at a time: a batch registration draws 155 symbols a device.
    private func drawBase64URL(into out: UnsafeMutableBufferPointer<UInt8>) {
        guard var p = out.baseAddress else { return }
        let end = p + out.count
        Self.base64URLPairs.withUnsafeBufferPointer { pairs in
            while end - p >= 10 {
                var word = next()
                for _ in 0..<5 {
                    UnsafeMutableRawPointer(p).storeBytes(of: pairs[Int(word & 0xFFF)].littleEndian, as: UInt16.self)
                    word >>= 12
                    p += 2
                }
            }
        }
        if p < end {
            let tail = UnsafeMutableBufferPointer(start: p, count: end - p)
            Self.base64URL.withUnsafeBufferPointer { draw(into: tail, from: $0, bits: 6) }
        }
    }

    /// Fills `out` with symbols of an alphabet of 2^`bits`, `bits` random bits each: a word
    /// gives as many whole symbols as it holds, lowest bits first, the rest of it unused.
    @inline(__always)
    private func draw(into out: UnsafeMutableBufferPointer<UInt8>, from alphabet: UnsafeBufferPointer<UInt8>, bits: Int) {
        let mask = UInt64(1 << bits - 1)
        let perWord = 64 / bits
        var i = 0
        while i < out.count {
            var word = next()
            for _ in 0..<min(perWord, out.count - i) {
                out.initializeElement(at: i, to: alphabet[Int(word & mask)])
                word >>= UInt64(bits)
                i += 1
            }
        }
    }
}
