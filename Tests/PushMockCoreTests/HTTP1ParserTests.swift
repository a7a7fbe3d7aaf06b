import Testing

@testable import PushMockCore

@Suite("HTTP/1.1 request heads and chunked bodies")
struct HTTP1ParserTests {
    func parse(_ text: String, max: Int = 64 * 1024) -> HTTP1HeadParser.Outcome {
        var parser = HTTP1HeadParser(maxHeadBytes: max)
        return Array(text.utf8).withUnsafeBytes { parser.parse($0) }
    }

    func head(_ text: String) throws -> (HTTP1Head, Int) {
        guard case .head(let h, let length) = parse(text) else { throw Failure(text) }
        return (h, length)
    }

    struct Failure: Error {
        let text: String
        init(_ t: String) { text = t }
    }

    func isInvalid(_ text: String) -> Bool { isInvalid(parse(text)) }

    func isInvalid(_ outcome: HTTP1HeadParser.Outcome) -> Bool {
        if case .invalid = outcome { return true }
        return false
    }

    func isIncomplete(_ text: String) -> Bool {
        if case .incomplete = parse(text) { return true }
        return false
    }

    @Test("a request line and its fields; the length ends at the blank line, whatever follows")
    func parsesHead() throws {
        let text = "POST /fcm/send?x=1 HTTP/1.1\r\nHost: a\r\nContent-Type:  application/json \r\nContent-Length: 2\r\n\r\n{}"
        let (h, length) = try head(text)
        #expect(h.method == "POST" && h.target == "/fcm/send?x=1" && !h.isHTTP10 && h.keepAlive)
        #expect(h.headers.map(\.name) == ["Host", "Content-Type", "Content-Length"])
        #expect(h.headers[1].value == "application/json")
        #expect(h.framing == .length(2) && !h.expectsContinue)
        #expect(length == text.utf8.count - 2)
        // Bare LFs, and blank lines before the request line.
        let (bare, bareLength) = try head("\r\n\nGET / HTTP/1.1\nHost: a\n\nGET")
        #expect(bare.method == "GET" && bare.target == "/" && bareLength == "\r\n\nGET / HTTP/1.1\nHost: a\n\n".utf8.count)
    }

