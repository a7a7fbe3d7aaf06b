import Foundation
import Testing

/// HTTP/2 on the plain port (h2c, prior knowledge) as on the TLS port, framing errors answered
/// alike on HTTP/1.1 and HTTP/2, and the connection policy the gateway hands HTTP/2 sessions.
@Suite("HTTP/2 on both ports: h2c, framing errors by API, APNs' connection start")
struct HTTP2BothPortsTests {
    /// curl's answer on one line: the HTTP version, the status, the body.
    static func curl(_ arguments: [String]) throws -> (version: String, status: Int, body: String) {
        let (exit, out) = try runCommand(
            "/usr/bin/curl", ["-s", "--max-time", "10", "-w", "\n%{http_version} %{http_code}"] + arguments)
        #expect(exit == 0, "\(out)")
        let last = out.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
        let parts = last.split(separator: " ")
        let body = String(out.dropLast(last.count + 1))
        return (parts.first.map(String.init) ?? "", Int(parts.last ?? "") ?? 0, body)
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test("curl --http2-prior-knowledge sends legacy and v1 requests over h2c on the plain port")
    func curlPriorKnowledge() throws {
        let server = try ServerProcess(["--accept-any-token"])
        let android = try server.device("android")["token"] as! String
        let url = server.url
        let legacy = try Self.curl([
            "--http2-prior-knowledge", "-H", "Authorization: key=pushmock-dev-server-key", "-H", "Content-Type: application/json",
            "-d", #"{"to":"\#(android)","data":{"via":"h2c"}}"#, url + "/fcm/send",
        ])
        #expect(legacy.version == "2" && legacy.status == 200 && Self.json(legacy.body)["success"] as? Int == 1, "\(legacy)")
        let v1 = try Self.curl([
            "--http2-prior-knowledge", "-H", "Authorization: Bearer any", "-d", #"{"message":{"token":"\#(android)"}}"#,
            url + "/v1/projects/demo-pushmock/messages:send",
        ])
        #expect(v1.version == "2" && v1.status == 200, "\(v1)")
    }

    @Test("an Upgrade: h2c request is answered over HTTP/1.1 (RFC 9113 §3.1 deprecates the upgrade)")
    func upgradeIgnored() throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let r = try c.request(
            "GET", "/healthz",
            headers: ["Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c", "HTTP2-Settings": "AAMAAABkAAQAAP__"])
        #expect(r.status == 200 && r.json["status"] as? String == "ok")
        // The connection stays HTTP/1.1.
        #expect(try c.request("GET", "/healthz").status == 200)
        // curl --http2 on http:// asks for the upgrade and gets HTTP/1.1.
        let curl = try Self.curl(["--http2", server.url + "/healthz"])
        #expect(curl.version == "1.1" && curl.status == 200, "\(curl)")
    }

    @Test("a body over 1 MiB gets the same answer on HTTP/1.1 and HTTP/2, on both ports, in the shape of its path's API")
    func framingErrorsByFamily() throws {
        let server = try ServerProcess()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-big-\(server.port).json")
        try Data(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let big = "@" + file.path
        let tls = ["--cacert", ServerProcess.caFile, "https://localhost:\(try #require(server.tlsPort))"]
        for (path, check) in [
            ("/fcm/send", { (body: String) in body.contains("Your client issued a request that was too large.") }),
            ("/3/device/abc", { Self.json($0)["reason"] as? String == "PayloadTooLarge" }),
            (
                "/emulator/v1/projects/demo-pushmock/devices",
                { (Self.json($0)["error"] as? [String: Any])?["code"] as? Int == 413 }
            ),
        ] as [(String, (String) -> Bool)] {
            for (flags, base, version) in [
                (["--http1.1"], server.url, "1.1"), (["--http2-prior-knowledge"], server.url, "2"),
                (["--http2"] + tls.dropLast(), tls.last!, "2"), (["--http1.1"] + tls.dropLast(), tls.last!, "1.1"),
            ] {
                let r = try Self.curl(flags + ["--data-binary", big, base + path])
                #expect(r.status == 413 && r.version == version && check(r.body), "\(path) \(flags): \(r)")
            }
        }
    }

    @Test(
        "APNs' connection start: one stream until the first valid provider token, then more; other services' requests raise it too"
    )
    func streamLimit() throws {
        let server = try ServerProcess()
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/h2_clients.py", "streams", String(try #require(server.tlsPort)), ServerProcess.caFile,
                String(server.port),
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        let token = r["bad_then_good"] as? [String: Any] ?? [:]
        #expect(token["statuses"] as? [Int] == [403, 200], "\(out)")
        #expect(token["limits"] as? [Int] == [1, 1000], "an invalid token does not raise it: \(out)")
        let fcm = r["fcm"] as? [String: Any] ?? [:]
        #expect(fcm["limits"] as? [Int] == [1, 1000], "\(out)")
        let local = r["localhost"] as? [String: Any] ?? [:]
        #expect(local["limits"] as? [Int] == [1000] && local["statuses"] as? [Int] == [200], "\(out)")
    }
}

@Suite("The TLS port cannot be locked out")
struct LockoutTests {
    @Test(
        "a handshake trickled a byte at a time is cut off at --timeout; idle HTTP/2 connections at the cap make room for new clients"
    )
    func lockout() throws {
        let server = try ServerProcess(["--timeout", "2", "--max-connections", "4"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/h2_clients.py", "lockout", String(try #require(server.tlsPort)), ServerProcess.caFile, "4",
                "2",
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        let trickle = r["trickle"] as? [String: Any] ?? [:]
        let cut = trickle["closed_after"] as? Double
        #expect(cut != nil && cut! >= 2 && cut! < 5, "\(out)")
        let fresh = r["new_client"] as? [String: Any] ?? [:]
        #expect(fresh["status"] as? Int == 200, "\(out)")
        let oldest = r["oldest_idle"] as? [String: Any] ?? [:]
        #expect(oldest["goaway"] as? Int == 0, "the connection idle longest got GOAWAY: \(out)")
    }

    @Test(
        "HTTP/2 requests whose body never comes fill the cap beside a working connection: a new client gets in, the working one keeps its place, and each stalled stream is reset"
    )
    func stalledStreams() throws {
        let server = try ServerProcess(["--timeout", "2", "--max-connections", "4"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/h2_clients.py", "stalled", String(try #require(server.tlsPort)), ServerProcess.caFile, "4",
                "2",
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["working_first"] as? Int == 200 && r["working_at_cap"] as? Int == 200, "\(out)")
        #expect(r["new_client"] as? Int == 200, "\(out)")
        #expect(r["working_after"] as? Int == 200, "the working connection kept its place: \(out)")
        let stalled = r["stalled"] as? [String: Any] ?? [:]
        let ended = (stalled["reset"] as? Int ?? 0) + (stalled["goaway"] as? Int ?? 0)
        // Two made room (GOAWAY: at the cap, then for the new client); the last was reset.
        #expect(ended == 3 && (stalled["reset"] as? Int ?? 0) >= 1, "\(out)")
    }
}
