/// One HTTP request as the transport received it, independent of HTTP/1.1 or HTTP/2.
public struct Request {
    public var method: String
    /// The path without the query, still percent-encoded.
    public var path: String
    /// Query pairs, decoded, in order.
    public var query: [(String, String)]
    /// Header names as received; look them up with `header(_:)`.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether it came over TLS.
    public var secure: Bool
    /// The connection it came on, when the transport keeps per-connection state (HTTP/2).
    /// (`Optional<T>` and no defaults, as in `PushOptions`: the request is built in place.)
    public var connection: Optional<ConnectionContext>

    /// (The transport passes `secure` and `connection` here: a request made and then changed
    /// is copied whole on its way out.)
    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        secure: Bool = false, connection: ConnectionContext? = nil
    ) {
        self.method = method
        self.headers = headers
        self.body = body
        self.secure = secure
        self.connection = connection
        // The `?` found on bytes with memchr: every request passes here.
        if let offset = target.withBytes({ $0.index(of: UInt8(ascii: "?"), in: 0..<$0.count) }) {
            let q = target.utf8.index(target.utf8.startIndex, offsetBy: offset)
            path = String(Substring(target.utf8[..<q]))
            query = URLCoding.formPairs(String(Substring(target.utf8[target.utf8.index(after: q)...]))) ?? []
        } else {
            path = target
            query = []
        }
    }

    /// The first value of a header; `name` is lower-case and matched case-insensitively. (A
    /// `StaticString`: every caller names the header in the source, and its bytes are then at
    /// hand without reaching into a String's storage.)
    public func header(_ name: StaticString) -> String? {
        // By index, lengths first, so no (name, value) pair is copied out.
        let lower = name.utf8Bytes
        for i in headers.indices where headers[i].name.utf8.count == lower.count {
            if headers[i].name.withBytes({ Self.equalsLowercased($0, lower: lower) }) { return headers[i].value }
        }
        return nil
    }

    /// ASCII case-insensitive comparison against a lower-case name written in the source, on
    /// bytes (a `StaticString`'s are at hand without reaching into a String's storage).
    public static func equalsLowercased(_ s: String, _ lower: StaticString) -> Bool {
        s.utf8.count == lower.utf8CodeUnitCount && s.withBytes { equalsLowercased($0, lower) }
    }

    /// The same for bytes (a part of a header value, say).
    public static func equalsLowercased(_ x: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        equalsLowercased(x, lower: lower.utf8Bytes)
    }

    /// The origin the client addressed: its scheme and `Host` (`http://127.0.0.1:4010`).
    public var origin: String? { header("host").map { (secure ? "https://" : "http://") + $0 } }

    public func queryValue(_ name: String) -> String? {
        for (k, v) in query where k == name { return v }
        return nil
    }

    /// Whether `x` is `lower` once its ASCII capitals are made small (`lower` has none).
    /// Eight bytes at a time: every request's header look-ups come here.
    public static func equalsLowercased(_ x: UnsafeBufferPointer<UInt8>, lower y: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = x.count
        guard n == y.count else { return false }
        guard n > 0, let xp = x.baseAddress, let yp = y.baseAddress else { return true }
        var i = 0
        while i + 8 <= n {
            let w = ByteWord.load(yp + i)
            if ByteWord.load(xp + i) | ByteWord.smallLetterBits(w) != w { return false }
            i += 8
        }
        while i < n {
            let c = xp[i]
            if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != yp[i] { return false }
            i += 1
        }
        return true
    }

    /// Whether the body's media type (before any `;` parameters) is `type`, which is
    /// lower-case; compared on bytes, since this runs on every send.
    public func hasMediaType(_ type: StaticString) -> Bool {
        guard let ct = header("content-type") else { return false }
        let y = type.utf8Bytes
        return ct.withBytes { x in
            var i = 0
            while i < x.count, x[i] == 0x20 { i += 1 }
            guard x.count - i >= y.count,
                Self.equalsLowercased(UnsafeBufferPointer(rebasing: x[i..<i + y.count]), lower: y)
            else { return false }
            var j = i + y.count
            while j < x.count, x[j] == 0x20 || x[j] == 0x09 { j += 1 }
            return j == x.count || x[j] == UInt8(ascii: ";")
        }
    }
}
