/// Percent-decoding for paths and query strings, and `application/x-www-form-urlencoded`
/// bodies, without Foundation.
public enum URLCoding {
    /// Decodes `%XX` escapes (and `+` as space when `plusIsSpace`). Nil when an escape is
    /// malformed or the result is not UTF-8.
    public static func percentDecode(_ s: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = s.utf8
        if !utf8.contains(0x25) && !(plusIsSpace && utf8.contains(0x2B)) { return String(s) }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let c = it.next() {
            if c == 0x25 {
                guard let h = it.next(), let l = it.next(), let hv = hexValue(h), let lv = hexValue(l) else { return nil }
                out.append(hv << 4 | lv)
            } else if c == 0x2B && plusIsSpace {
                out.append(0x20)
            } else {
                out.append(c)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    public static func percentDecode(_ s: String, plusIsSpace: Bool = false) -> String? {
        percentDecode(Substring(s), plusIsSpace: plusIsSpace)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    /// Splits `a=1&b=2` into ordered pairs; nil when a part does not decode.
    public static func formPairs(_ s: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for part in s.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let k = percentDecode(kv[0], plusIsSpace: true),
                let v = percentDecode(kv.count > 1 ? kv[1] : "", plusIsSpace: true)
            else { return nil }
            pairs.append((k, v))
        }
        return pairs
    }
}
