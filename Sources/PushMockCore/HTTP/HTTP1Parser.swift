import Glibc

/// An HTTP/1.x request's head (RFC 9112 §3–6): what the front door needs to read its body
/// and to answer it.
public struct HTTP1Head {
    public enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    public var method: String
    /// As sent (origin form, still percent-encoded).
    public var target: String
    public var headers: [(name: String, value: String)]
    public var isHTTP10: Bool
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool
    public var framing: Framing
    /// `Expect: 100-continue`: the client waits for an interim answer before the body.
    public var expectsContinue: Bool

    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], isHTTP10: Bool = false,
        keepAlive: Bool = true, framing: Framing = .none, expectsContinue: Bool = false
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.isHTTP10 = isHTTP10
        self.keepAlive = keepAlive
        self.framing = framing
        self.expectsContinue = expectsContinue
    }
}

/// Reads request heads from bytes: pure, no I/O. Nothing is decoded until the whole head is
/// there, so a head arriving a byte at a time costs a scan per read, not a parse. Clients
/// repeat their heads: a head with the bytes of the last one read is the last one's reading,
/// and otherwise the Strings the last request had at the same place (target, each header by
/// position) are reused where the bytes are the same.
public struct HTTP1HeadParser {
    public enum Outcome {
        /// More bytes are needed.
        case incomplete
        /// A head `length` bytes long (blank line included).
        case head(HTTP1Head, length: Int)
        /// Malformed, or longer than the limit: answered with 400, then closed.
        case invalid
    }

    /// The methods pushmock's routes know; any other is refused.
    static let methods = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PATCH"]

    public let maxHeadBytes: Int
    private var lastTarget = ""
    private var lastFields: [(name: String, value: String)] = []
    /// How many fields the previous head had: the next head's array is given room for as many
    /// (a client repeats its heads, and a kept send keeps the array, spare room included).
    private var lastFieldCount = 8
    /// The last head read whole (from its request line to its blank line, at most
    /// `maxRememberedHead` bytes) and what it read as. Only a valid head is remembered, so
    /// the same bytes again are valid and read the same.
    private var lastHeadBytes: [UInt8] = []
    private var lastHead: HTTP1Head?
    static let maxRememberedHead = 4096

