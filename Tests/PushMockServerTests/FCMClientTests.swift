import Foundation
import Testing

@Suite("Real FCM clients register with pushmock and receive from it", .serverTestLimit)
struct FCMClientTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path

    /// Runs a client script inside a private network namespace where Google's hosts are
    /// pushmock (`in_namespace.sh`); `environment` reaches pushmock (`PUSHMOCK_*`).
    static func inNamespace(_ script: String, _ arguments: [String] = [], certs: String, environment: [String: String] = [:])
        throws -> (Int32, String)
    {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHMOCK_") }
        env.merge(environment) { $1 }
        return try runCommand(
            "/usr/bin/unshare",
            [
                "--net", "--mount", "sh", clients + "/in_namespace.sh", ServerProcess.binary.path, certs,
                RealClientTests.python, clients + "/" + script,
            ] + arguments, environment: env)
    }

    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-\(name)-\(getpid())").path
    }

    @Test(
        "firebase-messaging 0.4.5, unmodified: check-in, register3, Installations, FCM registration, MCS; firebase-admin's send arrives as the fact sheet's JSON, its ack is logged, and a push sent while it was stopped arrives when it starts again"
    )
    func firebaseMessaging() throws {
        let certs = Self.scratch("fm-certs")
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let (status, out) = try Self.inNamespace("fcm_receiver.py", certs: certs)
        #expect(status == 0, "\(out)")
        #expect(out.contains(#""priority": "normal", "fcmMessageId""#), "\(out)")
        #expect(out.contains(#""acknowledged": 1"#) && out.contains(#""after_restart": {"while": "away"}"#), "\(out)")
        #expect(out.contains(#""kind": "mcs""#) && out.contains(#""connected": true"#), "\(out)")
    }

    @Test(
        "with --data-dir, check-ins, GCM registrations, installations and tokens survive a restart: a client with its stored credentials only checks in and reconnects, and its token still takes sends"
    )
    func durable() throws {
        let certs = Self.scratch("fm-durable-certs")
        let dir = Self.scratch("fm-durable-data")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: certs)
            try? FileManager.default.removeItem(atPath: dir)
        }
        let env = ["PUSHMOCK_DATA_DIR": dir]
        let (status, out) = try Self.inNamespace(
            "fcm_receiver.py", ["register", dir + "/credentials.json"], certs: certs, environment: env)
        #expect(status == 0, "\(out)")
        let (again, resumed) = try Self.inNamespace(
            "fcm_receiver.py", ["resume", dir + "/credentials.json"], certs: certs, environment: env)
        #expect(again == 0, "\(resumed)")
        #expect(resumed.contains(#""data": {"after": "restart"}"#), "\(resumed)")
    }

    @Test(
        "GCM check-in, register3 and MCS byte by byte with Google's own message definitions: logins, data messages in both codings, every kind of acknowledgement, redelivery, heartbeats both ways, expiry, and each hostile packet closed"
    )
    func mcsProtocol() throws {
        let server = try ServerProcess(["--timeout", "2"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [Self.clients + "/mcs_client.py", String(server.port), String(try #require(server.mcsPort)), ServerProcess.caFile])
        #expect(status == 0, "\(out)")
        #expect(out.contains(#"{"checks": 12}"#), "\(out)")
    }

    @Test("idle MCS connections beyond --max-connections: the oldest are closed to make room, and the server goes on")
    func idleFlood() throws {
        let server = try ServerProcess(["--max-connections", "60"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                Self.clients + "/mcs_client.py", "flood", String(server.port), String(try #require(server.mcsPort)),
                ServerProcess.caFile, "120",
            ])
        #expect(status == 0, "\(out)")
    }

    @Test(
        "a real headless Chromium checks in, registers and keeps its MCS connection with pushmock by its GCM switches: pywebpush's push to the endpoint it returned reaches its service worker, and so does an FCM v1 send to the token its page registered; every connection it opened went to 127.0.0.1"
    )
    func realChromium() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "make test-deps installs chromium")
        // Chromium's GCM connects only while the host has a network (docs/fcm-clients.md): it
        // runs in this namespace, kept on loopback by its switches, and the test checks its net log.
        let server = try ServerProcess()
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                Self.clients + "/chromium_push.py", String(server.port), String(try #require(server.tlsPort)),
                String(try #require(server.mcsPort)), ServerProcess.caFile,
            ])
        #expect(status == 0, "\(out)")
        #expect(out.contains(#""web_push": ["pushmock: hello Chromium"]"#), "\(out)")
        #expect(out.contains(#""fcm": ["FCM: to Chromium from "#), "\(out)")
    }

    @Test(
        "the client-side APIs over TLS and HTTP/2 under Google's host names (curl --http2): Installations, a check-in, register3's error"
    )
    func overHTTP2() throws {
        let server = try ServerProcess()
        let tls = try #require(server.tlsPort)
        func curl(_ host: String, _ path: String, _ body: String, _ headers: [String]) throws -> (Int32, String) {
            try runCommand(
                "/usr/bin/curl",
                [
                    "-s", "--http2", "--cacert", ServerProcess.caFile, "--resolve", "\(host):\(tls):127.0.0.1", "-w",
                    "\n%{http_version} %{http_code}",
                ]
                    + headers.flatMap { ["-H", $0] } + ["--data-binary", body, "https://\(host):\(tls)\(path)"])
        }
        let (s1, created) = try curl(
            "firebaseinstallations.googleapis.com", "/v1/projects/demo-pushmock/installations",
            #"{"fid":"dQ8PWd8gQ0K9cRq1yUHUfz","authVersion":"FIS_v2","appId":"1:1:web:1","sdkVersion":"w:0.6.13"}"#,
            ["x-goog-api-key: AIzaSyA-pushmock-test-key-0123456789abc", "Content-Type: application/json"])
        #expect(s1 == 0 && created.hasSuffix("\n2 200") && created.contains(#""fid":"dQ8PWd8gQ0K9cRq1yUHUfz""#), "\(created)")
        let (s2, checkin) = try curl(
            "device-provisioning.googleapis.com", "/checkin", #"{"checkin":{"type":2},"id":0,"security_token":0}"#,
            ["Content-Type: application/json"])
        #expect(s2 == 0 && checkin.hasSuffix("\n2 200") && checkin.contains(#""android_id":"#), "\(checkin)")
        let (s3, refused) = try curl(
            "android.clients.google.com", "/c2dm/register3", "app=org.chromium.linux&device=1&sender=1",
            ["Content-Type: application/x-www-form-urlencoded"])
        #expect(s3 == 0 && refused == "Error=AUTHENTICATION_FAILED\n2 401", "\(refused)")
    }

    @Test(
        "the iOS SDK's requests replayed in order (check-in, Installations, token registration with an APNs token); linked by one setting, an FCM send reaches the Simulator as `xcrun simctl push`; the token is deleted as the SDK deletes it"
    )
    func iosSDK() throws {
        let dir = Self.scratch("ios-sdk-xcrun")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "#!/bin/sh\necho \"$@\" > \(dir)/args\ncp \"$5\" \(dir)/payload.json\necho pushed\n".write(
            toFile: dir + "/xcrun", atomically: true, encoding: .utf8)
        chmod(dir + "/xcrun", 0o755)
        let path = dir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let server = try ServerProcess([], environment: ["PATH": path])
        let c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let number = try #require(c.request("GET", base).json["number"] as? String)

        // FIRMessagingCheckinService: JSON, no key, numbers back.
        let checkin = try c.request(
            "POST", "/checkin",
            body:
                #"{"checkin":{"iosbuild":{"model":"iPhone15,2","os_version":"IOS_17.5"},"type":2,"user_number":0,"last_checkin_msec":0},"fragment":0,"locale":"en_US","version":2,"digest":"","time_zone":"Europe/Berlin","user_serial_number":0,"id":0,"security_token":0}"#,
            headers: ["Host": "device-provisioning.googleapis.com"])
        #expect(checkin.status == 200, "\(checkin.text)")
        let androidID = try #require(checkin.json["android_id"] as? Int)
        let securityToken = try #require(checkin.json["security_token"] as? Int)

        // Firebase Installations, as iOS sends it: a trailing slash, the bundle id header.
        let fid = "cQ8PWd8gQ0K9cRq1yUHUfq"
        let install = try c.request(
            "POST", "/v1/projects/demo-pushmock/installations/",
            body: #"{"fid":"\#(fid)","authVersion":"FIS_v2","appId":"1:\#(number):ios:0a1b2c3d4e5f","sdkVersion":"i:11.4.0"}"#,
            headers: [
                "Host": "firebaseinstallations.googleapis.com", "X-Goog-Api-Key": "AIzaSyA-pushmock-test-key-0123456789abc",
                "X-Ios-Bundle-Identifier": "com.example.news",
            ])
        #expect(install.status == 200, "\(install.text)")
        #expect(install.json["fid"] as? String == fid)
        let authToken = try #require((install.json["authToken"] as? [String: Any])?["token"] as? String)
        let expiresIn = (install.json["authToken"] as? [String: Any])?["expiresIn"] as? String
        #expect(expiresIn == "604800s")

        // FIRMessagingTokenFetchOperation: form-encoded, AidLogin, the raw FIS token.
        let apns = String(repeating: "ab12", count: 16)
        func register(_ extra: String = "") throws -> HTTPConnection.Reply {
            try c.request(
                "POST", "/register",
                body:
                    "X-osv=17.5&device=\(androidID)&X-scope=*&plat=2&app=com.example.news&app_ver=1.0&X-cliv=fiid-11.4.0&sender=\(number)&X-subtype=\(number)&appid=\(fid)&apns_token=s_\(apns)&gmp_app_id=1:\(number):ios:0a1b2c3d4e5f"
                    + extra,
                headers: [
                    "Host": "fcmtoken.googleapis.com", "Content-Type": "application/x-www-form-urlencoded",
                    "Authorization": "AidLogin \(androidID):\(securityToken)", "app": "com.example.news",
                    "x-goog-firebase-installations-auth": authToken, "info": "pushmock",
                ])
        }
        let registered = try register()
        #expect(registered.status == 200 && registered.text.hasPrefix("token=") && !registered.text.contains("\n"))
        let token = String(registered.text.dropFirst(6))
        #expect(try register().text == registered.text, "the same registration again is the same token")

        let devices = try #require(c.request("GET", base + "/devices").json["devices"] as? [[String: Any]])
        let device = try #require(devices.first { $0["token"] as? String == token })
        #expect(device["platform"] as? String == "ios" && device["app"] as? String == "com.example.news")
        #expect(device["apns_token"] as? String == apns && device["apns_environment"] as? String == "sandbox")
        #expect((device["real_client"] as? [String: Any])?["kind"] as? String == "firebase_sdk")

        // One setting links every app the SDK registered to the Simulator.
        #expect(
            try c.request("POST", base + "/bridges", body: #"{"sdk_devices":true,"simulator":{"udid":"booted"}}"#).status == 201)
        let sent = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","notification":{"title":"Breaking","body":"News"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key"])
        #expect(sent.json["success"] as? Int == 1, "\(sent.text)")
        var args: [String] = []
        for _ in 0..<100 where args.isEmpty {
            usleep(100_000)
            args = ((try? String(contentsOfFile: dir + "/args", encoding: .utf8)) ?? "").split(separator: " ").map(String.init)
        }
        #expect(Array(args.prefix(4)) == ["simctl", "push", "booted", "com.example.news"], "\(args)")
        let payload =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/payload.json")))
            as? [String: Any]
        #expect(payload?["Simulator Target Bundle"] as? String == "com.example.news")
        #expect((payload?["aps"] as? [String: Any])?["alert"] as? [String: String] == ["title": "Breaking", "body": "News"])

        // Errors in the SDK's words; then FIRMessagingTokenDeleteOperation.
        let noFIS = try c.request(
            "POST", "/register",
            body: "device=\(androidID)&app=com.example.news&sender=\(number)&appid=\(fid)&apns_token=s_\(apns)",
            headers: [
                "Authorization": "AidLogin \(androidID):\(securityToken)", "Content-Type": "application/x-www-form-urlencoded",
            ])
        #expect(noFIS.text == "Error=FIS_AUTH_ERROR")
        #expect(try register("&delete=true").text == "deleted=com.example.news")
        let gone = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"a":"b"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key"])
        #expect(gone.text.contains("NotRegistered"), "\(gone.text)")
        // And the installation, as iOS deletes it.
        let deleted = try c.request(
            "DELETE", "/v1/projects/demo-pushmock/installations/\(fid)/", body: "{}",
            headers: [
                "X-Goog-Api-Key": "AIzaSyA-pushmock-test-key-0123456789abc",
                "Authorization": "FIS_v2 \(install.json["refreshToken"] as! String)",
            ])
        #expect(deleted.status == 200 && deleted.text == "{}")
    }
}
