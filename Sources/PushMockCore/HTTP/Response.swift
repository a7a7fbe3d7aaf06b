/// One HTTP response as an adapter produced it; the transport writes it as is.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Shared, so answering does not allocate a header list.
    static let jsonHeaders: [(name: String, value: String)] = [("Content-Type", "application/json; charset=UTF-8")]

    public static func json(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: jsonHeaders, body: Array(text.utf8))
    }

    public static func json(_ status: Int, _ writer: borrowing JSONWriter) -> Response {
        Response(status: status, headers: jsonHeaders, body: writer.bytes)
    }

    public static func text(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "text/plain; charset=UTF-8")], body: Array(text.utf8))
    }

    public static func html(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Array(text.utf8))
    }

    /// Google's error shape (`google.rpc.Status`), used by the control API and the Google
    /// APIs: `{"error": {"code", "message", "status", "details"}}`; `details` holds encoded
    /// detail objects and is left out when empty.
    public static func googleError(_ code: Int, _ status: String, _ message: String, details: [String] = []) -> Response {
        var w = JSONWriter()
        w.beginObject()
        w.key("error")
        w.beginObject()
        w.member("code", code)
        w.member("message", message)
        w.member("status", status)
        if !details.isEmpty { w.array("details") { w in for d in details { w.raw(d) } } }
        w.endObject()
        w.endObject()
        return json(code, w)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