    public init(maxHeadBytes: Int) {
        self.maxHeadBytes = maxHeadBytes
    }

    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let b = bytes.bindMemory(to: UInt8.self)
        // Blank lines before a request line are ignored (RFC 9112 §2.2).
        var start = 0
        while start < b.count, b[start] == 0x0D || b[start] == 0x0A { start += 1 }
        // Bytes that begin with the last head's, its blank line included, are that head: it
        // ends where the last one did, so its end is not looked for.
        if let lastHead, b.count - start >= lastHeadBytes.count, start + lastHeadBytes.count <= maxHeadBytes,
            lastHeadBytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, b.baseAddress! + start, $0.count) == 0 })
        {
            return .head(lastHead, length: start + lastHeadBytes.count)
        }
        guard let end = Self.headEnd(b, from: start) else { return b.count >= maxHeadBytes ? .invalid : .incomplete }
        guard end <= maxHeadBytes else { return .invalid }
        let whole = UnsafeBufferPointer(rebasing: b[start..<end])
        guard let head = read(b, from: start, to: end) else { return .invalid }
        lastHead = nil
        if whole.count <= Self.maxRememberedHead {
            lastHeadBytes.removeAll(keepingCapacity: true)
            lastHeadBytes.append(contentsOf: whole)
            lastHead = head
        }
        return .head(head, length: end)
    }

    /// The head in `b[start..<end]` (its blank line included), or nil when it is not valid.
    private mutating func read(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> HTTP1Head? {
        var lines = Lines(bytes: b, position: start, end: end)
        guard let requestLine = lines.next(), let (method, targetRange, isHTTP10) = Self.requestLine(b, requestLine) else {
            return nil
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lastFieldCount)
        var length: Int?
        var chunked = false
        var close = false
        var keepAlive = false
        var expectsContinue = false
        var hosts = 0
        var hostField = 0
        while let line = lines.next(), !line.isEmpty {
            guard let (nameRange, valueRange) = Self.field(b, line) else { return nil }
            let name = UnsafeBufferPointer(rebasing: b[nameRange])
            let value = UnsafeBufferPointer(rebasing: b[valueRange])
            switch name.count {
            case 14 where Request.equalsLowercased(name, "content-length"):
                guard let n = Self.decimal(value), length == nil || length == n else { return nil }
                length = n
            case 17 where Request.equalsLowercased(name, "transfer-encoding"):
                // Only chunked is understood (a coding before it, `gzip, chunked`, is not: RFC
                // 9112 §6.1 lets a server refuse what it does not implement), and it may be
                // applied once (§7.1), in any number of fields.
                var times = 0
                var others = 0
                Self.eachToken(of: value) { if Request.equalsLowercased($0, "chunked") { times += 1 } else { others += 1 } }
                guard times == 1, others == 0, !chunked else { return nil }
                chunked = true
            case 4 where Request.equalsLowercased(name, "host"):
                // `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2): a server must answer
                // an invalid Host with 400.
                guard Self.isHost(value) else { return nil }
                hosts += 1
                hostField = headers.count
            case 10 where Request.equalsLowercased(name, "connection"):
                Self.eachToken(of: value) { token in
                    if Request.equalsLowercased(token, "close") { close = true }
                    if Request.equalsLowercased(token, "keep-alive") { keepAlive = true }
                }
            case 6 where Request.equalsLowercased(name, "expect"):
                expectsContinue = Request.equalsLowercased(value, "100-continue")
            default: break
            }
            let position = headers.count
            if position == lastFields.count, position < 64 { lastFields.append(("", "")) }
            if position < lastFields.count {
                headers.append(
                    (Self.text(name, last: &lastFields[position].name), Self.text(value, last: &lastFields[position].value)))
            } else {
                headers.append((Self.text(name), Self.text(value)))
            }
        }
        lastFieldCount = headers.count
        // Exactly one Host in HTTP/1.1 (RFC 9112 §3.2); at most one in HTTP/1.0.
        guard hosts == 1 || (isHTTP10 && hosts == 0) else { return nil }
        // Both framings: read as chunked, and close after the answer (RFC 9112 §6.3).
        if chunked, length != nil { close = true }
        let framing: HTTP1Head.Framing = chunked ? .chunked : length.map { .length($0) } ?? .none
        var target = Self.text(UnsafeBufferPointer(rebasing: b[targetRange]), last: &lastTarget)
        if b[targetRange.lowerBound] != UInt8(ascii: "/") {
            // The absolute form, `http://host/path` (RFC 9112 §3.2.2: a server must accept
            // it): its authority is the request's host, its path and query the target.
            guard let (authority, path) = Self.absoluteForm(target) else { return nil }
            if hosts == 1 { headers[hostField].value = authority } else { headers.append(("Host", authority)) }
            target = path
        }
        let head = HTTP1Head(
            method: method, target: target, headers: headers, isHTTP10: isHTTP10,
            keepAlive: isHTTP10 ? keepAlive && !close : !close, framing: framing,
            expectsContinue: expectsContinue && !isHTTP10)
        return head
    }

    /// Whether a Host value is `uri-host [ ":" port ]`: a registered name or IPv4 address of
    /// unreserved, sub-delim and percent-escape characters, or a bracketed IP literal, and a
    /// port of digits. An empty value is allowed (RFC 9112 §3.2).
    static func isHost(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if v.first == UInt8(ascii: "[") {
            guard let close = v.firstIndex(of: UInt8(ascii: "]")) else { return false }
            for c in v[1..<close] where !(isHex(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")) { return false }
            i = close + 1
        } else {
            while i < v.count, v[i] != UInt8(ascii: ":") {
                switch v[i] {
                // Letters, digits, and `-._~!$&'()*+,;=%` (a switch: every request reads its Host).
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x21, 0x24, 0x25, 0x26...0x2C, 0x3B, 0x3D:
                    break
                default: return false
                }
                i += 1
            }
        }
        guard i < v.count else { return true }
        guard v[i] == UInt8(ascii: ":"), v.count - i - 1 <= 5 else { return false }
        return v[(i + 1)...].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    /// `http://authority/path?query` (either scheme, any case): the authority and the target
    /// in origin form (`/` when the path is empty); nil for anything else.
    static func absoluteForm(_ target: String) -> (authority: String, path: String)? {
        let lower = target.prefix(8).lowercased()
        let skip = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        guard skip > 0 else { return nil }
        let rest = target.utf8.dropFirst(skip)
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let authority = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        guard !authority.isEmpty, !authority.contains("@"),
            authority.utf8.withContiguousStorageIfAvailable(isHost) ?? Array(authority.utf8).withUnsafeBufferPointer(isHost)
        else { return nil }
        let path = String(decoding: rest[end...], as: UTF8.self)
        return (authority, path.hasPrefix("/") ? path : "/" + path)
    }

    /// The request line of a head that could not be read whole, if that line can be: a
    /// framing error is answered in the shape of its path's API.
    public static func requestLine(of bytes: UnsafeRawBufferPointer) -> Request? {
        let b = bytes.bindMemory(to: UInt8.self)
        var start = 0
        while start < b.count, b[start] == 0x0D || b[start] == 0x0A { start += 1 }
        var lines = Lines(bytes: b, position: start, end: b.count)
        guard let line = lines.next(), let (method, target, _) = requestLine(b, line) else { return nil }
        return Request(method: method, target: String(decoding: UnsafeBufferPointer(rebasing: b[target]), as: UTF8.self))
    }

    /// The offset just past the blank line that ends the head (CRLF CRLF, or bare LFs).
    private static func headEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        while i < b.count {
            guard let lf = b.index(of: 0x0A, in: i..<b.count) else { return nil }
            var next = lf + 1
            if next < b.count, b[next] == 0x0D { next += 1 }
            if next < b.count, b[next] == 0x0A { return next + 1 }
            i = lf + 1
        }
        return nil
    }

    /// The head's lines, without their CR LF.
    private struct Lines {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        mutating func next() -> Range<Int>? {
            guard position < end, let lf = bytes.index(of: 0x0A, in: position..<end) else { return nil }
            let line = position..<(lf > position && bytes[lf - 1] == 0x0D ? lf - 1 : lf)
            position = lf + 1
            return line
        }
    }

    /// `METHOD SP target SP HTTP/1.x`: the method (one pushmock's routes know), the target's
    /// bytes and whether it is HTTP/1.0.
    private static func requestLine(_ b: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> (String, Range<Int>, Bool)? {
        guard let sp1 = b.index(of: 0x20, in: line), let sp2 = b.lastIndex(of: 0x20, in: (sp1 + 1)..<line.upperBound),
            sp2 > sp1 + 1
        else { return nil }
        let methodBytes = UnsafeBufferPointer(rebasing: b[line.lowerBound..<sp1])
        guard let method = methods.first(where: { $0.hasBytes(methodBytes) }) else { return nil }
        let target = (sp1 + 1)..<sp2
        // No spaces or control bytes inside the target.
        guard !b.any(in: target, { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        let version = UnsafeBufferPointer(rebasing: b[(sp2 + 1)..<line.upperBound])
        guard version.count == 8, "HTTP/1.".hasBytes(UnsafeBufferPointer(rebasing: version[0..<7])),
            version[7] >= 0x30, version[7] <= 0x39
        else { return nil }
        return (method, target, version[7] == 0x30)
    }

    /// `name: value`: a token name (no space before the colon), the value without the spaces
    /// around it. Obsolete line folding and control bytes are refused.
    private static func field(_ b: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> (Range<Int>, Range<Int>)? {
        guard let colon = b.index(of: UInt8(ascii: ":"), in: line), colon > line.lowerBound,
            !b.any(in: line.lowerBound..<colon, { !isTokenByte($0) })
        else { return nil }
        var from = colon + 1
        var to = line.upperBound
        while from < to, b[from] == 0x20 || b[from] == 0x09 { from += 1 }
        while to > from, b[to - 1] == 0x20 || b[to - 1] == 0x09 { to -= 1 }
        guard !hasControlByte(b, in: from..<to) else { return nil }
        return (line.lowerBound..<colon, from..<to)
    }

    /// Whether a field value holds a control byte other than tab, or DEL: eight bytes at a
    /// time until a word may hold one, then a byte at a time.
    private static func hasControlByte(_ b: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Bool {
        var i = range.lowerBound
        if let base = b.baseAddress {
            while i + 8 <= range.upperBound {
                let w = ByteWord.load(base + i)
                if ByteWord.controlMask(w) | ByteWord.mask(of: 0x7F, in: w) != 0 { break }
                i += 8
            }
        }
        return b.any(in: i..<range.upperBound) { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    private static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        // tchar (RFC 9110 §5.6.2): letters, digits and `!#$%&'*+-.^_`|~`, listed as cases (a
        // search of a string's bytes is a generic scan, and most names hold a hyphen).
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// A Content-Length: digits only, at most 18 of them.
    private static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !b.isEmpty, b.count <= 18 else { return nil }
        var n = 0
        for c in b {
            guard c >= 0x30, c <= 0x39 else { return nil }
            n = n * 10 + Int(c - 0x30)
        }
        return n
    }

    /// Calls `body` with each comma-separated token of a header value, spaces trimmed.
    private static func eachToken(of b: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        while start <= b.count {
            let comma = b.index(of: UInt8(ascii: ","), in: start..<b.count) ?? b.count
            var from = start
            var to = comma
            while from < to, b[from] == 0x20 || b[from] == 0x09 { from += 1 }
            while to > from, b[to - 1] == 0x20 || b[to - 1] == 0x09 { to -= 1 }
            body(UnsafeBufferPointer(rebasing: b[from..<to]))
            start = comma + 1
        }
    }

    private static func lastToken(of b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var last: UnsafeBufferPointer<UInt8>?
        eachToken(of: b) { last = $0 }
        return last
    }

    private static func text(_ b: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: b, as: UTF8.self)
    }

    /// `text(b)`, or `last` when it has the same bytes; the new text becomes `last`.
    private static func text(_ b: UnsafeBufferPointer<UInt8>, last: inout String) -> String {
        if !last.hasBytes(b) { last = text(b) }
        return last
    }
}

/// A chunked request body (RFC 9112 §7.1), decoded as it arrives: `feed` takes what bytes
/// are there and says how many it used, so nothing is scanned twice.
public struct ChunkedDecoder {
    public enum Outcome: Equatable {
        case needMore
        case done
        case invalid
        /// The decoded body would pass the limit.
        case tooLarge
    }

    private enum State {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer
    }

    public private(set) var body: [UInt8] = []
    private var state = State.size
    private var trailerBytes = 0
    let maxBytes: Int

    /// A chunk-size line (with extensions) or a trailer field longer than this is refused.
    public static let maxLine = 8192

    public init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, outcome: Outcome) {
        let b = bytes.bindMemory(to: UInt8.self)
        var i = 0
        while true {
            switch state {
            case .size:
                guard let lf = b.index(of: 0x0A, in: i..<b.count) else {
                    return (i, b.count - i > Self.maxLine ? .invalid : .needMore)
                }
                guard let size = Self.chunkSize(UnsafeBufferPointer(rebasing: b[i..<lf])) else { return (i, .invalid) }
                guard size <= maxBytes - body.count else { return (i, .tooLarge) }
                i = lf + 1
                state = size == 0 ? .trailer : .data(remaining: size)
                if size > 0 { body.reserveCapacity(body.count + size) }
            case .data(let remaining):
                let n = min(remaining, b.count - i)
                guard n > 0 else { return (i, .needMore) }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<(i + n)]))
                i += n
                state = n == remaining ? .dataEnd : .data(remaining: remaining - n)
            case .dataEnd:
                guard i < b.count else { return (i, .needMore) }
                if b[i] == 0x0D {
                    guard i + 1 < b.count else { return (i, .needMore) }
                    guard b[i + 1] == 0x0A else { return (i, .invalid) }
                    i += 2
                } else {
                    guard b[i] == 0x0A else { return (i, .invalid) }
                    i += 1
                }
                state = .size
            case .trailer:
                // Trailer fields are read and ignored, up to a blank line.
                guard let lf = b.index(of: 0x0A, in: i..<b.count) else {
                    return (i, trailerBytes + b.count - i > Self.maxLine ? .invalid : .needMore)
                }
                let blank = lf == i || (lf == i + 1 && b[i] == 0x0D)
                trailerBytes += lf + 1 - i
                i = lf + 1
                if blank { return (i, .done) }
                if trailerBytes > Self.maxLine { return (i, .invalid) }
            }
        }
    }

    /// Hex digits, then optional `;extensions`; at most 15 digits.
    private static func chunkSize(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        var n = 0
        var digits = 0
        for c in line {
            let v: Int
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = Int(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = Int(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = Int(c - UInt8(ascii: "A") + 10)
            case UInt8(ascii: ";"), 0x0D, 0x20, 0x09:
                return digits > 0 ? n : nil
            default: return nil
            }
            digits += 1
            guard digits <= 15 else { return nil }
            n = n * 16 + v
        }
        return digits > 0 ? n : nil
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Where `byte` first is in `range` (memchr). The scans here avoid the generic
    /// collection algorithms on slices: unoptimized builds (the tests', ASan's) allocate for
    /// every element those touch, megabytes for one large head.
    func index(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = baseAddress, let found = memchr(base + range.lowerBound, Int32(byte), range.count) else {
            return nil
        }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    /// Where `byte` last is in `range`.
    func lastIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard let base = baseAddress else { return nil }
        var i = range.upperBound
        while i > range.lowerBound {
            i -= 1
            if base[i] == byte { return i }
        }
        return nil
    }

    /// Whether a byte in `range` passes `test`.
    func any(in range: Range<Int>, _ test: (UInt8) -> Bool) -> Bool {
        guard let base = baseAddress else { return false }
        for i in range where test(base[i]) { return true }
        return false
    }
}
