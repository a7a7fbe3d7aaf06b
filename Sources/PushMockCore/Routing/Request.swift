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

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.headers = headers
        self.body = body
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = URLCoding.formPairs(String(target[target.index(after: q)...])) ?? []
        } else {
            path = target
            query = []
        }
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        for h in headers where h.name.count == name.count && h.name.lowercased() == name { return h.value }
        return nil
    }

    public func queryValue(_ name: String) -> String? {
        for (k, v) in query where k == name { return v }
        return nil
    }

    /// The media type of the body, lower-cased, without parameters.
    public var mediaType: String? {
        guard let ct = header("content-type") else { return nil }
        return ct.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces.lowercased() }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
