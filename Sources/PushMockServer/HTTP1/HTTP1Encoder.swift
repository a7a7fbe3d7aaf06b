import Glibc
import PushMockCore

/// HTTP/1.x answers as bytes: the status line in the request's version, the answer's own
/// fields, then `Date`, `Content-Length` and `Connection` (which the gateway never sets), and
/// the body. One buffer of its own (`OwnedBytes`) is reused for every answer and handed over
/// in place; the head and the body are written straight into it.
/// The head's start (the status line, the answer's fields and `Date`) is kept and used again
/// while answers repeat it: within a second, most answers have the status and the shared
/// field list of the one before.
struct HTTP1Encoder: ~Copyable {
    private var scratch = OwnedBytes(capacity: 1024)
    private var dateSecond = -1
    private var date: [UInt8] = []
    private var start = HeadStart()

    /// A whole answer, handed to `send` (valid during the call). `close`: the connection ends
    /// after it.
    mutating func answer(_ response: Response, to head: HTTP1Head, close: Bool, send: (UnsafeRawBufferPointer) -> Void) {
        scratch.removeAll()
        // 1xx, 204 and 304 answers have no body and no length (RFC 9110 §8.6).
        let bodiless = response.status < 200 || response.status == 204 || response.status == 304
        let connection: StaticString? = close ? "Connection: close\r\n" : head.isHTTP10 ? "Connection: keep-alive\r\n" : nil
        writeHead(response, http10: head.isHTTP10) { w in
            if !bodiless {
                w.append("Content-Length: ")
                w.appendDecimal(Int64(response.body.count))
                w.append("\r\n")
            }
            if let connection { w.append(connection) }
        }
        if !bodiless, head.method != "HEAD" { response.body.withUnsafeBufferPointer { scratch.append($0) } }
        send(UnsafeRawBufferPointer(scratch.bytes))
    }

    /// A streamed answer's head: chunked over HTTP/1.1; over HTTP/1.0 the body runs until
    /// the connection closes.
    static func streamHead(_ response: Response, to head: HTTP1Head, chunked: Bool) -> [UInt8] {
        var e = HTTP1Encoder()
        e.writeHead(response, http10: head.isHTTP10) { w in
            w.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n")
        }
        return e.scratch.array
    }

    /// One chunk of a chunked body.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array(String(bytes.count, radix: 16).utf8)
        out.reserveCapacity(out.count + bytes.count + 4)
        out += [0x0D, 0x0A]
        out += bytes
        out += [0x0D, 0x0A]
        return out
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// The head's start, what `tail` writes and the blank line, added to `scratch`.
    private mutating func writeHead(_ response: Response, http10: Bool, tail: (inout OwnedBytes) -> Void) {
        refreshDate()
        if !start.fits(response, http10: http10) { start = HeadStart(response, http10: http10, date: date) }
        scratch.append(start.bytes)
        tail(&scratch)
        scratch.append("\r\n")
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7), formatted once a second; a new
    /// second lets go of the head's start, which holds the last one.
    private mutating func refreshDate() {
        let now = time(nil)
        guard now != dateSecond else { return }
        dateSecond = now
        start = HeadStart()
        var t = tm()
        var seconds = now
        gmtime_r(&seconds, &t)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        date = Array(
            "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) \(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
                .utf8)
    }
}

/// An answer's head up to the end of its `Date` line: the status line, the answer's fields,
/// `Date`; and the status, version and fields it was written for.
private struct HeadStart {
    private(set) var bytes: [UInt8] = []
    private var status = -1
    private var http10 = false
    private var fields: [(name: String, value: String)] = []

    init() {}

    init(_ response: Response, http10: Bool, date: [UInt8]) {
        status = response.status
        self.http10 = http10
        fields = response.headers
        let reason = HTTPStatus.reason(response.status)
        var w = OwnedBytes(capacity: 256)
        w.append(http10 ? "HTTP/1.0 " : "HTTP/1.1 ")
        w.appendDecimal(Int64(response.status))
        w.append(" ")
        reason.withBytes { w.append($0) }
        w.append("\r\n")
        for (name, value) in response.headers {
            name.withBytes { w.append($0) }
            w.append(": ")
            value.withBytes { w.append($0) }
            w.append("\r\n")
        }
        w.append("Date: ")
        w.append(date)
        w.append("\r\n")
        bytes = w.array
    }

    /// Whether this is `response`'s head start. Fields from one shared list (as
    /// `Response.json` gives) compare at once: equal Strings with the same storage are equal
    /// without reading their bytes.
    func fits(_ response: Response, http10: Bool) -> Bool {
        guard response.status == status, http10 == self.http10, response.headers.count == fields.count else { return false }
        for (i, field) in response.headers.enumerated() where field.name != fields[i].name || field.value != fields[i].value {
            return false
        }
        return true
    }
}
