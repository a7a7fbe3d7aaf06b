/// How one service answers what its routes do not write themselves: a path no route serves,
/// a method its routes do not take, a request the transport could not read whole, and a send
/// whose events cannot be made durable. Each module gives its route groups one (Google's front
/// end, APNs, the control API); the gateway applies it without knowing whose it is. A path no
/// route serves takes the style of the routes under its first path segment. A class: every
/// request carries its route's style along, which then costs one reference.
protocol AnswerStyle: AnyObject {
    func notFound(_ request: Request) -> Response
    func methodNotAllowed(_ request: Request) -> Response
    /// The answer when the request was not read whole: its method and path when the request
    /// line was, and no body. The connection closes after it.
    func framingError(_ error: FramingError, _ request: Request) -> Response
    /// The answer when the delivery log cannot be written, with the back-off the service asks.
    func storeUnavailable(_ request: Request) -> Response
    /// Who may call the group's routes (docs/exposure.md).
    var exposure: Exposure.Scope { get }
    /// Whether a request of this service leaves an HTTP/2 connection in its start-up limit
    /// (APNs' one stream until a valid provider token); every other service lifts it.
    var keepsConnectionStart: Bool { get }
}

extension AnswerStyle {
    var exposure: Exposure.Scope { .anyone }
    var keepsConnectionStart: Bool { false }
}

/// Why the transport could not read a request whole.
public enum FramingError: Sendable {
    /// A request line, header or chunk that does not parse.
    case malformed
    /// A head over its bound, or a body over `--max-body-bytes`.
    case tooLarge
}
