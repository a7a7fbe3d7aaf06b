/// A route's path parameters, percent-decoded, read by typed key (`params[.project]`). The
/// router binds every parameter its pattern names; a key the route does not bind reads as nil,
/// which each handler answers as its service answers a missing part (a not-found, a missing
/// token), never a crash.
struct PathParameters {
    /// One parameter the path bound.
    struct Bound {
        let name: String
        let value: String
    }

    /// In the pattern's order. A pattern names a few at most, so they are looked for in turn:
    /// a dictionary would hash the name on every look-up, and a send's route asks once or twice.
    private let bound: [Bound]

    init(_ bound: [Bound] = []) { self.bound = bound }

    /// One parameter, as a route would have bound it.
    init(_ key: PathKey, _ value: String) { bound = [Bound(name: key.name, value: value)] }

    /// (Lengths first: `==` on two Strings that differ calls into the run time.)
    subscript(_ key: PathKey) -> String? {
        let count = key.name.utf8.count
        for i in bound.indices where bound[i].name.utf8.count == count && bound[i].name == key.name {
            return bound[i].value
        }
        return nil
    }
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
