import Foundation
import Testing

@testable import PushMockCore

/// Takes deliveries as the server's workers would, and finishes attempts when told.
final class RecordingCarrier: BridgeCarrier {
    var carried: [BridgeDelivery] = []
    var finished: [BridgeAttempt] = []
    var retired: [String] = []
    /// Deliveries accepted before the queue counts as full.
    var room = Int.max

    func hasRoom(_ bridge: Bridge) -> Bool { carried.count < room }

    func carry(_ delivery: BridgeDelivery) -> Bool {
        guard carried.count < room else { return false }
        carried.append(delivery)
        return true
    }

    func finishedAttempts() -> [BridgeAttempt] {
        defer { finished.removeAll() }
        return finished
    }

    func retire(bridgeID: String) { retired.append(bridgeID) }
}

@Suite("Delivery bridges: what is forwarded, to which bridge, and what the log shows")
struct BridgeTests {
    let base = "/emulator/v1/projects/demo-pushmock"

    func bridge(_ h: Harness, _ body: String) -> Response { h.call("POST", base + "/bridges", body: body) }

    func body(_ d: BridgeDelivery) -> [String: Any] { json(String(decoding: d.body, as: UTF8.self)) as? [String: Any] ?? [:] }

    @Test("a project webhook gets every fate of a message on a device, with what the device received")
    func projectWebhook() throws {
        let carrier = RecordingCarrier()
        let h = try Harness(carrier: carrier) { $0.allowedCommands = ["*"] }
        let t = try h.device("android")["token"] as! String
        let r = bridge(h, #"{"webhook":{"url":"https://hooks.example/pm","secret":"k"}}"#)
        #expect(r.status == 201)
        #expect(json(r)["id"] as? String == "b1")
        let id = h.push(t, #""notification":{"title":"Hi"}"#)
        #expect(carrier.carried.map(\.eventName) == ["MESSAGE_DELIVERED", "MESSAGE_DISPLAYED"])
        let first = body(carrier.carried[0])
        #expect(first["delivery_id"] as? String == carrier.carried[0].key)
        #expect(carrier.carried[0].key.hasPrefix("b1-"))
        #expect((first["event"] as? [String: Any])?["message_id"] as? String == id)
        #expect((first["device"] as? [String: Any])?["id"] as? String == "d1")
        #expect(first["shown"] as? String == "displayed")
        let android = (first["received"] as? [String: Any])?["android"] as? [String: Any]
        #expect((android?["notification"] as? [String: String])?["title"] == "Hi")
        #expect(carrier.carried[0].environment.contains { $0 == ("PUSHMOCK_TITLE", "Hi") })
        // Attempts come back and are logged, with the bridge's counts.
        carrier.finished = [
            BridgeAttempt(
                delivery: carrier.carried[0], number: 1, succeeded: false, final: false, detail: "HTTP 500 (1 ms), next in 0.5 s"),
            BridgeAttempt(delivery: carrier.carried[0], number: 2, succeeded: true, final: true, detail: "HTTP 204 (1 ms)"),
        ]
        h.gateway.collectBridgeAttempts()
        let attempts = try h.events("&event=BRIDGE_ATTEMPT").map { $0["reason"] as? String ?? "" }
        #expect(
            attempts == [
                "b1 webhook MESSAGE_DELIVERED attempt 1: HTTP 500 (1 ms), next in 0.5 s",
                "b1 webhook MESSAGE_DELIVERED attempt 2: HTTP 204 (1 ms)",
            ])
        #expect(try h.events("&event=BRIDGE_ATTEMPT&device=d1").count == 2)
        // The device's fate is its last event but a bridge's; its timeline keeps the attempts.
        let detail = json(h.call("GET", base + "/messages/" + id.replacingOccurrences(of: "%", with: "%25")))
        let device = try #require((detail["devices"] as? [[String: Any]])?.first)
        #expect(device["fate"] as? String == "MESSAGE_IMPRESSION" && device["reason"] == nil, "\(device["fate"] ?? "")")
        #expect((device["timeline"] as? [[String: Any]])?.last?["event"] as? String == "BRIDGE_ATTEMPT")
        #expect((detail["outcomes"] as? [[String: Any]])?.first?["event"] as? String == "MESSAGE_IMPRESSION")
        let stats = json(h.call("GET", base + "/bridges/b1"))["stats"] as? [String: Int]
        #expect(stats == ["forwarded": 2, "attempts": 2, "succeeded": 1, "failed": 0, "overflowed": 0])
    }

    @Test("device and topic scopes, event filters; drops and stores are forwarded with their reason")
    func scopes() throws {
        let carrier = RecordingCarrier()
        let h = try Harness(carrier: carrier) { $0.allowedCommands = ["*"] }
        let a = try h.device("android")["token"] as! String
        let b = try h.device("android", extra: #","app_state":"terminated""#)["token"] as! String
        try h.subscribe("d2", "news")
        #expect(bridge(h, #"{"device":"d1","events":["MESSAGE_DISPLAYED"],"command":{"argv":["true"]}}"#).status == 201)
        #expect(bridge(h, #"{"topic":"/topics/news","command":{"argv":["true"]}}"#).status == 201)
        h.push(a, #""notification":{"title":"one"}"#)
        h.push(b, #""notification":{"title":"two"}"#)
        #expect(
            carrier.carried.map { "\($0.bridge.id) \($0.eventName) \($0.deviceID!)" } == [
                "b1 MESSAGE_DISPLAYED d1", "b2 MESSAGE_DROPPED d2",
            ])
        #expect(carrier.carried[1].environment.contains { $0 == ("PUSHMOCK_REASON", "app_force_stopped") })
    }

    @Test("a Simulator bridge gets what an iPhone displays, as the APNs payload with its target bundle")
    func simulator() throws {
        let carrier = RecordingCarrier()
        let h = try Harness(carrier: carrier) { $0.allowedCommands = ["*"] }
        let t = try h.device("ios", app: "com.example.news")["token"] as! String
        _ = try h.device("android")
        #expect(bridge(h, #"{"device":"d2","simulator":{}}"#).status == 400)
        let r = bridge(h, #"{"device":"d1","simulator":{"udid":"booted"}}"#)
        #expect(r.status == 201)
        #expect(json(r)["simulator"] as? [String: String] == ["udid": "booted", "bundle_id": "com.example.news"])
        h.push(t, #""notification":{"title":"Breaking","body":"News"}"#)
        #expect(carrier.carried.map(\.eventName) == ["MESSAGE_DISPLAYED"])
        let payload = try #require(carrier.carried.first?.simulatorPayload)
        let p = try #require(json(String(decoding: payload, as: UTF8.self)) as? [String: Any])
        #expect(p["Simulator Target Bundle"] as? String == "com.example.news")
        #expect(((p["aps"] as? [String: Any])?["alert"] as? [String: String]) == ["title": "Breaking", "body": "News"])
        #expect(String(decoding: payload, as: UTF8.self).hasPrefix(#"{"Simulator Target Bundle":"com.example.news","aps":"#))
    }

    @Test("what a full queue turns away is counted and logged, and the sender's answer does not change")
    func overflow() throws {
        let carrier = RecordingCarrier()
        carrier.room = 1
        let h = try Harness(carrier: carrier) { $0.allowedCommands = ["*"] }
        let t = try h.device("android")["token"] as! String
        #expect(bridge(h, #"{"queue_limit":1,"webhook":{"url":"http://127.0.0.1:9/dead"}}"#).status == 201)
        let r = json(h.send(#"{"to":"\#(t)","notification":{"title":"x"}}"#))
        #expect(r["success"] as? Int == 1)
        h.push(t, #""notification":{"title":"y"}"#)
        #expect(try h.events("&event=BRIDGE_OVERFLOW").isEmpty, "counted until the next collect")
        h.gateway.collectBridgeAttempts()
        let overflow = try h.events("&event=BRIDGE_OVERFLOW").map { $0["reason"] as? String ?? "" }
        #expect(overflow == ["b1 webhook: 3 events not forwarded, queue full (at most 1 deliveries, 8 MiB)"])
        #expect((json(h.call("GET", base + "/bridges/b1"))["stats"] as? [String: Int])?["overflowed"] == 3)
    }

    @Test(
        "bad configurations get a 400 that says why and change nothing",
        arguments: [
            (#"{}"#, "A bridge needs exactly one of 'webhook', 'simulator' or 'command', as an object."),
            (#"{"webhook":{"url":"ftp://x"}}"#, #"Invalid value at 'webhook.url': "ftp://x" is not an http:// or https:// URL."#),
            (#"{"webhook":{}}"#, "Missing required field 'webhook.url'."),
            (
                #"{"webhook":{"url":"http://h:99999/"}}"#,
                #"Invalid value at 'webhook.url': "http://h:99999/" has no usable port."#
            ),
            (
                #"{"webhook":{"url":"http://h","timeout_seconds":0}}"#,
                "Invalid value at 'webhook.timeout_seconds': 0 is not a number of seconds in 0.1...300."
            ),
            (
                #"{"webhook":{"url":"http://h","retries":3}}"#,
                #"Invalid JSON payload received. Unknown name "webhook.retries": Cannot find field."#
            ),
            (
                #"{"command":{"argv":[]}}"#,
                "Invalid value at 'command.argv': the program and its arguments, as a list of strings."
            ),
            (#"{"device":"d9","command":{"argv":["true"]}}"#, "No device d9 in project demo-pushmock."),
            (
                #"{"device":"d1","topic":"t","command":{"argv":["true"]}}"#,
                "Give 'device' or 'topic', not both (neither: every device of the project)."
            ),
            (
                #"{"events":["MESSAGE_ACCEPTED"],"command":{"argv":["true"]}}"#,
                #"Invalid value at 'events': "MESSAGE_ACCEPTED" is not one of MESSAGE_DELIVERED, MESSAGE_DISPLAYED, MESSAGE_PRESENTED, MESSAGE_STORED, MESSAGE_COLLAPSED, MESSAGE_EXPIRED, MESSAGE_DROPPED, MESSAGE_OPEN."#
            ),
            (#"{"simulator":{"udid":"booted"}}"#, "Missing required field 'simulator.bundle_id' (the app's bundle id)."),
            (
                #"{"webhook":{"url":"http://h"},"command":{"argv":["true"]}}"#,
                "A bridge needs exactly one of 'webhook', 'simulator' or 'command', as an object."
            ),
        ])
    func badConfiguration(_ body: String, _ message: String) throws {
        let h = try Harness { $0.allowedCommands = ["*"] }
        _ = try h.device("android")
        let r = bridge(h, body)
        #expect(r.status == 400)
        #expect((json(r)["error"] as? [String: Any])?["message"] as? String == message)
        #expect((json(h.call("GET", base + "/bridges"))["bridges"] as? [Any])?.isEmpty == true)
    }

    @Test(
        "a command bridge runs only what --allow-command allows (nothing by default), and bridges are bounded per project and in all"
    )
    func commandsAndLimits() throws {
        let closed = try Harness()
        let refused = bridge(closed, #"{"command":{"argv":["sh","-c","id"]}}"#)
        #expect(refused.status == 403, "\(refused.bodyText)")
        #expect((json(refused)["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
        #expect(((json(refused)["error"] as? [String: Any])?["message"] as? String)?.contains("--allow-command sh") == true)
        #expect(bridge(closed, #"{"webhook":{"url":"http://127.0.0.1:1/x"}}"#).status == 201)

        let listed = try Harness { $0.allowedCommands = ["./on-push.sh", "/usr/bin/logger"] }
        #expect(bridge(listed, #"{"command":{"argv":["./on-push.sh"]}}"#).status == 201)
        #expect(bridge(listed, #"{"command":{"argv":["/usr/bin/logger","-t","push"]}}"#).status == 201)
        #expect(bridge(listed, #"{"command":{"argv":["logger"]}}"#).status == 403)
        #expect(bridge(listed, #"{"command":{"argv":["sh","./on-push.sh"]}}"#).status == 403)

        let h = try Harness()
        for n in 0..<Bridges.perProject { #expect(bridge(h, #"{"webhook":{"url":"http://127.0.0.1:1/\#(n)"}}"#).status == 201) }
        let more = bridge(h, #"{"webhook":{"url":"http://127.0.0.1:1/x"}}"#)
        #expect(more.status == 400 && more.bodyText.contains("FAILED_PRECONDITION"), "\(more.bodyText)")
        #expect(h.call("DELETE", base + "/bridges/b1").status == 200)
        #expect(bridge(h, #"{"webhook":{"url":"http://127.0.0.1:1/x"}}"#).status == 201)
        var made = Bridges.perProject
        var project = 0
        while made < Bridges.inTotal {
            project += 1
            let r = h.call(
                "POST", "/emulator/v1/projects/other-\(project)/bridges", body: #"{"webhook":{"url":"http://127.0.0.1:1/x"}}"#)
            if r.status == 201 { made += 1 } else { break }
        }
        #expect(made == Bridges.inTotal)
        let beyond = h.call(
            "POST", "/emulator/v1/projects/last-one/bridges", body: #"{"webhook":{"url":"http://127.0.0.1:1/x"}}"#)
        #expect(beyond.status == 400 && beyond.bodyText.contains("the most it keeps"), "\(beyond.bodyText)")
    }

    @Test("webhook URLs are parsed strictly: CR LF, spaces, bad escapes, user info and bad hosts or ports are refused")
    func webhookURLs() throws {
        let h = try Harness()
        for url in [
            "http://127.0.0.1:1/x\r\nX-Injected: 1", "http://127.0.0.1:1/x HTTP/1.1\r\nHost: a\r\n\r\nGET /smuggled",
            "http://127.0.0.1/a b", "http://h/%zz", "http://h/%4", "http://user:pw@h/", "http://-bad-/", "http://a..b/",
            "http://h:99999/", "http://h:8x/", "http://h:/", "http://h/ä", "http://[::zz]/", "http://h/\"q\"", "ftp://h/",
            "http://" + String(repeating: "a", count: 64) + ".com/", "http://h/" + String(repeating: "a", count: 2048),
        ] {
            let body = "{\"webhook\":{\"url\":\(JSONWriter.quotedJSON(.string(url)))}}"
            let r = bridge(h, body)
            #expect(r.status == 400 && r.bodyText.contains("webhook.url"), "\(url): \(r.bodyText)")
        }
        let ok = try #require(try? WebhookURL.parse("HTTPS://Example.com:8443/a/b%20c?x=1&y=%2F#frag").get())
        #expect(
            ok
                == WebhookURL(
                    secure: true, host: "Example.com", port: 8443, target: "/a/b%20c?x=1&y=%2F", hostHeader: "Example.com:8443"))
        let v6 = try #require(try? WebhookURL.parse("http://[::1]?q").get())
        #expect(v6.host == "::1" && v6.port == 80 && v6.target == "/?q" && v6.hostHeader == "[::1]")
        #expect((json(h.call("GET", base + "/bridges"))["bridges"] as? [Any])?.isEmpty == true)
    }

    @Test("ids, conflicts, delete, reset, and the saved state brings bridges back")
    func lifecycle() throws {
        let carrier = RecordingCarrier()
        let h = try Harness(carrier: carrier) { $0.allowedCommands = ["*"] }
        _ = try h.device("ios")
        #expect(bridge(h, #"{"id":"hook","webhook":{"url":"http://127.0.0.1:1/x","secret":"s"}}"#).status == 201)
        #expect(bridge(h, #"{"id":"hook","command":{"argv":["true"]}}"#).status == 409)
        #expect(bridge(h, #"{"device":"d1","simulator":{}}"#).status == 201)
        let rows = h.gateway.allState()
        let copy = try Harness { $0.allowedCommands = ["*"] }
        try copy.gateway.seed(saved: rows)
        let restored = json(copy.call("GET", base + "/bridges"))["bridges"] as? [[String: Any]]
        #expect(restored?.map { $0["id"] as? String } == ["hook", "b1"])
        #expect((restored?.first?["webhook"] as? [String: Any])?["secret"] as? String == "s")
        #expect(h.call("DELETE", base + "/bridges/hook").status == 200)
        #expect(carrier.retired == ["demo-pushmock/hook"])
        #expect(h.call("GET", base + "/bridges/hook").status == 404)
        #expect(h.call("DELETE", base).status == 200)
        #expect((json(h.call("GET", base + "/bridges"))["bridges"] as? [Any])?.isEmpty == true)
    }

    @Test("--webhook: one bridge for every project, listed in each, not deletable")
    func flag() throws {
        let carrier = RecordingCarrier()
        let h = try Harness(carrier: carrier) {
            $0.webhookURL = "http://127.0.0.1:5000/all"
            $0.allowedCommands = ["*"]
        }
        let t = try h.device("android")["token"] as! String
        h.push(t, #""data":{"k":"v"}"#)
        #expect(carrier.carried.map { "\($0.bridge.key) \($0.eventName)" } == ["*/webhook MESSAGE_DELIVERED"])
        let listed = json(h.call("GET", base + "/bridges"))["bridges"] as? [[String: Any]]
        #expect(listed?.first?["every_project"] as? Bool == true)
        #expect(h.call("DELETE", base + "/bridges/webhook").status == 400)
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(arguments: ["--webhook", "ftp://x"], environment: [:])
        }
        let c = try Configuration.load(arguments: [], environment: ["PUSHMOCK_WEBHOOK": "https://ci.example/hook"])
        #expect(c.webhookURL == "https://ci.example/hook")
    }
}
