import Glibc

/// A webhook's `http://` or `https://` URL, parsed strictly by RFC 3986's grammar: a host name
/// (letters, digits, `-`, `_`, dots; labels of at most 63), an IPv4 address or a bracketed IPv6
/// one, an optional port 1-65535, and a path and query of URL characters only (a `%` takes two
/// hex digits). No user info, no spaces, no control or non-ASCII bytes: the request the bridge
/// sends is built from these parts alone, so a URL cannot add header lines or a second request
/// (docs/hardening.md). A fragment is dropped, as clients do.
public struct WebhookURL: Sendable, Equatable {
    public let secure: Bool
    /// The host as it connects: a name, or an address without brackets.
    public let host: String
    public let port: Int
    /// The request target: the path (at least `/`) and the query.
    public let target: String
    /// The `Host` header: the host as written, with the port when one was given.
    public let hostHeader: String

    public static let maxLength = 2048

    /// Parses `url`, or says what is wrong with it as a sentence.
    public static func parse(_ url: String) -> Result<WebhookURL, Problem> {
        guard url.utf8.count <= maxLength else { return .failure(Problem("the URL is longer than \(maxLength) bytes.")) }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(Problem("\(quoted(url)) has a space, a control character or a non-ASCII byte; percent-encode it."))
        }
        let lower = url.lowercased()
        let secure: Bool
        if lower.hasPrefix("https://") {
            secure = true
        } else if lower.hasPrefix("http://") {
            secure = false
        } else {
            return .failure(Problem("\(quoted(url)) is not an http:// or https:// URL."))
        }
        let rest = url.dropFirst(secure ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var tail = rest.dropFirst(authority.count)
        if let hash = tail.firstIndex(of: "#") { tail = tail[..<hash] }
        guard tail.utf8.allSatisfy(isTargetByte), percentEscapesAreWhole(tail) else {
            return .failure(Problem("\(quoted(url)) has a character a URL's path or query cannot hold; percent-encode it."))
        }
        var host = authority
        var port = secure ? 443 : 80
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let digits = authority[authority.index(after: colon)...]
            guard (1...5).contains(digits.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(digits),
                (1...65535).contains(n)
            else { return .failure(Problem("\(quoted(url)) has no usable port.")) }
            port = n
            host = authority[..<colon]
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
            guard isIPv6(String(host)) else { return .failure(Problem("\(quoted(url)) has no usable host.")) }
        } else {
            guard isHostName(host) else { return .failure(Problem("\(quoted(url)) has no usable host.")) }
        }
        let target = tail.isEmpty ? "/" : (tail.hasPrefix("?") ? "/" + tail : String(tail))
        return .success(
            WebhookURL(secure: secure, host: String(host), port: port, target: target, hostHeader: String(authority)))
    }

    public struct Problem: Error, Sendable {
        public let sentence: String
        init(_ sentence: String) { self.sentence = sentence }
    }

    private static func quoted(_ url: String) -> String {
        "\"" + (url.utf8.count > 200 ? String(url.prefix(200)) + "…" : url) + "\""
    }

    /// RFC 3986 `pchar`, `/` and `?`: unreserved, sub-delims, `:`, `@`, and `%` for escapes.
    private static func isTargetByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "-._~!$&'()*+,;=:@/?%".utf8.contains(c)
        }
    }

    private static func percentEscapesAreWhole(_ s: Substring) -> Bool {
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%") {
                guard i + 2 < b.count, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    /// A DNS name or dotted IPv4 address: labels of 1-63 letters, digits, `-` or `_`, not
    /// starting or ending with `-`, 253 bytes at most.
    private static func isHostName(_ h: Substring) -> Bool {
        guard (1...253).contains(h.utf8.count) else { return false }
        let labels = h.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { c in
                    (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
                }
        }
    }

    private static func isIPv6(_ h: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, h, &address) == 1
    }
}
