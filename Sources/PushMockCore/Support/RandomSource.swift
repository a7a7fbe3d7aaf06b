/// SplitMix64: fast, seedable randomness for identifiers. Seed it in tests for repeatable
/// tokens; the default seed comes from the system generator.
public struct RandomSource: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        state = seed ?? system.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `count` characters of the URL-safe base64 alphabet.
    public mutating func base64URL(_ count: Int) -> String {
        var out = [UInt8]()
        out.reserveCapacity(count)
        var bits: UInt64 = 0
        var left = 0
        for _ in 0..<count {
            if left < 6 { bits = next(); left = 64 }
            out.append(Self.base64URL[Int(bits & 63)])
            bits >>= 6
            left -= 6
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` lower-case hex digits.
    public mutating func hex(_ count: Int) -> String {
        var out = [UInt8]()
        out.reserveCapacity(count)
        var bits: UInt64 = 0
        var left = 0
        for _ in 0..<count {
            if left < 4 { bits = next(); left = 64 }
            out.append(Self.hexDigits[Int(bits & 15)])
            bits >>= 4
            left -= 4
        }
        return String(decoding: out, as: UTF8.self)
    }
}
