import Glibc
import PushMockCore

/// HTTP/1.x answers as bytes: the status line in the request's version, the answer's own
/// fields, then `Date`, `Content-Length` and `Connection` (which the gateway never sets), and
/// the body. One buffer is reused for every answer.
struct HTTP1Encoder {
    private var scratch: [UInt8] = []
    private var dateSecond = -1
    private var date: [UInt8] = []

    /// A whole answer. `close`: the connection ends after it.
    mutating func answer(_ response: Response, to head: HTTP1Head, close: Bool) -> [UInt8] {
        scratch.removeAll(keepingCapacity: true)
        start(response, http10: head.isHTTP10)
        // 1xx, 204 and 304 answers have no body and no length (RFC 9110 §8.6).
        let bodiless = response.status < 200 || response.status == 204 || response.status == 304
        if !bodiless {
            append("Content-Length: ")
            appendDecimal(response.body.count)
            append("\r\n")
        }
        if close { append("Connection: close\r\n") } else if head.isHTTP10 { append("Connection: keep-alive\r\n") }
        append("\r\n")
        if !bodiless, head.method != "HEAD" { scratch.append(contentsOf: response.body) }
        return scratch
    }

    /// A streamed answer's head: chunked over HTTP/1.1; over HTTP/1.0 the body runs until
    /// the connection closes.
    static func streamHead(_ response: Response, to head: HTTP1Head, chunked: Bool) -> [UInt8] {
        var e = HTTP1Encoder()
        e.start(response, http10: head.isHTTP10)
        e.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n")
        e.append("\r\n")
        return e.scratch
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

    /// Status line, the answer's fields and `Date`.
    private mutating func start(_ response: Response, http10: Bool) {
        append(http10 ? "HTTP/1.0 " : "HTTP/1.1 ")
        appendDecimal(response.status)
        append(" ")
        scratch.append(contentsOf: HTTPStatus.reason(response.status).utf8)
        append("\r\n")
        // From the strings' bytes in place (appending a `utf8` view goes a byte at a time).
        for (name, value) in response.headers {
            name.withBytes { scratch.append(contentsOf: $0) }
            append(": ")
            value.withBytes { scratch.append(contentsOf: $0) }
            append("\r\n")
        }
        append("Date: ")
        scratch.append(contentsOf: currentDate())
        append("\r\n")
    }

    private mutating func append(_ s: StaticString) {
        scratch.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private mutating func appendDecimal(_ n: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalDigits.maxCount) { d in
            let start = DecimalDigits.write(UInt64(n), endingAt: d.count, in: d)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: d[start...]))
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7), formatted once a second.
    private mutating func currentDate() -> [UInt8] {
        let now = time(nil)
        if now != dateSecond {
            dateSecond = now
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
        return date
    }
}
