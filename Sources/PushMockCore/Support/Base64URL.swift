import Foundation

/// RFC 4648 §5 base64url, written without padding. Reading also takes `=` padding and the
/// standard alphabet's `+` and `/`, as push services do for keys some senders encode so
/// (docs/reference/web-push.md §3).
public enum Base64URL {
    public static func decode(_ s: Substring) -> [UInt8]? {
        var b64 = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.utf8.count % 4 != 0 { b64 += "=" }
        return Data(base64Encoded: b64).map { Array($0) }
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

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
