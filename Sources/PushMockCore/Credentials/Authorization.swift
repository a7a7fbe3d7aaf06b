/// Reading the `Authorization` header's two schemes, on bytes (every send passes here).
enum Authorization {
    /// The key of `key=<server key>`, the scheme matched case-insensitively.
    static func serverKey(_ header: String) -> String? {
        let u = header.utf8
        guard starts(header, with: "key=") else { return nil }
        let key = String(Substring(u.dropFirst(4)))
        return key.utf8.first == 0x20 || key.utf8.last == 0x20 ? key.trimming(" \t") : key
    }

    /// The token of `Bearer <token>` (scheme in any case); `trimmed` drops spaces around it
    /// (APNs takes them, Google's APIs do not), and an empty token is none.
    static func bearerToken(_ header: String, trimmed: Bool = false) -> String? {
        let u = header.utf8
        guard starts(header, with: "bearer ") else { return nil }
        var token = u.dropFirst(7)
        guard trimmed else { return String(Substring(token)) }
        while token.first == 0x20 { token = token.dropFirst() }
        while token.last == 0x20 { token = token.dropLast() }
        return token.isEmpty ? nil : String(Substring(token))
    }

    /// Whether the header is `scheme` (lower-case, matched case-insensitively) and more.
    private static func starts(_ header: String, with scheme: StaticString) -> Bool {
        let n = scheme.utf8CodeUnitCount
        return header.withBytes { $0.count > n && Request.equalsLowercased(UnsafeBufferPointer(rebasing: $0[..<n]), scheme) }
    }
}
