import Foundation
import Testing

@Suite("Web Push: pywebpush and py-vapid against each browser's push service", .timeLimit(.minutes(2)))
struct WebPushTests {
    @Test(
        "every success and refusal of the three push services in their own shapes, RFC 8291's example decrypted, over HTTP and TLS"
    )
    func senders() throws {
        #expect(FileManager.default.isExecutableFile(atPath: RealClientTests.python), "run `make venv` (make test does)")
        let server = try ServerProcess()
        let script = ServerProcess.packageRoot.appendingPathComponent("Tests/clients/web_push.py").path
        let tls = "https://127.0.0.1:\(try #require(server.tlsPort))"
        let (status, out) = try runCommand(RealClientTests.python, [script, server.url, tls, ServerProcess.caFile])
        #expect(status == 0, "\(out)")
        #expect(out.contains("RFC 8291 test vector decrypted") && out.contains("TLS: 201, decrypted"), "\(out)")
    }
}

@Suite("Web Push subscriptions across a restart", .timeLimit(.minutes(1)))
struct WebPushRestartTests {
    @Test("with --data-dir a Web device keeps its browser, endpoint and keys, and its endpoint still takes pushes")
    func subscriptionKept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-webpush-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flags = ["--data-dir", dir, "--tls-port", "off"]
        let devices = "/emulator/v1/projects/demo-pushmock/devices"
        let server = try ServerProcess(flags)
        let made = try HTTPConnection(port: server.port).request(
            "POST", devices, body: #"{"platform":"web","app":"https://shop.example","browser":"firefox"}"#)
        #expect(made.status == 201)
        let before = try #require(made.json["push_subscription"] as? [String: Any])
        server.stop()

        let again = try ServerProcess(flags)
        let c = try HTTPConnection(port: again.port)
        let after = try c.request("GET", devices + "/\(made.json["id"] as! String)").json
        #expect(after["browser"] as? String == "firefox")
        let kept = try #require(after["push_subscription"] as? [String: Any])
        #expect(kept["endpoint"] as? String == before["endpoint"] as? String)
        #expect(kept["keys"] as? [String: String] == before["keys"] as? [String: String])
        let path = try #require(URL(string: kept["endpoint"] as! String)?.path)
        #expect(try c.request("POST", path, headers: ["TTL": "60"]).status == 201)
    }
}
