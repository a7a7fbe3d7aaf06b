import Foundation
import Testing

@Suite("Web Push: pywebpush and py-vapid against each browser's push service", .serverTestLimit)
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

@Suite("Web Push subscriptions across a restart", .serverTestLimit)
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

@Suite("The Mozilla push protocol over WebSocket, and a real Firefox", .serverTestLimit)
struct MozillaPushTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path

    @Test(
        "hello, register, notifications acked, pushes kept while away, unregister, and every hostile frame closed with RFC 6455's code, on ws:// and wss://"
    )
    func protocolAndFraming() throws {
        let server = try ServerProcess()
        let tls = try #require(server.tlsPort)
        let (status, out) = try runCommand(
            RealClientTests.python,
            [Self.clients + "/mozilla_push.py", "127.0.0.1", String(server.port), String(tls), ServerProcess.caFile])
        #expect(status == 0, "\(out)")
        #expect(out.contains("wss:// on the TLS port"), "\(out)")
    }

    @Test("a WebSocket peer silent for --timeout is pinged, then closed with 1001")
    func idlePeer() throws {
        let server = try ServerProcess(["--timeout", "1", "--tls-port", "off"])
        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/mozilla_push.py", "idle", "127.0.0.1", String(server.port)])
        #expect(status == 0, "\(out)")
    }

    @Test(
        "a real headless Firefox ESR subscribes, its service worker shows a pushed notification, a push sent while it was closed arrives when it starts again, and registered through FCM registrations by its page it gets an FCM v1 send; loopback only"
    )
    func realFirefox() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/firefox-esr"), "make test-deps installs firefox-esr")
        // A private network namespace has loopback only: nothing Firefox does can leave it.
        let certs = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-firefox-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let (status, out) = try runCommand(
            "/usr/bin/unshare",
            [
                "--net", "--mount", "sh", Self.clients + "/in_namespace.sh", ServerProcess.binary.path, certs,
                RealClientTests.python, Self.clients + "/firefox_push.py", "http://127.0.0.1",
            ])
        #expect(status == 0, "\(out)")
        #expect(out.contains("\"after_restart\": [\"while you were away\"]"), "\(out)")
        // Registered through FCM registrations by its page, it gets an FCM v1 send as the SDK's payload.
        #expect(out.contains(#""fcm_shown": ["FCM: to Firefox from "#), "\(out)")
    }
}