    @Test("incomplete until the blank line; refused past the limit")
    func incomplete() throws {
        #expect(isIncomplete(""))
        #expect(isIncomplete("GET / HTTP/1.1\r\nHost: a\r\n"))
        #expect(isIncomplete("GET / HTTP/1.1\r\nHost: a\r\n\r"))
        if case .invalid = parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100), max: 64) {
        } else {
            Issue.record("a head past the limit without its end is refused")
        }
        if case .invalid = parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n", max: 64) {
        } else {
            Issue.record("a whole head past the limit is refused")
        }
    }

    @Test(
        "keep-alive by version and Connection; chunked over Content-Length, then close; Expect: 100-continue; one Host")
    func semantics() throws {
        #expect(try !head("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n").0.keepAlive)
        #expect(try !head("GET / HTTP/1.1\r\nHost: a\r\nConnection: te, close\r\n\r\n").0.keepAlive)
        #expect(try !head("GET / HTTP/1.0\r\n\r\n").0.keepAlive)
        let ten = try head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").0
        #expect(ten.keepAlive && ten.isHTTP10)
        let both = try head("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nContent-Length: 5\r\n\r\n").0
        #expect(both.framing == .chunked && !both.keepAlive)
        #expect(try head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n").0.framing == .length(5))
        #expect(try head("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\n").0.expectsContinue)
        #expect(try !head("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n").0.expectsContinue)
    }

    @Test("the absolute form is accepted: its authority is the host, its path the target; valid Host values are taken")
    func absoluteForm() throws {
        let h = try head("GET http://localhost:4010/healthz?x=1 HTTP/1.1\r\nHost: other\r\n\r\n").0
        #expect(h.target == "/healthz?x=1" && h.headers.first { $0.name == "Host" }?.value == "localhost:4010")
        let bare = try head("GET HTTPS://fcm.googleapis.com HTTP/1.0\r\n\r\n").0
        #expect(bare.target == "/" && bare.headers.first { $0.name == "Host" }?.value == "fcm.googleapis.com")
        for host in ["", "localhost", "127.0.0.1:4010", "[::1]:4010", "[::1]", "fcm.googleapis.com", "a-b_c~d.e:0"] {
            #expect(try head("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n").0.target == "/", "\(host)")
        }
    }

    @Test("malformed heads are refused")
    func refused() throws {
        for text in [
            "BREW / HTTP/1.1\r\n\r\n", // a method no route knows
            "GET /\r\n\r\n", // no version
            "GET  HTTP/1.1\r\n\r\n", // no target
            "GET / HTTP/2.0\r\n\r\n",
            "GET /a b HTTP/1.1\r\n\r\n", // a space in the target
            "GET / HTTP/1.1\r\nHost : a\r\n\r\n", // a space before the colon
            "GET / HTTP/1.1\r\n: a\r\n\r\n", // no name
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", // obsolete line folding
            "GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", // a control byte
            "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", // only chunked is understood
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            "GET / HTTP/1.1\r\n\r\n", // no Host (RFC 9112 §3.2)
            "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", // two
            "GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", // chunked twice (§7.1)
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", // a coding pushmock cannot undo
            "GET healthz HTTP/1.1\r\nHost: a\r\n\r\n", // neither origin nor absolute form
            "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET ftp://a/healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET http://u@a/healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET http:///healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: local host\r\n\r\n", // an invalid Host (RFC 9112 §3.2)
            "GET / HTTP/1.1\r\nHost: localhost:abc\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: localhost:123456\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a@b\r\n\r\n",
        ] {
            #expect(isInvalid(text), "\(text.debugDescription)")
        }
    }

    @Test("a field name is a token: every tchar is taken, any other byte refused (RFC 9110 §5.6.2)")
    func fieldNames() throws {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8(0x21)...0xFF where byte != UInt8(ascii: ":") {
            let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX".utf8) + [byte] + Array("y: v\r\n\r\n".utf8)
            var parser = HTTP1HeadParser(maxHeadBytes: 1024)
            let outcome = bytes.withUnsafeBytes { parser.parse($0) }
            if tchars.contains(byte) {
                guard case .head(let h, _) = outcome else { throw Failure("refused \(byte)") }
                #expect(h.headers[1].name.utf8.elementsEqual([UInt8(ascii: "X"), byte, UInt8(ascii: "y")]))
            } else {
                #expect(isInvalid(outcome), "taken: \(byte)")
            }
        }
    }

    @Test("a control byte anywhere in a field value is refused, eight at a time or one by one; a tab is taken")
    func controlBytesInValues() throws {
        for length in 1...24 {
            for place in 0..<length {
                for control: UInt8 in [0x01, 0x0B, 0x1F, 0x7F] {
                    var value = Array(repeating: UInt8(ascii: "v"), count: length)
                    value[place] = control
                    // Keep the value's ends: spaces and tabs around it are trimmed, not checked.
                    value = [UInt8(ascii: "<")] + value + [UInt8(ascii: ">")]
                    let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX: ".utf8) + value + Array("\r\n\r\n".utf8)
                    var parser = HTTP1HeadParser(maxHeadBytes: 1024)
                    #expect(isInvalid(bytes.withUnsafeBytes { parser.parse($0) }), "\(length) \(place) \(control)")
                }
                var value = Array("<" + String(repeating: "v", count: length) + ">").map { UInt8($0.asciiValue!) }
                value[place + 1] = 0x09
                let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX: ".utf8) + value + Array("\r\n\r\n".utf8)
                var parser = HTTP1HeadParser(maxHeadBytes: 1024)
                guard case .head(let h, _) = bytes.withUnsafeBytes({ parser.parse($0) }) else { throw Failure("tab refused") }
                #expect(h.headers[1].value.utf8.elementsEqual(value))
            }
        }
    }

    @Test("bytes above 0x7F in the target and values are kept (repaired as text), never refused")
    func invalidUTF8() throws {
        var parser = HTTP1HeadParser(maxHeadBytes: 1024)
        let bytes = Array("GET /?q=".utf8) + [0xFF] + Array(" HTTP/1.1\r\nX: ".utf8) + [0xC3] + Array("\r\nHost: a\r\n\r\n".utf8)
        guard case .head(let h, _) = bytes.withUnsafeBytes({ parser.parse($0) }) else { throw Failure("refused") }
        #expect(h.target == "/?q=\u{FFFD}" && h.headers[0].value == "\u{FFFD}")
    }

    @Test("the next request with the same target and fields reuses them; a different one is read afresh")
    func reuse() throws {
        var parser = HTTP1HeadParser(maxHeadBytes: 1024)
        func next(_ text: String) throws -> HTTP1Head {
            guard case .head(let h, _) = Array(text.utf8).withUnsafeBytes({ parser.parse($0) }) else { throw Failure(text) }
            return h
        }
        let a = try next("GET /a HTTP/1.1\r\nX: 1\r\nY: 2\r\nHost: a\r\n\r\n")
        let b = try next("GET /a HTTP/1.1\r\nX: 1\r\nY: 3\r\nZ: 4\r\nHost: a\r\n\r\n")
        let c = try next("GET /b HTTP/1.1\r\nX: 5\r\nHost: a\r\n\r\n")
        #expect(a.target == "/a" && a.headers.map(\.value) == ["1", "2", "a"])
        #expect(b.target == "/a" && b.headers.map(\.value) == ["1", "3", "4", "a"])
        #expect(c.target == "/b" && c.headers.map(\.value) == ["5", "a"])
    }

    @Test("a head with the last head's bytes reads as it did; one byte apart, or invalid, it is read afresh")
    func repeatedHead() throws {
        var parser = HTTP1HeadParser(maxHeadBytes: 8192)
        func next(_ text: String) -> HTTP1HeadParser.Outcome { Array(text.utf8).withUnsafeBytes { parser.parse($0) } }
        func length(_ outcome: HTTP1HeadParser.Outcome) -> (framing: HTTP1Head.Framing, keepAlive: Bool, end: Int)? {
            guard case .head(let h, let end) = outcome else { return nil }
            return (h.framing, h.keepAlive, end)
        }
        let send = "POST /fcm/send HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n"
        let first = length(next(send + "{}"))
        #expect(first?.framing == .length(2) && first?.end == send.utf8.count)
        // Blank lines before it count in its length; what follows the head does not matter:
        // a body, the next head, a part of one.
        #expect(length(next("\r\n" + send + "[]"))?.end == send.utf8.count + 2)
        #expect(length(next(send + send))?.end == send.utf8.count)
        #expect(length(next(send + "GET /"))?.end == send.utf8.count)
        // Its bytes but the blank line's last one are not a head yet; past the longest head
        // (blank lines before it count) they are refused.
        if case .incomplete = next(String(send.dropLast())) {} else { Issue.record("a head without its blank line") }
        var short = HTTP1HeadParser(maxHeadBytes: send.utf8.count + 1)
        for text in [send, "\r\n\r\n" + send] {
            let outcome = Array(text.utf8).withUnsafeBytes { short.parse($0) }
            #expect(text == send ? length(outcome)?.end == send.utf8.count : isInvalid(outcome), "\(text.debugDescription)")
        }
        let longer = send.replacingOccurrences(of: "Length: 2", with: "Length: 3")
        #expect(length(next(longer))?.framing == .length(3))
        #expect(length(next(send))?.framing == .length(2))
        let closing = send.replacingOccurrences(of: "Host: a", with: "Host: a\r\nConnection: close")
        #expect(length(next(closing))?.keepAlive == false && length(next(send))?.keepAlive == true)
        // The same head but for a control byte in a value, or a second Host, is refused.
        #expect(isInvalid(next(send.replacingOccurrences(of: "Host: a", with: "Host: a\u{1}"))))
        #expect(isInvalid(next(send.replacingOccurrences(of: "Host: a", with: "Host: a\r\nHost: b"))))
        #expect(length(next(send))?.framing == .length(2))
        // A head longer than the remembered bound is read each time, and reads the same.
        let long = send.replacingOccurrences(of: "Host: a", with: "Host: a\r\nX: " + String(repeating: "x", count: 5000))
        #expect(length(next(long))?.framing == .length(2) && length(next(long))?.end == long.utf8.count)
    }

    func decode(_ pieces: [String], max: Int = 1 << 20) -> (ChunkedDecoder.Outcome, String, rest: String) {
        var decoder = ChunkedDecoder(maxBytes: max)
        var pending: [UInt8] = []
        var outcome = ChunkedDecoder.Outcome.needMore
        for piece in pieces {
            pending += Array(piece.utf8)
            repeat {
                let (consumed, o) = pending.withUnsafeBytes { decoder.feed($0) }
                pending.removeFirst(consumed)
                outcome = o
                if o != .needMore || consumed == 0 { break }
            } while true
            if outcome != .needMore { break }
        }
        return (outcome, String(decoding: decoder.body, as: UTF8.self), String(decoding: pending, as: UTF8.self))
    }

    @Test("chunked bodies: sizes in hex with extensions, trailers ignored, fed whole or a byte at a time")
    func chunked() throws {
        let wire = "5;name=v\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: 1\r\n\r\nGET /next"
        let whole = decode([wire])
        #expect(whole.0 == .done && whole.1 == "hello, world!!!" && whole.rest == "GET /next")
        let trickled = decode(wire.map { String($0) })
        #expect(trickled.0 == .done && trickled.1 == "hello, world!!!")
        #expect(decode(["3\nabc\n0\n\n"]).0 == .done)
        #expect(decode(["3\r\nab"]).0 == .needMore)
    }

    @Test("chunked bodies: bad sizes and missing line ends refused, a body past the limit too large")
    func chunkedRefused() throws {
        #expect(decode(["x\r\n"]).0 == .invalid)
        #expect(decode(["\r\n"]).0 == .invalid)
        #expect(decode(["1000000000000000\r\n"]).0 == .invalid)
        #expect(decode(["3\r\nabcX"]).0 == .invalid)
        #expect(decode([String(repeating: "1", count: 9000)]).0 == .invalid)
        #expect(decode(["0\r\n" + String(repeating: "X: y\r\n", count: 2000)]).0 == .invalid)
        #expect(decode(["5\r\nhello\r\n5\r\nworld\r\n"], max: 8).0 == .tooLarge)
        #expect(decode(["8\r\nhello wo\r\n0\r\n\r\n"], max: 8).0 == .done)
    }
}
