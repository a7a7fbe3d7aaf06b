/// Google's own front end answers unknown paths and methods on its API hosts with HTML.
public enum GoogleFrontEnd {
    /// A bare 503 with the back-off it asks for: FCM's legacy API when the delivery log cannot
    /// be written.
    static let unavailable = Response(
        status: 503, headers: [("Retry-After", "10"), ("Content-Type", "text/plain; charset=UTF-8")],
        body: Array("Unavailable".utf8))

    /// A Google REST API's 503 (`google.rpc.Status`), retry in 10 s.
    static let restUnavailable: Response = {
        var r = Response.googleError(503, "UNAVAILABLE", "The service is currently unavailable.")
        r.headers.append(("Retry-After", "10"))
        return r
    }()

    /// Its answer to a request it cannot read: 400 when malformed, 413 when too large.
    public static func framingError(_ status: Int) -> Response {
        status == 413
            ? page(413, "Request Entity Too Large", "Your client issued a request that was too large.")
            : page(400, "Bad Request", "Your client has issued a malformed or illegal request.")
    }

    static func notFound(_ path: String) -> Response {
        page(404, "Not Found", "The requested URL <code>\(escape(path))</code> was not found on this server.")
    }

    static func methodNotAllowed(_ method: String, _ path: String) -> Response {
        page(
            405, "Method Not Allowed",
            "The request method <code>\(escape(method))</code> is inappropriate for the URL <code>\(escape(path))</code>.")
    }

    static func page(_ status: Int, _ title: String, _ text: String) -> Response {
        .html(
            status,
            """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <title>Error \(status) (\(title))!!1</title>
              <p><b>\(status).</b> <ins>That’s an error.</ins>
              <p>\(text)  <ins>That’s all we know.</ins>

            """)
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

/// The answers of a service behind Google's front end: its HTML pages for unknown paths and
/// methods and for requests it cannot read; `unavailable` is the service's own 503.
final class GoogleFrontEndStyle: AnswerStyle, Sendable {
    let unavailable: Response
    let exposure: Exposure.Scope

    init(unavailable: Response, exposure: Exposure.Scope = .anyone) {
        self.unavailable = unavailable
        self.exposure = exposure
    }

    /// FCM's legacy API and pushmock's own site, whose 503 is a bare `Unavailable`.
    static let plain = GoogleFrontEndStyle(unavailable: GoogleFrontEnd.unavailable)
    /// A Google REST API (OAuth, the Data API).
    static let rest = GoogleFrontEndStyle(unavailable: GoogleFrontEnd.restUnavailable)

    func notFound(_ request: Request) -> Response { GoogleFrontEnd.notFound(request.path) }
    func methodNotAllowed(_ request: Request) -> Response { GoogleFrontEnd.methodNotAllowed(request.method, request.path) }
    func framingError(_ error: FramingError, _ request: Request) -> Response {
        GoogleFrontEnd.framingError(error == .tooLarge ? 413 : 400)
    }
    func storeUnavailable(_ request: Request) -> Response { unavailable }
}
