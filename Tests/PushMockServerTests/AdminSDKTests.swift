import Foundation
import Testing

@Suite("firebase-admin 7.7.0 against a live pushmock", .serverTestLimit)
struct AdminSDKTests {
    @Test("service-account OAuth, send, dry run, send_each, multicast, topics, conditions, subscriptions and errors")
    func adminSDK() throws {
        #expect(FileManager.default.isExecutableFile(atPath: RealClientTests.python), "run `make venv` (make test does)")
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let account = try c.request("GET", base + "/serviceAccount")
        #expect(account.status == 200)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-sa-\(server.port).json")
        try account.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let androidDevice = try server.device("android", app: "com.example.shop")
        let android = androidDevice["token"] as! String
        let ios = try server.device("ios", app: "com.example.shop")["token"] as! String
        let gone = try server.device("android", app: "com.example.shop")
        #expect(try c.request("DELETE", base + "/devices/\(gone["id"]!)").status == 200)
        // The first send meets two 503s: the SDK retries (honouring Retry-After) and succeeds.
        #expect(
            try c.request("POST", base + "/devices/d1:scriptErrors", body: #"{"errors":["UNAVAILABLE","UNAVAILABLE"]}"#).status
                == 200)

        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                ServerProcess.packageRoot.appendingPathComponent("Tests/clients/admin_sdk.py").path,
                server.url, file.path, android, ios, gone["token"] as! String, androidDevice["fid"] as! String,
            ])
        #expect(status == 0, "\(out)")
        let result = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any]
        #expect(result?["send_each"] as? Int == 50)
        // send_each_async is the SDK's HTTP/2 path: it reached the plain port as h2c.
        #expect(result?["send_each_async"] as? Int == 5)
        let sends = try c.request("GET", base + "/messages?limit=1000").json["messages"] as? [[String: Any]] ?? []
        #expect(sends.filter { $0["http_version"] as? String == "2" && $0["tls"] as? Bool == false }.count == 5)
        #expect(result?["multicast"] as? [Bool] == [true, true, false])
        #expect((result?["unregistered"] as? String)?.contains("Requested entity was not found.") == true)

        // The log shows what the SDK did: the labeled send, the silent push, the rejections.
        let label = try c.request("GET", base + "/events?event=MESSAGE_ACCEPTED").json["events"] as? [[String: Any]]
        #expect(label?.contains { $0["analytics_label"] as? String == "sale" } == true)
        let rejected = try c.request("GET", base + "/events?event=INVALID_REGISTRATION&count=true").json
        #expect(rejected["count"] as? Int == 3) // the multicast's gone token, the send to it, the malformed one
        let invalid = try c.request("GET", base + "/events?event=INVALID_PARAMETERS&count=true").json
        #expect(invalid["count"] as? Int == 1) // the high-priority data message to iOS
        let retried = try c.request("GET", base + "/events?event=MESSAGE_RECEIVED_INTERNAL_ERROR&count=true").json
        #expect(retried["count"] as? Int == 2)
        let report = try c.request("GET", base + "/reports?analytics_label=sale").json["total"] as? [String: Any]
        #expect(report?["sends"] as? Int == 1)

        // The SDK's WebpushConfig, as a browser got it: webpush's title over the common one,
        // its data instead of none, its Topic as the collapse key, its link in fcmOptions.
        let web = result?["web"] as? [String: Any]
        let payload = web?["payload"] as? [String: Any]
        #expect(payload?["notification"] as? [String: String] == ["title": "Web T", "body": "B", "icon": "/i.png"])
        #expect(payload?["data"] as? [String: String] == ["w": "1"])
        #expect(payload?["collapseKey"] as? String == "news")
        #expect(payload?["fcmOptions"] as? [String: String] == ["link": "https://app.example.com/n/1"])
        let options = (web?["notification"] as? [String: Any])?["options"] as? [String: Any]
        #expect(options?["requireInteraction"] as? Bool == true)
        #expect((options?["actions"] as? [[String: String]])?.first == ["action": "yes", "title": "Yes"])
    }
}
