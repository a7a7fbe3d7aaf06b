import Foundation
import Testing

@Suite("The server on real loopback sockets", .serverTestLimit)
struct ServerTests {
    let auth = ["Authorization": "key=pushmock-dev-server-key"]

    @Test("--port 0 binds a free port, prints its URL, and /healthz answers 200")
    func health() throws {
        let server = try ServerProcess()
        #expect(
            server.log.contains("pushmock: HTTP/1.1 and h2c (FCM v1 and legacy, IID, OAuth, control API) on http://127.0.0.1:"))
        #expect(server.log.contains("pushmock: dashboard on http://127.0.0.1:\(server.port)/"))
        let r = try HTTPConnection(port: server.port).request("GET", "/healthz")
        #expect(r.status == 200)
        #expect(r.json["status"] as? String == "ok")
    }

    @Test("--access-log prints a line per request, so a wrong server key leaves a trace; off by default")
    func accessLog() throws {
        let server = try ServerProcess(["--access-log"])
        let c = try HTTPConnection(port: server.port)
        let r = try c.request("POST", "/fcm/send?token=secret", body: "{}", headers: ["Authorization": "key=wrong"])
        #expect(r.status == 401)
        usleep(200_000)
        #expect(server.log.contains("POST /fcm/send 401 "), "\(server.log)")
        #expect(!server.log.contains("secret"))
        let quiet = try ServerProcess()
        _ = try HTTPConnection(port: quiet.port).request("GET", "/healthz")
        usleep(200_000)
        #expect(!quiet.log.contains("GET /healthz"))
    }

    @Test(
        "run with sudo in another user's folder, the certificates stay that user's and readable; a folder the user cannot write is named with its owner",
        .enabled(if: getuid() == 0))
    func certificateOwnership() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-home-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        #expect(chown(home, 65534, 65534) == 0)
        let certs = home + "/.local/share/pushmock/certs"
        let server = try ServerProcess(["--cert-dir", certs])
        #expect(server.stop() == 0)
        for name in ["", "/ca.pem", "/ca-key.pem", "/server.pem"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: certs + name)
            #expect(attributes[.ownerAccountID] as? Int == 65534, "\(name)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: certs)[.posixPermissions] as? Int
        #expect(mode == 0o755)
        // As that user: the CA is readable, and pushmock starts on the same folder.
        let (read, pem) = try runCommand(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", certs + "/ca.pem"])
        #expect(read == 0 && pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        // A root-owned private folder, used by that user: the error says whose it is and what to do.
        let locked = home + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        chmod(locked, 0o700)
        let (status, out) = try runCommand(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", ServerProcess.binary.path, "--port", "0", "--cert-dir", locked])
        #expect(status != 0)
        #expect(out.contains("cannot write in the certificate directory \(locked)") && out.contains("belongs to root"), "\(out)")
        #expect(out.contains("sudo chown -R"))
    }

    @Test("--tls-port off needs no certificate directory: with none usable, the CA lives in memory")
    func noCertificateDirectory() throws {
        // A path under a regular file can never be created.
        let server = try ServerProcess(["--tls-port", "off", "--cert-dir", "/dev/null/pushmock-certs"])
        let c = try HTTPConnection(port: server.port)
        #expect(try c.request("GET", "/healthz").status == 200)
        let ca = try c.request("GET", "/emulator/v1/ca.pem")
        #expect(ca.status == 200 && ca.text.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(ca.text)")
        let issued = try c.request(
            "POST", "/emulator/v1/projects/demo-pushmock/apnsCertificates", body: #"{"bundle_id":"com.example.app"}"#)
        #expect(issued.status == 201, "\(issued.text)")
        #expect(server.stop() == 0)
        let (status, out) = try runCommand(
            ServerProcess.binary.path, ["--port", "0", "--tls-port", "0", "--cert-dir", "/dev/null/pushmock-certs"])
        #expect(status != 0 && out.contains("cannot create the certificate directory /dev/null/pushmock-certs"), "\(out)")
    }

    @Test("keep-alive: many requests on one connection are each answered once, in order", arguments: Port.allCases)
    func keepAlive(_ port: Port) throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(server, port)
        for i in 0..<20 {
            let r = try c.request("POST", "/fcm/send", body: #"{"to":"/topics/t\#(i)","data":{"i":"\#(i)"}}"#, headers: auth)
            #expect(r.status == 200)
            #expect(r.json["message_id"] != nil)
        }
        let events = try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")
        #expect(events.json["count"] as? Int == 20)
    }

    @Test(
        "a body is read byte for byte whether it comes with its head, in pieces, or larger than one read",
        arguments: Port.allCases)
    func bodiesWhole(_ port: Port) throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(server, port)
        for (blobBytes, pieces) in [(10, 1), (10, 7), (3000, 5), (300_000, 1), (300_000, 40)] {
            let blob = String((0..<blobBytes).map { i in Character(UnicodeScalar(UInt8(97 + i % 26))) })
            // An unknown member carries the bulk (FCM ignores it), so the data stays under 4 KB.
            let body = #"{"to":"/topics/t","data":{"k":"v"},"padding":"\#(blob)"}"#
            // Cut in equal pieces (the first may end inside the head), a pause after each.
            for piece in Self.pieces(Self.legacySend(body), pieces) {
                try c.write(piece)
                if pieces > 1 { usleep(5_000) }
            }
            let sent = try c.readReply()
            #expect(sent.status == 200, "\(blobBytes) bytes in \(pieces)")
            #expect(try Self.keptBody(sent, on: c) == body, "\(blobBytes) bytes in \(pieces)")
        }
    }

    @Test(
        "what one connection has sent of a request is kept while others are read and answered between its pieces",
        arguments: Port.allCases)
    func piecesBetweenOthers(_ port: Port) throws {
        let server = try ServerProcess()
        let slow = try HTTPConnection(server, port)
        let others = try (0..<3).map { _ in try HTTPConnection(server, port) }
        let body = #"{"to":"/topics/t","data":{"k":"\#(String(repeating: "s", count: 2000))"}}"#
        // The slow request in four pieces (the first ends inside the head); after each, the
        // others each send a whole request of other bytes and are answered.
        for piece in Self.pieces(Self.legacySend(body), 4) {
            try slow.write(piece)
            usleep(5_000)
            for (i, other) in others.enumerated() {
                let filler = String(repeating: "o", count: 500 * (i + 1))
                let reply = try other.request("GET", "/emulator/v1/nope-\(filler)")
                #expect(reply.status == 404)
            }
        }
        let sent = try slow.readReply()
        #expect(sent.status == 200)
        #expect(try Self.keptBody(sent, on: slow) == body)
    }

    /// A legacy send's whole HTTP/1.1 request for `body`.
    private static func legacySend(_ body: String) -> [UInt8] {
        Array(
            ("POST /fcm/send HTTP/1.1\r\nHost: a\r\nAuthorization: key=pushmock-dev-server-key\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    /// `bytes` cut in `n` pieces of one size (the last may be shorter).
    private static func pieces(_ bytes: [UInt8], _ n: Int) -> [[UInt8]] {
        let size = (bytes.count + n - 1) / n
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    /// The request body pushmock kept for the topic send `reply` answered.
    private static func keptBody(_ reply: HTTPConnection.Reply, on c: HTTPConnection) throws -> String? {
        let id = try #require(reply.json["message_id"] as? Int)
        let kept = try c.request("GET", "/emulator/v1/projects/demo-pushmock/messages/\(id)")
        return (kept.json["request"] as? [String: Any])?["body"] as? String
    }

    @Test(
        "an HTTP/1.x answer's head, byte for byte: the status line in the request's version, the answer's fields, Date, Content-Length, Connection",
        arguments: Port.allCases)
    func answerHeads(_ port: Port) throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(server, port)
        let date = try Regex(
            #"Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT\r\n"#
        )
        func expectHead(_ reply: HTTPConnection.Reply, _ first: String, _ last: String) {
            let shape = reply.head.replacing(date, with: "Date: *\r\n")
            #expect(
                shape == first + "Content-Type: application/json; charset=UTF-8\r\nDate: *\r\n" + last,
                "\(reply.head.debugDescription)")
        }
        try c.write("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        let ok = try c.readReply()
        expectHead(ok, "HTTP/1.1 200 OK\r\n", "Content-Length: 15\r\n")
        #expect(ok.text == #"{"status":"ok"}"#)
        // A HEAD answer has the length its GET would have, and no body: the next answer follows.
        try c.write("HEAD /healthz HTTP/1.1\r\nHost: a\r\n\r\nGET /emulator/v1/nope HTTP/1.1\r\nHost: a\r\n\r\n")
        expectHead(try c.readReply(bodiless: true), "HTTP/1.1 200 OK\r\n", "Content-Length: 15\r\n")
        let missing = try c.readReply()
        expectHead(missing, "HTTP/1.1 404 Not Found\r\n", "Content-Length: \(missing.body.count)\r\n")
        // The same status with other fields, then the first answer's fields again: the head
        // the encoder keeps is used only for answers it was written for.
        try c.write("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        let metrics = try c.readReply()
        #expect(
            metrics.head.replacing(date, with: "Date: *\r\n")
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nDate: *\r\nContent-Length: \(metrics.body.count)\r\n",
            "\(metrics.head.debugDescription)")
        expectHead(try c.readReply(), "HTTP/1.1 200 OK\r\n", "Content-Length: 15\r\n")
        // HTTP/1.0 closes unless asked to keep the connection, and says which.
        try c.write("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        expectHead(try c.readReply(), "HTTP/1.0 200 OK\r\n", "Content-Length: 15\r\nConnection: keep-alive\r\n")
        try c.write("GET /healthz HTTP/1.0\r\n\r\n")
        expectHead(try c.readReply(), "HTTP/1.0 200 OK\r\n", "Content-Length: 15\r\nConnection: close\r\n")
        #expect(c.isClosedByServer())
    }

    @Test("a body over 1 MiB gets 413 and is logged as refused, once, in the key's project", arguments: Port.allCases)
    func oversize(_ port: Port) throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(server, port)
        let big = String(repeating: "a", count: (1 << 20) + 1)
        let r = try c.request("POST", "/fcm/send", body: #"{"to":"/topics/x","data":{"k":"\#(big)"}}"#, headers: auth)
        #expect(r.status == 413)
        let after = try HTTPConnection(server, port).request("GET", "/emulator/v1/projects/demo-pushmock/events")
        let events = after.json["events"] as? [[String: Any]] ?? []
        #expect(events.count == 1 && events.first?["event"] as? String == "PAYLOAD_TOO_LARGE", "\(events)")
        #expect(events.first?["reason"] as? String == "request_too_large")
    }

    @Test("request headers over 64 KiB get 400 and the connection closes", arguments: Port.allCases)
    func headerFlood(_ port: Port) throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(server, port)
        let r = try c.request("GET", "/healthz", headers: ["X-Flood": String(repeating: "a", count: 70_000)])
        #expect(r.status == 400)
        #expect(c.isClosedByServer())
        #expect(try HTTPConnection(server, port).request("GET", "/healthz").status == 200)
    }

    @Test(
        "requests on many connections read in one turn: each connection gets its own answer; a request followed at once by the client's half-close: answered, then closed",
        arguments: Port.allCases)
    func answersOfOneTurn(_ port: Port) throws {
        let server = try ServerProcess()
        // Every request is written before any answer is read, so the server reads several in
        // one turn and sends their answers together at its end (on the plain port).
        let clients = try (0..<16).map { _ in try HTTPConnection(server, port) }
        for (i, c) in clients.enumerated() {
            let body = #"{"platform":"android","app":"com.example.c\#(i)"}"#
            try c.write(
                "POST /emulator/v1/projects/demo-pushmock/devices HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        for (i, c) in clients.enumerated() {
            let r = try c.readReply()
            #expect(r.status == 201 && r.json["app"] as? String == "com.example.c\(i)", "\(r.text)")
        }
        guard port == .plain else { return }
        let c = try HTTPConnection(server, port)
        try c.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(Glibc.shutdown(c.fd, Int32(SHUT_WR)) == 0)
        #expect(try c.readReply().status == 200)
        #expect(c.isClosedByServer())
    }

    @Test(
        "HTTP/1.1 framing: pipelined requests answered in order, chunked bodies, Expect: 100-continue, HTTP/1.0, malformed heads",
        arguments: Port.allCases)
    func framing(_ port: Port) throws {
        let server = try ServerProcess()
        let key = "Host: localhost\r\nAuthorization: key=pushmock-dev-server-key\r\nContent-Type: application/json\r\n"
        func chunk(_ s: String) -> String { String(s.utf8.count, radix: 16) + ";x=y\r\n" + s + "\r\n" }
        // Three requests in one write: three answers, in order.
        let c = try HTTPConnection(server, port)
        let send = #"{"to":"/topics/p","data":{"k":"v"}}"#
        try c.write(
            "POST /fcm/send HTTP/1.1\r\n\(key)Content-Length: \(send.utf8.count)\r\n\r\n\(send)"
                + "GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "POST /fcm/send HTTP/1.1\r\n\(key)Transfer-Encoding: chunked\r\n\r\n"
                + chunk(#"{"to""#) + chunk(#":"/topics/q","data":{"a":"b"}}"#) + "0\r\n\r\n")
        let first = try c.readReply()
        let second = try c.readReply()
        let third = try c.readReply()
        #expect(first.status == 200 && first.json["message_id"] != nil)
        #expect(second.status == 404)
        #expect(third.status == 200 && third.json["message_id"] != nil, "\(third.text)")
        // Expect: 100-continue gets the interim answer before the body is sent.
        try c.write("POST /fcm/send HTTP/1.1\r\n\(key)Expect: 100-continue\r\nContent-Length: \(send.utf8.count)\r\n\r\n")
        #expect(try c.readReply().status == 100)
        try c.write(send)
        #expect(try c.readReply().status == 200)
        #expect(
            try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&type=accepted").json["count"] as? Int == 3
        )
        // A request pipelined behind a long-poll waits for it: answers stay in order.
        try c.write(
            "GET /emulator/v1/projects/demo-pushmock/events?wait=0.3&min=100 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let poll = try c.readReply()
        let health = try c.readReply()
        #expect(
            poll.status == 200 && (poll.json["events"] as? [Any])?.isEmpty == false && health.json["status"] as? String == "ok")
        // HTTP/1.0: answered, then closed.
        let old = try HTTPConnection(server, port)
        try old.write("GET /healthz HTTP/1.0\r\n\r\n")
        #expect(try old.readReply().status == 200)
        #expect(old.isClosedByServer())
        // Malformed: Google's 400 page, then the connection closes.
        for bad in [
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX : y\r\n\r\n", "BREW /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            // RFC 9112 §3.2: exactly one Host; §7.1: chunked applied once.
            "GET /healthz HTTP/1.1\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ] {
            let b = try HTTPConnection(server, port)
            try b.write(bad)
            let r = try b.readReply()
            #expect(r.status == 400 && r.text.contains("Your client has issued a malformed or illegal request."), "\(bad)")
            #expect(b.isClosedByServer())
        }
        // Content-Length and Transfer-Encoding both: read as chunked, answered, then closed
        // (RFC 9112 §6.3), so a smuggled request behind it is never read.
        let both = try HTTPConnection(server, port)
        try both.write(
            "POST /fcm/send HTTP/1.1\r\n\(key)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunk(send) + "0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let smuggled = try both.readReply()
        #expect(smuggled.status == 200 && smuggled.headers["connection"] == "close", "\(smuggled.text)")
        #expect(both.isClosedByServer())
        // HTTP/1.0 needs no Host.
        let noHost = try HTTPConnection(server, port)
        try noHost.write("GET /healthz HTTP/1.0\r\n\r\n")
        #expect(try noHost.readReply().status == 200)
        // Too large, by its length or once its chunks pass 1 MiB: Google's 413 page, then a close.
        let chunks = String(repeating: chunk(String(repeating: "a", count: 0x10000)), count: 17)
        for big in [
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n",
            "POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks,
        ] {
            let b = try HTTPConnection(server, port)
            try b.write(big)
            let r = try b.readReply()
            #expect(r.status == 413 && r.text.contains("Your client issued a request that was too large."))
            #expect(b.isClosedByServer())
        }
    }

    @Test("unknown routes get Google's 404 page; the control API answers in Google's JSON shape")
    func notFound() throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let page = try c.request("GET", "/nope")
        #expect(page.status == 404 && page.text.contains("Error 404 (Not Found)!!1"))
        let api = try c.request("GET", "/emulator/v1/nope")
        #expect(api.status == 404 && (api.json["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
        let method = try c.request("PATCH", "/fcm/send", body: "{}")
        #expect(method.status == 405)
    }

    @Test("a long-poll on events returns as soon as the awaited event is logged")
    func longPoll() throws {
        let server = try ServerProcess()
        let token = try server.device("android")["token"] as! String
        let waiter = try HTTPConnection(port: server.port)
        try waiter.write(
            "GET /emulator/v1/projects/demo-pushmock/events?event=MESSAGE_DELIVERED&wait=30&min=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        let sent = try HTTPConnection(port: server.port).request(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"a":"b"}}"#, headers: auth)
        #expect(sent.status == 200)
        let r = try waiter.readReply()
        #expect(Date().timeIntervalSince(started) < 10)
        let events = r.json["events"] as? [[String: Any]]
        #expect(events?.count == 1 && events?.first?["event"] as? String == "MESSAGE_DELIVERED")
    }

    @Test("a long-poll that is never satisfied answers with what there is when its wait runs out")
    func longPollTimeout() throws {
        let server = try ServerProcess()
        let r = try HTTPConnection(port: server.port).request("GET", "/emulator/v1/projects/demo-pushmock/events?wait=0.5&min=1")
        #expect(r.status == 200)
        #expect((r.json["events"] as? [Any])?.isEmpty == true)
    }

    @Test("a long-poll whose event is far into a long log is answered once the log is read that far, with nothing new sent")
    func longPollReadsOn() throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let project = "/emulator/v1/projects/demo-pushmock"
        let batch = #"{"platform":"android","app":"a","count":5000,"topics":["t"]}"#
        #expect(try c.request("POST", project + "/devices:batchCreate", body: batch).status == 201)
        let last = try server.device("android")["id"] as! String
        #expect(try c.request("POST", project + "/devices/\(last)/topics/t").status == 200)
        #expect(try c.request("POST", "/fcm/send", body: #"{"to":"/topics/t","data":{"a":"b"}}"#, headers: auth).status == 200)
        // The last subscriber's delivery is logged after the others': the first check reads
        // only part of the log, and the rest is read in later turns. Asked twice: the second
        // time, the log has not grown since the server last looked.
        for _ in 0..<2 {
            let started = Date()
            let r = try c.request("GET", project + "/events?device=\(last)&event=MESSAGE_DELIVERED&min=1&wait=30")
            #expect(Date().timeIntervalSince(started) < 10, "answered when its wait ran out")
            let events = r.json["events"] as? [[String: Any]]
            #expect(events?.count == 1 && (events?.first?["seq"] as? Int ?? 0) > 4096, "\(r.text)")
        }
    }

    @Test("SIGTERM answers parked long-polls, stops accepting, and exits 0")
    func gracefulShutdown() throws {
        let server = try ServerProcess()
        let waiter = try HTTPConnection(port: server.port)
        try waiter.write("GET /emulator/v1/projects/demo-pushmock/events?wait=30 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        kill(server.process.processIdentifier, SIGTERM)
        let r = try waiter.readReply()
        #expect(r.status == 200)
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
        #expect(server.log.contains("pushmock: stopped"))
        #expect(throws: (any Error).self) { try HTTPConnection(port: server.port) }
    }

    @Test("--max-connections holds further connections, on either port, until one closes")
    func connectionCap() throws {
        let server = try ServerProcess(["--max-connections", "2"])
        // One cap across both ports.
        let a = try HTTPConnection(server, .plain)
        let b = try HTTPConnection(server, .tls)
        #expect(try a.request("GET", "/healthz").status == 200)
        #expect(try b.request("GET", "/healthz").status == 200)
        let c = try HTTPConnection(port: server.port, timeout: 0.7)
        try c.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(throws: HTTPConnection.Failure.self) { try c.readReply() }
        a.close()
        c.setTimeout(5)
        #expect(try c.readReply().status == 200)
    }

    @Test(
        "a client that stalls mid-request, or idles, is cut off at the timeout while others are served", arguments: Port.allCases)
    func slowClient(_ port: Port) throws {
        let server = try ServerProcess(["--timeout", "1"])
        let idle = try HTTPConnection(server, port, timeout: 5)
        #expect(try idle.request("GET", "/healthz").status == 200)
        let slow = try HTTPConnection(server, port, timeout: 5)
        try slow.write("POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n")
        let started = Date()
        #expect(try HTTPConnection(server, port).request("GET", "/healthz").status == 200)
        #expect(slow.isClosedByServer())
        #expect(idle.isClosedByServer())
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test("bad flags stop the start with exit 2 and a message; a busy port with exit 1")
    func badStart() throws {
        let bad = Process()
        bad.executableURL = ServerProcess.binary
        bad.arguments = ["--port", "nope"]
        let pipe = Pipe()
        bad.standardError = pipe
        bad.standardOutput = pipe
        try bad.run()
        bad.waitUntilExit()
        #expect(bad.terminationStatus == 2)
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("--port: 'nope'"))
        let server = try ServerProcess()
        let busy = Process()
        busy.executableURL = ServerProcess.binary
        busy.arguments = ["--port", String(server.port)]
        busy.standardError = Pipe()
        busy.standardOutput = Pipe()
        try busy.run()
        busy.waitUntilExit()
        #expect(busy.terminationStatus == 1)
    }

    @Test("with the system clock, a stored message expires on time without any request")
    func systemClockExpiry() throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let d = try c.request(
            "POST", "/emulator/v1/projects/demo-pushmock/devices", body: #"{"platform":"android","app":"a","online":false}"#
        ).json
        let token = d["token"] as! String
        #expect(
            try c.request("POST", "/fcm/send", body: #"{"to":"\#(token)","time_to_live":1,"data":{"a":"b"}}"#, headers: auth)
                .status == 200)
        let started = Date()
        let r = try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?event=MESSAGE_EXPIRED&wait=10&min=1")
        #expect((r.json["events"] as? [Any])?.count == 1)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("`pushmock service-account` prints a service-account JSON from the running server")
    func serviceAccountCommand() throws {
        let server = try ServerProcess()
        let (status, out) = try runCommand(ServerProcess.binary.path, ["service-account", "--port", String(server.port)])
        #expect(status == 0)
        let account = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any]
        #expect(account?["type"] as? String == "service_account")
        #expect(account?["token_uri"] as? String == "http://127.0.0.1:\(server.port)/token")
        #expect((account?["private_key"] as? String)?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        let (down, _) = try runCommand(ServerProcess.binary.path, ["service-account", "--port", "1"])
        #expect(down == 1)
    }

    @Test("stored sends are bounded by their bodies' bytes too (--max-message-mb): the oldest are evicted and counted")
    func messageBytes() throws {
        let server = try ServerProcess(["--max-message-mb", "2", "--device-rate-limit", "0"])
        let token = try server.device("android")["token"] as! String
        let c = try HTTPConnection(port: server.port)
        let big = String(repeating: "v", count: 900_000)
        for _ in 0..<10 {
            let r = try c.request("POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"\#(big)"}}"#, headers: auth)
            #expect(r.status == 200)
        }
        let stored = try c.request("GET", "/emulator/v1/projects/demo-pushmock/messages?limit=100").json
        #expect(stored["total"] as? Int == 2 && stored["evicted"] as? Int == 8, "\(stored["total"] ?? "?") kept")
    }

    @Test("flags have matching PUSHMOCK_* variables")
    func environment() throws {
        let server = try ServerProcess([], environment: ["PUSHMOCK_PROJECT": "env-project", "PUSHMOCK_SERVER_KEY": "env-key"])
        #expect(server.log.contains("project env-project, server key env-key"))
        let r = try HTTPConnection(port: server.port).request(
            "POST", "/fcm/send", body: #"{"to":"/topics/a","data":{"a":"b"}}"#,
            headers: ["Authorization": "key=env-key"])
        #expect(r.status == 200)
    }
}
