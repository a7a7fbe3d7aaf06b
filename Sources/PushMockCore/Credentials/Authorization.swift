/// Reading the `Authorization` header's two schemes, on bytes (every send passes here).
enum Authorization {
    /// The key of `key=<server key>`, the scheme matched case-insensitively.
    static func serverKey(_ header: String) -> String? {
        let u = header.utf8
        guard u.count > 4, starts(u, with: "key=") else { return nil }
        let key = String(Substring(u.dropFirst(4)))
        return key.utf8.first == 0x20 || key.utf8.last == 0x20 ? key.trimming(" \t") : key
    }

    /// The token of `Bearer <token>` (scheme in any case); `trimmed` drops spaces around it
    /// (APNs takes them, Google's APIs do not), and an empty token is none.
    static func bearerToken(_ header: String, trimmed: Bool = false) -> String? {
        let u = header.utf8
        guard u.count > 7, starts(u, with: "bearer ") else { return nil }
        var token = u.dropFirst(7)
        guard trimmed else { return String(Substring(token)) }
        while token.first == 0x20 { token = token.dropFirst() }
        while token.last == 0x20 { token = token.dropLast() }
        return token.isEmpty ? nil : String(Substring(token))
    }

    /// Whether the header starts with `scheme` (lower-case), matched case-insensitively.
    private static func starts(_ u: String.UTF8View, with scheme: String) -> Bool {
        var it = u.makeIterator()
        for expected in scheme.utf8 {
            guard let c = it.next(), (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) == expected else { return false }
        }
        return true
    }
}
