/// RFC 4648 §5 base64url, written without padding. Reading also takes `=` padding and the
/// standard alphabet's `+` and `/`, as push services do for keys some senders encode so
/// (docs/reference/web-push.md §3).
public enum Base64URL {
    public static func decode(_ s: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count * 3 / 4)
        var bits: UInt32 = 0
        var count = 0
        var padding = 0
        for c in s.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            // Nothing may follow padding.
            guard padding == 0 else { return nil }
            bits = bits << 6 | UInt32(v)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        // A lone character (6 bits) is no byte; more padding than a group can hold is wrong.
        guard count < 6, padding <= 2 else { return nil }
        return out
    }

    public static func decode(_ s: String) -> [UInt8]? { decode(s[...]) }

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(n >> UInt32(shift)) & 63]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18) & 63])
            out.append(alphabet[Int(n >> 12) & 63])
            if rest == 2 { out.append(alphabet[Int(n >> 6) & 63]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// With `=` padding to a multiple of four (what firebase-messaging's decoder needs).
    public static func encodePadded(_ bytes: [UInt8]) -> String {
        let text = encode(bytes)
        return text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
