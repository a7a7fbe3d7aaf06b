import Foundation
import Testing

/// The last line of a command's output that is a JSON object (warnings may come first).
func lastJSON(_ out: String) -> [String: Any] {
    for line in out.split(separator: "\n").reversed() where line.hasPrefix("{") {
        if let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] { return obj }
    }
    return [:]
}

@Suite("The TLS port: HTTP/2, HTTP/1.1, certificates and APNs with real clients", .serverTestLimit)
struct TLSTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path

    @Test("curl --http2 sends FCM v1 and APNs pushes (provider token and client certificate) and gets the services' answers")
    func curl() throws {
        let server = try ServerProcess(["--accept-any-token"])
        let tls = try #require(server.tlsPort)
        let c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let android = try server.device("android")
        let iphone = try server.device("ios")
        let apnsToken = iphone["apns_token"] as! String

        let (s1, v1) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "--http2", "--cacert", ServerProcess.caFile, "-w", "\n%{http_version}",
                "-H", "Authorization: Bearer any", "-H", "Content-Type: application/json",
                "https://localhost:\(tls)/v1/projects/demo-pushmock/messages:send",
                "-d", #"{"message":{"token":"\#(android["token"]!)","notification":{"title":"curl"}}}"#,
            ])
        #expect(s1 == 0 && v1.hasSuffix("\n2") && v1.contains(#""name":"projects/demo-pushmock/messages/"#), "\(v1)")

        // A provider token signed with the .p8 key pushmock made, as a shell script would.
        let key = try c.request("POST", base + "/apnsKeys", body: "{}").json
        let (s2, jwt) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import jwt, sys, time
                print(jwt.encode({"iss": sys.argv[2], "iat": int(time.time())}, sys.argv[3], algorithm="ES256", headers={"kid": sys.argv[1]}))
                """, key["key_id"] as! String, key["team_id"] as! String, key["private_key"] as! String,
            ])
        #expect(s2 == 0)
        let (s3, pushed) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "-i", "--http2", "--cacert", ServerProcess.caFile,
                "-H", "authorization: bearer \(jwt.trimmingCharacters(in: .whitespacesAndNewlines))",
                "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
                "-H", "apns-id: 0a1b2c3d-0000-4000-8000-00000000abcd",
                "--data-binary", #"{"aps":{"alert":{"title":"curl","body":"APNs"}}}"#,
                "https://localhost:\(tls)/3/device/\(apnsToken)",
            ])
        #expect(s3 == 0 && pushed.hasPrefix("HTTP/2 200"), "\(pushed)")
        #expect(pushed.contains("apns-id: 0a1b2c3d-0000-4000-8000-00000000abcd") && pushed.contains("apns-unique-id: "))

        // A provider certificate pushmock issued; curl sends no apns-topic, so it comes from the certificate.
        let cert = try c.request("POST", base + "/apnsCertificates", body: #"{"bundle_id":"com.example.app"}"#).json
        let pem = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-curl-\(server.port).pem")
        try ((cert["certificate"] as! String) + (cert["private_key"] as! String)).write(
            to: pem, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: pem) }
        let (s4, certPush) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "-i", "--http2", "--cacert", ServerProcess.caFile, "--cert", pem.path,
                "--data-binary", #"{"aps":{"alert":"by certificate"}}"#, "https://localhost:\(tls)/3/device/\(apnsToken)",
            ])
        #expect(s4 == 0 && certPush.hasPrefix("HTTP/2 200"), "\(certPush)")
        let (_, rejected) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "-i", "--http2", "--cacert", ServerProcess.caFile, "--cert", pem.path,
                "--data-binary", "{}", "https://localhost:\(tls)/3/device/\(String(repeating: "0", count: 64))",
            ])
        #expect(rejected.hasPrefix("HTTP/2 400") && rejected.contains(#"{"reason":"BadDeviceToken"}"#), "\(rejected)")
        // A certificate pushmock's CA did not sign: 403 BadCertificate.
        let foreign = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-foreign-\(server.port).pem").path
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        let (s5, made) = try runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-days", "1", "-subj", "/UID=com.example.app/OU=X/CN=self",
                "-keyout", foreign, "-out", foreign + ".crt",
            ])
        #expect(s5 == 0, "\(made)")
        let (_, forged) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "-i", "--http2", "--cacert", ServerProcess.caFile, "--cert", foreign + ".crt", "--key", foreign,
                "--data-binary", #"{"aps":{"alert":"x"}}"#, "https://localhost:\(tls)/3/device/\(apnsToken)",
            ])
        try? FileManager.default.removeItem(atPath: foreign + ".crt")
        #expect(forged.hasPrefix("HTTP/2 403") && forged.contains(#"{"reason":"BadCertificate"}"#), "\(forged)")

        // A chain of 100 certificates is refused in the handshake, before it is parsed (it once
        // cost 28 ms of the loop a handshake); the same certificate alone still works.
        let long = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-long-\(server.port).pem")
        let ca = try String(contentsOfFile: ServerProcess.caFile, encoding: .utf8)
        try ((cert["certificate"] as! String) + String(repeating: ca, count: 100) + (cert["private_key"] as! String)).write(
            to: long, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: long) }
        let (s6, chained) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "-i", "--http2", "--cacert", ServerProcess.caFile, "--cert", long.path,
                "--data-binary", #"{"aps":{"alert":"x"}}"#, "https://localhost:\(tls)/3/device/\(apnsToken)",
            ])
        #expect(s6 != 0 && !chained.hasPrefix("HTTP/2"), "\(s6): \(chained)")

        // All three are in the log, and the messages say how they came; the two refused pushes
        // (BadDeviceToken, BadCertificate) are listed too, accepted by no device.
        let messages = try c.request("GET", base + "/messages").json["messages"] as? [[String: Any]] ?? []
        let accepted = messages.filter { ($0["accepted"] as? Int ?? 0) > 0 }
        #expect(accepted.map { $0["api"] as! String }.sorted() == ["apns", "apns", "v1"], "\(messages)")
        #expect(messages.filter { $0["failed"] as? Int == 1 }.map { $0["api"] as! String } == ["apns", "apns"], "\(messages)")
        #expect(messages.allSatisfy { $0["http_version"] as? String == "2" && $0["tls"] as? Bool == true })
        let displayed = try c.request("GET", base + "/events?event=MESSAGE_DISPLAYED&device=\(iphone["id"]!)&count=true").json
        #expect(displayed["count"] as? Int == 2)
    }

    @Test("httpx with http2=True: FCM v1 and APNs over HTTP/2 with a client certificate")
    func httpx() throws {
        let server = try ServerProcess(["--accept-any-token"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                Self.clients + "/h2_clients.py", "httpx", String(try #require(server.tlsPort)), ServerProcess.caFile,
                String(server.port),
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        let v1 = r["v1"] as? [Any]
        #expect(v1?[0] as? Int == 200 && v1?[1] as? String == "HTTP/2", "\(out)")
        let apns = r["apns"] as? [Any]
        #expect(apns?[0] as? Int == 200 && apns?[1] as? String == "HTTP/2" && (apns?[2] as? String)?.count == 36)
        #expect((r["apns_error"] as? [Any])?.first as? Int == 400)
        let large = r["large_body"] as? [Any]
        #expect(
            large?[0] as? String == "HTTP/2" && (large?[1] as? Int ?? 0) > 1_000_000 && large?[3] as? Bool == true,
            "\(large ?? [])")
    }

    @Test(
        "firebase-admin (send, send_each_async over HTTP/2, subscribe_to_topic) and aioapns run unmodified against Google's and Apple's host names"
    )
    func unmodifiedSDKs() throws {
        let unshare = ["/usr/bin/unshare"] + (getuid() == 0 ? [] : ["--map-root-user"]) + ["--net", "--mount"]
        let (status, out) = try runCommand(
            unshare[0],
            Array(unshare.dropFirst()) + [
                "sh", Self.clients + "/in_namespace.sh", ServerProcess.binary.path, ServerProcess.certDirectory,
                RealClientTests.python, Self.clients + "/unmodified_clients.py",
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["token_uri"] as? String == "https://oauth2.googleapis.com/token")
        #expect((r["send"] as? String)?.hasPrefix("projects/demo-pushmock/messages/") == true, "\(out)")
        #expect(r["send_each_async"] as? [Bool] == [true, true, false])
        #expect(r["subscribe"] as? [Int] == [2, 0])
        #expect((r["topic_send"] as? String)?.hasPrefix("projects/demo-pushmock/messages/") == true)
        let aioapns = r["aioapns"] as? [String: [Any]]
        #expect(aioapns?["jwt"]?[0] as? Bool == true && aioapns?["jwt"]?[3] as? String == "BadDeviceToken")
        #expect(aioapns?["certificate"]?[0] as? Bool == true)
        // How each arrived: the SDK's sync sends over HTTP/1.1, its async ones and APNs over HTTP/2, all over TLS.
        let messages = (r["messages"] as? [[Any]]) ?? []
        // The refused ones (send_each_async's bad token, aioapns' BadDeviceToken) are listed too, none accepted.
        func listed(_ api: String, accepted: Bool) -> Int {
            messages.filter { $0[0] as? String == api && $0[1] as? String == "2" && (($0[3] as? Int ?? 0) > 0) == accepted }.count
        }
        #expect(listed("v1", accepted: true) == 2 && listed("apns", accepted: true) == 2)
        #expect(listed("v1", accepted: false) == 1 && listed("apns", accepted: false) == 1)
        #expect(messages.allSatisfy { $0[2] as? Bool == true })
        // The log shows each push reaching its device.
        let events = (r["events"] as? [[Any]]) ?? []
        let apnsIDs = [aioapns?["jwt"]?[1], aioapns?["certificate"]?[1]].compactMap { $0 as? String }
        for id in apnsIDs {
            #expect(events.contains { $0[0] as? String == "MESSAGE_DISPLAYED" && $0[1] as? String == id })
        }
        #expect(events.filter { $0[0] as? String == "MESSAGE_ACCEPTED" }.count >= 6)
    }

    /// `h2_clients.py`'s arguments for `server`'s TLS port, or its plain port as h2c.
    private static func h2Target(_ server: ServerProcess, _ port: Port) throws -> (port: String, flags: [String]) {
        switch port {
        case .tls: (String(try #require(server.tlsPort)), [])
        case .plain: (String(server.port), ["--h2c"])
        }
    }

    /// Runs `h2_clients.py MODE PORT CA HTTP_PORT EXTRA…` against `server`'s `port`; its exit
    /// status and output.
    static func h2Clients(_ mode: String, _ server: ServerProcess, _ port: Port, _ extra: [String] = []) throws -> (Int32, String)
    {
        let target = try h2Target(server, port)
        return try runCommand(
            RealClientTests.python,
            [clients + "/h2_clients.py", mode, target.port, ServerProcess.caFile, String(server.port)] + extra + target.flags)
    }

    @Test(
        "bad handshakes and HTTP/2 abuse (rapid reset, CONTINUATION and SETTINGS/PING floods, too many streams, HPACK bombs) end the offending connection, never the server or other clients",
        arguments: Port.allCases)
    func abuse(_ port: Port) throws {
        let server = try ServerProcess(["--timeout", "2"])
        let (status, out) = try Self.h2Clients("abuse", server, port)
        #expect(status == 0, "\(out)")
        var cases: [String: [String: Any]] = [:]
        for line in out.split(separator: "\n") where line.hasPrefix("{") {
            if let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] {
                cases[obj["case"] as! String] = obj
            }
        }
        // On the plain port, HTTP/1.1 is welcome: that case is the TLS port's only.
        #expect(cases.count == (port == .tls ? 11 : 10), "\(out)")
        for (name, result) in cases {
            #expect(result["healthy"] as? Bool == true, "\(name): another client was not served: \(result)")
        }
        func seen(_ name: String) -> [String: Any] { cases[name]?["seen"] as? [String: Any] ?? [:] }
        for name in ["garbage_handshake", "bad_preface", "ping_flood"] + (port == .tls ? ["plain_http_on_tls_port"] : []) {
            #expect(seen(name)["closed"] as? Bool == true, "\(name): \(seen(name))")
        }
        // Streams that keep failing end the connection with ENHANCE_YOUR_CALM (0xb), and a
        // client on another connection is answered throughout (its latency is in hardening.md).
        let bomb = seen("hpack_bomb")
        #expect(bomb["goaway"] as? Int == 11 || bomb["closed"] as? Bool == true, "\(bomb)")
        #expect(bomb["failed"] as? Int == 0 && (bomb["answers"] as? Int ?? 0) > 10, "\(bomb)")
        // A hundred log scans at once: the other client is answered between them (each turn
        // takes one, and what exceeds the turn's time waits), not after them all.
        let scans = seen("log_scans")
        #expect(scans["answered"] as? Int == 100 && (scans["others_between"] as? Int ?? 0) > 10, "\(scans)")
        let continuation = seen("continuation_flood")
        #expect(continuation["goaway"] != nil || continuation["closed"] as? Bool == true, "\(continuation)")
        #expect(seen("oversized_headers")["refused"] as? Bool == true)
        #expect((seen("too_many_streams")["resets"] as? Int ?? 0) > 0 || seen("too_many_streams")["goaway"] != nil)
        #expect(seen("rapid_reset")["goaway"] != nil || seen("rapid_reset")["closed"] as? Bool == true)
        #expect(server.stop() == 0)
    }

    @Test(
        "answers on one HTTP/2 connection: a field the previous answer had in the same place with the same value may be indexed by HPACK, others never are; each decodes as sent",
        arguments: Port.allCases)
    func repeatedFields(_ port: Port) throws {
        let server = try ServerProcess()
        let (status, out) = try Self.h2Clients("fields", server, port)
        #expect(status == 0, "\(out)")
        let answers = try #require((try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [[String: Any]], "\(out)")
        let json = "application/json; charset=UTF-8"
        // Status, content type, and whether the type and the length were sent as never indexed.
        let expected: [(String, String, [Bool])] = [
            ("200", json, [true, true]), ("200", json, [false, false]), ("200", json, [false, false]),
            ("404", json, [false, true]), ("200", "text/plain; version=0.0.4; charset=utf-8", [true, true]),
            ("200", json, [true, true]), ("200", json, [false, false]),
        ]
        try #require(answers.count == expected.count, "\(out)")
        for (answer, (code, type, neverIndexed)) in zip(answers, expected) {
            let fields = (answer["fields"] as? [[Any]] ?? []).map {
                ($0[0] as? String ?? "", $0[1] as? String ?? "", $0[2] as? Bool ?? false)
            }
            #expect(fields.map(\.0) == [":status", "content-type", "content-length"], "\(answer)")
            #expect(fields.first?.1 == code && fields.dropFirst().first?.1 == type, "\(answer)")
            #expect(fields.last?.1 == String(answer["body"] as? Int ?? -1), "\(answer)")
            #expect(fields.first?.2 == false && fields.dropFirst().map(\.2) == neverIndexed, "\(answer)")
        }
        #expect(server.stop() == 0)
    }

    @Test(
        "a turn whose work outlasts --timeout: quiet HTTP/2 and HTTP/1.1 connections asking meanwhile are answered, not cut off as peers that stopped reading",
        arguments: Port.allCases)
    func busyTurn(_ port: Port) throws {
        let server = try ServerProcess(["--timeout", "1"])
        let (status, out) = try Self.h2Clients("busy", server, port, [String(server.process.processIdentifier)])
        #expect(status == 0, "\(out)")
        let seen = lastJSON(out)
        #expect(seen["before"] as? [String] == ["200", "answered"], "\(out)")
        #expect(seen["during"] as? [String] == ["200", "answered"], "\(out)")
        #expect(server.stop() == 0)
    }

    @Test(
        "answers and bodies far larger than the socket buffers go through whole over HTTP/2 and HTTP/1.1; a client that stops reading is cut off at the timeout",
        arguments: Port.allCases)
    func backPressure(_ port: Port) throws {
        let server = try ServerProcess(["--timeout", "2"])
        let (status, out) = try Self.h2Clients("backpressure", server, port, ["2"])
        #expect(status == 0, "\(out)")
        let seen = lastJSON(out)
        let reader = seen["reader"] as? [String: Any] ?? [:]
        #expect(reader["ended"] as? Int == 10, "\(out)")
        #expect(reader["identical"] as? Int == 10, "\(out)")
        #expect((reader["each"] as? Int ?? 0) > 1_000_000, "\(out)")
        let http1 = seen["http1"] as? [[Any]] ?? []
        #expect(http1.count == 3 && http1.allSatisfy { $0.first as? String == "HTTP/1.1" && $0.last as? Bool == true }, "\(out)")
        let uploads = seen["uploads"] as? [[Any]] ?? []
        #expect(
            uploads.map { $0.first as? String } == Array(repeating: "HTTP/1.1", count: 3) + Array(repeating: "HTTP/2", count: 3),
            "\(out)")
        for upload in uploads {
            #expect(upload[1] as? Int == 200, "\(out)")
            #expect(((upload[2] as? [[String: Any]])?.first)?["error"] as? String == "InvalidRegistration", "\(out)")
        }
        #expect(seen["healthy_meanwhile"] as? Bool == true, "\(out)")
        let nonReader = seen["non_reader"] as? [String: Any] ?? [:]
        #expect(nonReader["closed"] as? Bool == true, "\(out)")
        #expect((nonReader["received"] as? Int ?? .max) < (nonReader["asked"] as? Int ?? 0) / 2, "\(out)")
        #expect(server.stop() == 0)
    }

    @Test("shutdown sends GOAWAY to open HTTP/2 connections and exits cleanly")
    func goAwayOnShutdown() throws {
        let server = try ServerProcess()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: RealClientTests.python)
        p.arguments = [Self.clients + "/h2_clients.py", "goaway", String(try #require(server.tlsPort)), ServerProcess.caFile]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        var text = ""
        while !text.contains("ready") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(server.stop() == 0)
        text += String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let seen = lastJSON(text)
        #expect(seen["goaway"] as? Int == 0, "\(text)") // NO_ERROR
        #expect(seen["responses"] as? Int == 1)
    }

    @Test(
        "pushmocks started together on one --cert-dir all start (each writes its server certificate through its own temporary file)"
    )
    func sharedCertificateDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-shared-certs-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try ServerProcess(["--cert-dir", dir]) // makes the CA, then stops
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 24) { _ in
            results.add(Result { try ServerProcess(["--cert-dir", dir]) }.map { $0.tlsPort != nil })
        }
        let started = results.all
        #expect(started.count == 24)
        for result in started { #expect(try result.get()) }
    }

    @Test(
        "the first start makes a CA that is served and trusted; --tls-san adds names; --tls-cert/--tls-key serve your own certificate"
    )
    func certificates() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushmock-certs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--cert-dir", dir, "--tls-san", "push.test,10.9.8.7"])
        let caFile = dir + "/ca.pem"
        #expect(server.log.contains("local CA certificate \(caFile)"))
        let c = try HTTPConnection(port: server.port)
        let ca = try c.request("GET", "/emulator/v1/ca.pem")
        let caText = try String(contentsOfFile: caFile, encoding: .utf8)
        #expect(ca.status == 200 && ca.text == caText)
        let tls = try #require(server.tlsPort)
        let hosts = [
            "localhost", "127.0.0.1", "::1", "push.test", "10.9.8.7", "fcm.googleapis.com", "oauth2.googleapis.com",
            "iid.googleapis.com", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        ]
        let (_, names) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import socket, ssl, sys
                ctx = ssl.create_default_context(cafile=sys.argv[2])
                for host in sys.argv[3:]:
                    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname=host)
                    print(host, s.version())
                    s.close()
                """, String(tls), caFile,
            ] + hosts)
        for host in hosts { #expect(names.contains(host + " TLSv1.3"), "\(names)") }
        // Keep a copy of the certificate this start wrote, to bring as "your own" below.
        let own = dir + "-own"
        try? FileManager.default.removeItem(atPath: own)
        try FileManager.default.copyItem(atPath: dir, toPath: own)
        defer { try? FileManager.default.removeItem(atPath: own) }
        // A second start keeps the CA.
        server.stop()
        let again = try ServerProcess(["--cert-dir", dir])
        let kept = try HTTPConnection(port: again.port).request("GET", "/emulator/v1/ca.pem").text
        #expect(kept == caText)
        again.stop()
        // Bring your own: that copy, served by another pushmock.
        let byo = try ServerProcess(["--cert-dir", dir, "--tls-cert", own + "/server.pem", "--tls-key", own + "/server-key.pem"])
        let port = try #require(byo.tlsPort)
        let (status, out) = try runCommand(
            "/usr/bin/curl",
            [
                "-s", "--cacert", caFile, "--resolve", "push.test:\(port):127.0.0.1",
                "https://push.test:\(port)/healthz",
            ])
        #expect(status == 0 && out.contains("ok"), "\(out)")
    }
}

/// Results gathered from concurrent work, under a lock.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var results: [Result<Bool, any Error>] = []

    func add(_ result: Result<Bool, any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<Bool, any Error>] { lock.withLock { results } }
}
