/// Why the server could not start or keep running, from a failed libevent or socket call.
public struct ServerError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
