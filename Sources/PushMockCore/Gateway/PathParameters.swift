/// A route's path parameters, percent-decoded, read by typed key (`params[.project]`). The
/// router binds every parameter its pattern names; a key the route does not bind reads as nil,
/// which each handler answers as its service answers a missing part (a not-found, a missing
/// token), never a crash.
struct PathParameters {
    private let values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    subscript(_ key: PathKey) -> String? { values[key.name] }
}

/// The name of a path parameter, as a route's pattern spells it in braces.
struct PathKey: Hashable, Sendable {
    let name: String

    init(_ name: String) { self.name = name }

    static let project = PathKey("project")
    static let id = PathKey("id")
    static let token = PathKey("token")
    static let topic = PathKey("topic")
    static let app = PathKey("app")
    static let bridge = PathKey("bridge")
    static let messageID = PathKey("message_id")
}
