/// A route table: method + path pattern → handler. Patterns are split on `/`; a segment is a
/// literal (`v1:batchAdd`) or holds one parameter with optional literal text around it
/// (`{token}`, `{id}:refreshToken`); only a one-segment pattern may start with a parameter.
/// Parameters arrive percent-decoded.
struct Router<Handler> {
    enum Match {
        /// The handler, the path parameters, and the route's index in `names`.
        case found(Handler, PathParameters, route: Int)
        /// The path matched routes of other methods; one of them.
        case methodNotAllowed(Handler)
        /// Nothing matched; a route under the same first path segment, if there is one.
        case notFound(Handler?)
    }

    private struct Segment {
        let prefix: String
        let name: String?
        let suffix: String
    }

    private struct Route {
        let method: String
        let segments: [Segment]
        let handler: Handler
    }

    private var routes: [Route] = []
    /// Indexes into `routes` by the pattern's first segment (always literal), so a path is
    /// only tried against the routes that can match it.
    private var byFirstSegment: [String: [Int]] = [:]
    /// One-segment routes that are all parameter (`/{token}`: Apple's Web Push endpoints),
    /// tried only for their method when no other route has the path.
    private var rootParameters: [Int] = []
    /// Routes without parameters, by "METHOD path": the hot send paths match in one lookup.
    private var literal: [String: (Handler, Int)] = [:]
    /// "METHOD pattern" of each route, by index (metrics label routes by these).
    private(set) var names: [String] = []

    init() {}

    mutating func add(_ method: String, _ pattern: String, _ handler: Handler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { seg -> Segment in
            guard let open = seg.firstIndex(of: "{"), let close = seg.firstIndex(of: "}") else {
                return Segment(prefix: String(seg), name: nil, suffix: "")
            }
            return Segment(
                prefix: String(seg[..<open]), name: String(seg[seg.index(after: open)..<close]),
                suffix: String(seg[seg.index(after: close)...]))
        }
        if segments.first?.name != nil {
            precondition(segments.count == 1, "only a one-segment pattern starts with a parameter: \(pattern)")
            rootParameters.append(routes.count)
        } else {
            byFirstSegment[segments.first?.prefix ?? "", default: []].append(routes.count)
        }
        routes.append(Route(method: method, segments: Array(segments), handler: handler))
        names.append(method + " " + pattern)
        if !pattern.contains("{") { literal[method + " " + pattern] = (handler, names.count - 1) }
    }

    func match(method: String, path: String) -> Match {
        if let (handler, index) = literal[method + " " + path] { return .found(handler, PathParameters(), route: index) }
        let parts = Self.segments(path)
        var pathMatched: Handler?
        let candidates = byFirstSegment[String(parts[0])] ?? []
        for index in candidates {
            let route = routes[index]
            guard route.segments.count == parts.count, let params = Self.bind(route.segments, parts) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route.handler, params, route: index)
            }
            pathMatched = route.handler
        }
        if let pathMatched { return .methodNotAllowed(pathMatched) }
        if parts.count == 1 {
            for index in rootParameters where routes[index].method == method {
                if let params = Self.bind(routes[index].segments, parts) {
                    return .found(routes[index].handler, params, route: index)
                }
            }
        }
        return .notFound(candidates.first.map { routes[$0].handler })
    }

    /// The path's segments after the leading `/`, split on bytes (not grapheme clusters).
    static func segments(_ path: String) -> [Substring] {
        let utf8 = path.utf8
        var parts: [Substring] = []
        var start = utf8.startIndex
        if start < utf8.endIndex, utf8[start] == UInt8(ascii: "/") { start = utf8.index(after: start) }
        var i = start
        while i < utf8.endIndex {
            if utf8[i] == UInt8(ascii: "/") {
                parts.append(Substring(utf8[start..<i]))
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        parts.append(Substring(utf8[start..<utf8.endIndex]))
        return parts
    }

    private static func bind(_ segments: [Segment], _ parts: [Substring]) -> PathParameters? {
        // Literal segments first: most routes fail there, before any parameter is decoded.
        for (seg, part) in zip(segments, parts) where seg.name == nil && part != seg.prefix { return nil }
        var params: [PathParameters.Bound] = []
        for (seg, part) in zip(segments, parts) {
            guard let name = seg.name else { continue }
            guard part.utf8.count > seg.prefix.utf8.count + seg.suffix.utf8.count,
                part.hasPrefix(seg.prefix), part.hasSuffix(seg.suffix)
            else { return nil }
            let raw = Substring(part.utf8.dropFirst(seg.prefix.utf8.count).dropLast(seg.suffix.utf8.count))
            guard let value = URLCoding.percentDecode(raw) else { return nil }
            params.append(PathParameters.Bound(name: name, value: value))
        }
        return PathParameters(params)
    }
}
