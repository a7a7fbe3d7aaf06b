import Foundation
import Testing

@testable import PushMockCore

@Suite("The control API: devices, topics, messages, events, projects")
struct ControlAPITests {
    let base = "/emulator/v1/projects/demo-pushmock"

    @Test("a registered device has real-looking identifiers")
    func registration() throws {
        let h = try Harness()
        let ios = try h.device("ios")
        let token = try #require(ios["token"] as? String)
        let fid = try #require(ios["fid"] as? String)
        #expect(fid.range(of: "^[c-f][A-Za-z0-9_-]{21}$", options: .regularExpression) != nil)
        #expect(token.hasPrefix(fid + ":APA91b") && token.count == 22 + 7 + 134)
        #expect((ios["apns_token"] as? String)?.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil)
        #expect(ios["apns_environment"] as? String == "sandbox")
        let android = try h.device("android")
        #expect(android["apns_token"] is NSNull && android["apns_environment"] is NSNull)
        #expect((json(h.call("GET", base + "/devices"))["devices"] as? [Any])?.count == 2)
        #expect(json(h.call("GET", base + "/devices/d1"))["token"] as? String == token)
    }

    @Test(
        "bad device bodies get Google's error shape",
        arguments: [
            (#"{"app":"a"}"#, "Missing required field 'platform' (ios, android or web)."),
            (#"{"platform":"windows","app":"a"}"#, "Invalid value at 'platform': \"windows\" is not ios, android or web."),
            (#"{"platform":"ios"}"#, "Missing required field 'app' (a bundle id, package name or web origin)."),
            (
                #"{"platform":"ios","app":"a","color":"red"}"#,
                "Invalid JSON payload received. Unknown name \"color\": Cannot find field."
            ),
            (#"{"platform":5,"app":"a"}"#, "Invalid value at 'platform' (TYPE_STRING), 5"),
            // Spelled with the letters of a case, or as long as one: still refused.
            (#"{"platform":"IOS","app":"a"}"#, "Invalid value at 'platform': \"IOS\" is not ios, android or web."),
            (
                #"{"platform":"ios","app":"a","app_state":"backgrounx"}"#,
                "Invalid value at 'app_state': \"backgrounx\" is not foreground, background, not_running or terminated."
            ),
            (
                #"{"platform":"ios","app":"a","notifications":"denies"}"#,
                "Invalid value at 'notifications': \"denies\" is not authorized, denied, provisional or not_determined."
            ),
            (
                #"{"platform":"ios","app":"a","presentation_options":["banner","alert"]}"#,
                "Invalid value at 'presentation_options': \"alert\" is not banner, list, sound or badge."
            ),
            (#"{"platform":"ios""#, "Invalid JSON payload received. Unexpected end of input at position 17."),
            (
                #"{"platform":"android","app":"a","apns_environment":"sandbox"}"#,
                "'apns_environment' and 'apns_token' apply to iOS devices only."
            ),
        ])
    func badDevice(_ body: String, _ message: String) throws {
        let r = try Harness().call("POST", base + "/devices", body: body)
        #expect(r.status == 400)
        let error = json(r)["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 400)
        #expect(error?["status"] as? String == "INVALID_ARGUMENT")
        #expect(error?["message"] as? String == message)
    }

    @Test("--strict-apps refuses devices for undeclared apps until the app is declared")
    func strictApps() throws {
        let h = try Harness { $0.strictApps = true }
        let r = h.call("POST", base + "/devices", body: #"{"platform":"ios","app":"com.x"}"#)
        #expect(r.status == 400 && (json(r)["error"] as? [String: Any])?["status"] as? String == "FAILED_PRECONDITION")
        #expect(h.call("POST", base + "/apps", body: #"{"platform":"ios","app":"com.x"}"#).status == 200)
        #expect(h.call("POST", base + "/devices", body: #"{"platform":"ios","app":"com.x"}"#).status == 201)
    }

    @Test("fixed tokens may be given; duplicates conflict")
    func fixedToken() throws {
        let h = try Harness()
        let token = "fAAAAAAAAAAAAAAAAAAAAA:APA91b" + String(repeating: "z", count: 134)
        let d = try h.device("android", extra: #","token":"\#(token)""#)
        #expect(d["token"] as? String == token)
        let again = h.call("POST", base + "/devices", body: #"{"platform":"android","app":"a","token":"\#(token)"}"#)
        #expect(again.status == 409)
        #expect(h.call("POST", base + "/devices", body: #"{"platform":"android","app":"a","token":"short"}"#).status == 400)
    }

    @Test("PATCH changes the APNs environment; DELETE uninstalls; unknown ids are 404")
    func patchAndDelete() throws {
        let h = try Harness()
        try h.device("ios")
        let patched = json(h.call("PATCH", base + "/devices/d1", body: #"{"apns_environment":"production"}"#))
        #expect(patched["apns_environment"] as? String == "production")
        #expect(h.call("PATCH", base + "/devices/d1", body: #"{"apns_environment":"moon"}"#).status == 400)
        #expect(h.call("PATCH", base + "/devices/d1", body: #"{"app_state":"x"}"#).status == 400)
        #expect(h.call("DELETE", base + "/devices/d1").status == 200)
        let gone = h.call("GET", base + "/devices/d1")
        #expect(gone.status == 404 && (json(gone)["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
    }

    @Test("device-side subscriptions validate the topic name")
    func deviceTopics() throws {
        let h = try Harness()
        try h.device("android")
        #expect(json(h.call("POST", base + "/devices/d1/topics/news"))["topics"] as? [String] == ["news"])
        #expect(h.call("POST", base + "/devices/d1/topics/bad%20name").status == 400)
        #expect(json(h.call("DELETE", base + "/devices/d1/topics/news"))["topics"] as? [String] == [])
    }

    @Test("events filter by device, token, topic, event and since; wait returns at once when satisfied")
    func eventFilters() throws {
        let h = try Harness()
        let t1 = try h.device("android")["token"] as! String
        try h.device("android")
        try h.subscribe("d2", "sports")
        _ = h.send(#"{"to":"\#(t1)","data":{"a":"b"}}"#)
        _ = h.send(#"{"to":"/topics/sports","notification":{"title":"goal"}}"#)
        #expect(try h.eventNames("&device=d1") == ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED"])
        #expect(
            try h.eventNames("&topic=sports") == [
                "MESSAGE_ACCEPTED", "MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_IMPRESSION",
            ])
        #expect(try h.eventNames("&event=MESSAGE_DISPLAYED") == ["MESSAGE_DISPLAYED"])
        let escaped = t1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try h.eventNames("&token=\(escaped)").count == 2)
        #expect(try h.events("&since=4").map { $0["seq"] as? Int } == [5, 6, 7])
        #expect((json(h.call("GET", base + "/events?limit=2"))["events"] as? [Any])?.count == 2)
        let waited = h.gateway.handle(Request(method: "GET", target: base + "/events?wait=5&min=2"))
        guard case .response(let r) = waited else {
            Issue.record("should answer at once")
            return
        }
        #expect((json(r)["events"] as? [Any])?.count == 7)
        let parked = h.gateway.handle(Request(method: "GET", target: base + "/events?wait=5&min=8"))
        guard case .waitForEvents(var w) = parked else {
            Issue.record("should wait")
            return
        }
        #expect(!h.gateway.readers.isReady(&w))
        _ = h.send(#"{"to":"\#(t1)","data":{"a":"b"}}"#)
        #expect(h.gateway.readers.isReady(&w))
        for bad in ["?event=NOPE", "?limit=0", "?since=x", "?wait=61", "?min=0"] {
            #expect(h.call("GET", base + "/events" + bad).status == 400, "\(bad)")
        }
    }

    @Test("a long-poll over a long log reads it a bounded run a check, on until it has read it all")
    func longPollReadsOn() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let batch = #"{"platform":"android","app":"a","count":5000,"topics":["t"]}"#
        #expect(h.call("POST", base + "/devices:batchCreate", body: batch).status == 201)
        _ = h.send(#"{"to":"/topics/t","data":{"a":"b"}}"#)
        let total = h.gateway.log.count
        #expect(total > 2 * EventReaders.checkBatch)
        let parked = h.gateway.handle(Request(method: "GET", target: base + "/events?wait=5&limit=100000&min=\(total)"))
        guard case .waitForEvents(var w) = parked else {
            Issue.record("should wait: the first check reads only part of the log")
            return
        }
        #expect(!h.gateway.readers.isCaughtUp(w))
        // Nothing is logged meanwhile: each check reads on where the last one stopped.
        var checks = 1
        repeat { checks += 1 } while !h.gateway.readers.isReady(&w) && checks < 100
        #expect(h.gateway.readers.isCaughtUp(w))
        #expect(checks == (total + EventReaders.checkBatch - 1) / EventReaders.checkBatch, "\(checks) checks")
        // One more than the log holds: read to the end, not ready until one more is logged.
        var tooMany = EventWait(query: w.query, minimum: total + 1, seconds: 5, countOnly: false)
        while !h.gateway.readers.isCaughtUp(tooMany) { #expect(!h.gateway.readers.isReady(&tooMany)) }
        _ = h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#)
        #expect(!h.gateway.readers.isCaughtUp(tooMany) && h.gateway.readers.isReady(&tooMany))
    }

    @Test("the log is bounded: evictions are counted, never silent")
    func retention() throws {
        let h = try Harness { $0.maxEvents = 5 }
        let t = try h.device("android")["token"] as! String
        for _ in 0..<4 { _ = h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#) }
        let r = json(h.call("GET", base + "/events"))
        #expect((r["events"] as? [Any])?.count == 5)
        #expect(r["evicted"] as? Int == 3)
        #expect(json(h.call("GET", base))["events_evicted"] as? Int == 3)
    }

    @Test("a log row takes 72 bytes (a million are kept by default; a topic send writes two per device)")
    func rowSize() throws {
        #expect(MemoryLayout<Event>.stride == 72)
    }

    @Test("a reply takes at most 32 bytes (each answer is passed from handler to transport; the large, rare ones are boxed)")
    func replySize() {
        #expect(MemoryLayout<Reply>.size <= 32)
    }

    @Test("messages list newest first; DELETE messages clears sends, inboxes and events; DELETE project resets")
    func messagesAndReset() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        try h.subscribe("d1", "x")
        _ = h.send(#"{"to":"\#(t)","data":{"n":"1"}}"#)
        _ = h.send(#"{"to":"/topics/x","data":{"n":"2"}}"#)
        let list = json(h.call("GET", base + "/messages"))["messages"] as? [[String: Any]]
        #expect(list?.map { $0["target"] as? String } == ["topic", "token"])
        #expect(h.call("GET", base + "/messages/nope").status == 404)
        #expect(h.call("DELETE", base + "/messages").status == 200)
        #expect(try h.events().isEmpty && h.inbox("d1").isEmpty)
        #expect((json(h.call("GET", base + "/messages"))["messages"] as? [Any])?.isEmpty == true)
        #expect(h.call("DELETE", base).status == 200)
        #expect((json(h.call("GET", base + "/devices"))["devices"] as? [Any])?.isEmpty == true)
        #expect(json(h.send(#"{"to":"\#(t)","data":{"n":"1"}}"#)).description.contains("NotRegistered"))
    }

    @Test("the manual clock advances; the system clock refuses")
    func clock() throws {
        let h = try Harness()
        let r = json(h.call("POST", "/emulator/v1/clock:advance", body: #"{"seconds":90}"#))
        #expect(r["now"] as? String == (Harness.start + 90_000_000).rfc3339)
        #expect(h.call("POST", "/emulator/v1/clock:advance", body: #"{"seconds":-1}"#).status == 400)
        let system = try Gateway(configuration: Configuration())
        let refused = system.handle(
            Request(
                method: "POST", target: "/emulator/v1/clock:advance", headers: [("Content-Type", "application/json")],
                body: Array(#"{"seconds":1}"#.utf8)))
        guard case .response(let resp) = refused else { return }
        #expect(resp.status == 400)
    }

    @Test("unknown control routes are 404 and wrong methods 405, in Google's shape")
    func routing() throws {
        let h = try Harness()
        let missing = h.call("GET", "/emulator/v1/nothing")
        #expect(missing.status == 404 && (json(missing)["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
        let method = h.call("PUT", base + "/devices")
        #expect(method.status == 405 && (json(method)["error"] as? [String: Any])?["code"] as? Int == 405)
        #expect(h.call("GET", "/nothing").bodyText.contains("Error 404 (Not Found)!!1"))
        #expect(h.call("GET", "/emulator/v1/projects/Bad_Project/devices").status == 404)
    }

    @Test(
        "a path no route serves answers in the shape of its neighbours: Google's front-end pages under /v1/ and /fcm/, APNs reasons under /3/"
    )
    func unroutedFamilies() throws {
        let h = try Harness()
        let v1 = h.call("POST", "/v1/projects/demo-pushmock/nothing:send", body: "{}")
        #expect(
            v1.status == 404 && v1.bodyText.contains("Error 404 (Not Found)!!1")
                && v1.bodyText.contains("/v1/projects/demo-pushmock/nothing:send"))
        let get = h.call("GET", "/v1/projects/demo-pushmock/messages:send")
        #expect(get.status == 405 && get.bodyText.contains("Error 405 (Method Not Allowed)!!1"))
        let fcm = h.call("POST", "/fcm/other", body: "{}")
        #expect(fcm.status == 404 && fcm.bodyText.contains("Error 404 (Not Found)!!1"))
        let apns = h.call("POST", "/3/nothing/here", body: "{}")
        #expect(apns.status == 404 && apns.bodyText == #"{"reason":"BadPath"}"# && apns.headers.contains { $0.name == "apns-id" })
    }

    @Test("--max-projects bounds the projects made on first use: one more is 429 RESOURCE_EXHAUSTED until one is deleted")
    func maxProjects() throws {
        let h = try Harness { $0.maxProjects = 3 }
        #expect(h.call("GET", "/emulator/v1/projects/second").status == 200)
        #expect(h.call("GET", "/emulator/v1/projects/third").status == 200)
        let r = h.call("POST", "/emulator/v1/projects/fourth/devices", body: #"{"platform":"android","app":"a"}"#)
        #expect(r.status == 429 && r.bodyText.contains("RESOURCE_EXHAUSTED") && r.bodyText.contains("--max-projects"))
        #expect(h.call("GET", "/emulator/v1/projects/second").status == 200, "existing ones are served")
        #expect(h.call("DELETE", "/emulator/v1/projects/second").status == 200)
        #expect(h.call("GET", "/emulator/v1/projects/fourth").status == 200)
    }

    @Test("identifiers get their platform's rules: app ids by platform, every string field bounded, a clear 400")
    func identifiers() throws {
        let h = try Harness()
        let huge = String(repeating: "a", count: 1 << 20)
        for (platform, app) in [
            ("android", huge), ("ios", huge), ("web", "https://" + huge), ("android", "com.-x"), ("android", "com.example-app"),
            ("android", "1com.x"), ("ios", "com.example_app"), ("ios", "com.exa mple"), ("web", "https://exa mple.com"),
            ("android", String(repeating: "a", count: 151)), ("ios", String(repeating: "a", count: 156)), ("ios", "com..x"),
            ("ios", ".com.x"), ("android", "com."), ("android", "com..x"), ("android", ".com"),
        ] {
            let r = h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices", body: #"{"platform":"\#(platform)","app":"\#(app)"}"#)
            #expect(r.status == 400 && r.bodyText.contains("Invalid value at 'app'") && r.body.count < 1000, "\(app.prefix(40))")
            // The answer says the platform's rule, with an example.
            if platform != "web", app.count < 8192 { #expect(r.bodyText.contains("(com.example.app)"), "\(r.bodyText)") }
            let a = h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/apps", body: #"{"platform":"\#(platform)","app":"\#(app)"}"#)
            #expect(a.status == 400, "\(app.prefix(40))")
        }
        for (platform, app) in [
            ("android", "com.example.app_2"), ("ios", "com.example.App-2"), ("web", "https://example.com:8443"),
        ] {
            try h.device(platform, app: app)
        }
        let long = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"android","app":"a","id":"\#(String(repeating: "x", count: 9000))"}"#)
        #expect(long.status == 400 && long.bodyText.contains("longer than 8192 bytes"), "\(long.bodyText.prefix(200))")
        let key = h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"key_id":"\#(huge)"}"#)
        #expect(key.status == 400 && key.body.count < 1000)
        let sim = h.call("POST", "/emulator/v1/projects/demo-pushmock/bridges", body: #"{"simulator":{"bundle_id":"bad id!"}}"#)
        #expect(sim.status == 400 && sim.bodyText.contains("Invalid value at 'simulator.bundle_id'"), "\(sim.bodyText)")
    }
}

extension ControlAPITests {
    @Test("--max-devices bounds what the control API registers: a batch beyond it is refused whole, 429 RESOURCE_EXHAUSTED")
    func maxDevices() throws {
        let h = try Harness { $0.maxDevices = 10 }
        let base = "/emulator/v1/projects/demo-pushmock/devices"
        let over = h.call("POST", base + ":batchCreate", body: #"{"platform":"android","app":"a","count":11}"#)
        #expect(over.status == 429 && over.bodyText.contains("--max-devices"), "\(over.bodyText)")
        #expect(h.project.devices.count == 0)
        let batch = h.call("POST", base + ":batchCreate", body: #"{"platform":"android","app":"a","count":9,"topics":["t"]}"#)
        #expect(batch.status == 201 && json(batch)["last"] as? String == "d9", "\(batch.bodyText)")
        try h.device("ios")
        #expect(h.call("POST", base, body: #"{"platform":"ios","app":"a"}"#).status == 429)
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/topics").bodyText.contains("\"subscribers\":9"))
    }
}

/// `GET .../serviceAccount` is cheap and makes no state after the first: one account per
/// project, handed out again; keys are made ahead (`KeyNotReady` when none is).
@Suite("Service accounts")
struct ServiceAccountTests {
    final class CountingKeys: KeyService, @unchecked Sendable {
        var made = 0
        var ready = true
        func generateRSAKey() throws -> (privatePEM: String, publicPEM: String) {
            guard ready else { throw KeyNotReady() }
            made += 1
            return ("PRIVATE \(made)", "PUBLIC \(made)")
        }
        func generateP256Key() throws -> (privatePEM: String, publicPEM: String) { ("P", "Q") }
        func publicKey(fromPrivatePEM pem: String) throws -> String { pem.replacingOccurrences(of: "PRIVATE", with: "PUBLIC") }
        func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool { false }
        func verifyES256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool { false }
        func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws
            -> (certificatePEM: String, privateKeyPEM: String)
        { ("", "") }
        var certificateAuthorityPEM: String? { nil }
    }

    static let base = "/emulator/v1/projects/demo-pushmock"

    @Test("the same account every time; POST makes another; a restart hands out the same one")
    func sameEveryTime() throws {
        let keys = CountingKeys()
        let h = try Harness(keys: keys)
        let first = json(h.call("GET", Self.base + "/serviceAccount"))
        for _ in 0..<5 {
            #expect(
                json(h.call("GET", Self.base + "/serviceAccount"))["client_email"] as? String == first["client_email"] as? String)
        }
        #expect(keys.made == 1 && first["private_key"] as? String == "PRIVATE 1")
        let other = h.call("POST", Self.base + "/serviceAccounts", body: "{}")
        #expect(other.status == 201 && json(other)["client_email"] as? String != first["client_email"] as? String)
        #expect(json(h.call("GET", Self.base + "/serviceAccount"))["private_key"] as? String == "PRIVATE 1")

        let rows = h.gateway.allState()
        let copy = try Harness(keys: CountingKeys())
        try copy.gateway.seed(StateRows.fixture(projects: rows.projects), file: "saved state")
        let again = json(copy.call("GET", Self.base + "/serviceAccount"))
        #expect(
            again["client_email"] as? String == first["client_email"] as? String && again["private_key"] as? String == "PRIVATE 1"
        )
    }

    @Test("no key ready yet: the answer waits for one (the loop goes on), and nothing is made meanwhile")
    func notReady() throws {
        let keys = CountingKeys()
        keys.ready = false
        let h = try Harness(keys: keys)
        let reply = h.gateway.handle(
            Request(method: "GET", target: Self.base + "/serviceAccount", headers: [("Host", "localhost")]))
        guard case .sliced(let work) = reply else {
            Issue.record("expected an answer that waits, got \(reply)")
            return
        }
        guard case .waiting = work.step() else {
            Issue.record("expected it to wait for a key")
            return
        }
        #expect(h.gateway.credentials.serviceAccounts.isEmpty)
        keys.ready = true
        guard case .done(let r) = work.step() else {
            Issue.record("expected the answer once a key is ready")
            return
        }
        #expect(r.status == 200 && json(r)["private_key"] as? String == "PRIVATE 1")
    }
}
