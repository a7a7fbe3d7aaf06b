import Foundation
import Testing

@testable import PushMockCore

@Suite("Chaos: failure injection")
struct ChaosTests {
    let chaosURL = "/emulator/v1/projects/demo-pushmock/chaos"

    func put(_ h: Harness, _ body: String) -> Response { h.call("PUT", chaosURL, body: body) }

    func header(_ r: Response, _ name: String) -> String? {
        r.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func reply(
        _ h: Harness, _ method: String, _ target: String, body: String, headers: [(name: String, value: String)] = [],
        connection: ConnectionContext? = nil
    ) -> Reply {
        var request = Request(
            method: method, target: target, headers: headers + [("Content-Type", "application/json")],
            body: Array(body.utf8))
        request.connection = connection
        return h.gateway.handle(request)
    }

    @Test("the surfaces and the errors each can inject are listed by the API, so the dashboard needs no list of its own")
    func surfacesListed() throws {
        let h = try Harness()
        let r = h.call("GET", "/emulator/v1/chaos/surfaces")
        #expect(r.status == 200)
        let list = try #require(json(r)["surfaces"] as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ChaosSurface.allCases.map(\.rawValue))
        #expect(list.map { $0["errors"] as? [String] } == ChaosSurface.allCases.map(\.errors))
        #expect(list.first?["per_recipient_errors"] as? [String] == ["Unavailable", "InternalServerError"])
        #expect(list.last?["label"] as? String == "Web Push endpoints")
    }

    @Test("--chaos takes surface.field=value pairs; bad ones stop the start with a reason")
    func flags() throws {
        let c = try Configuration.load(
            arguments: [
                "--chaos", "legacy.error_rate=0.25,legacy.error=503,apns.latency_ms=40,apns.drop=goaway",
                "--chaos-seed", "42",
            ], environment: [:])
        #expect(c.chaos[.legacy]?.errorRate == 0.25 && c.chaos[.legacy]?.error == "503")
        #expect(c.chaos[.apns]?.latencyMs == 40 && c.chaos[.apns]?.drop == .goaway && c.chaos[.v1] == nil)
        #expect(c.chaosSeed == 42)
        let env = try Configuration.load(arguments: [], environment: ["PUSHMOCK_CHAOS": "v1.error=INTERNAL,v1.error_rate=1"])
        #expect(env.chaos[.v1]?.error == "INTERNAL")
        let bad: [(String, String)] = [
            ("legacy.error_rate=2", "'legacy.error_rate' must be a number in 0...1."),
            ("v1.error=Unavailable", "'v1.error' must be one of UNAVAILABLE, QUOTA_EXCEEDED, INTERNAL."),
            ("sms.error_rate=1", "Unknown surface 'sms': use legacy, v1, topics, apns or webpush."),
            ("apns.drop=reset", "'apns.drop' must be close or goaway."),
            (
                "apns.speed=1",
                "Unknown field 'apns.speed': use error_rate, error, retry_after, latency_ms, jitter_ms, drop_rate, drop."
            ),
            ("error_rate=1", "'error_rate=1' is not surface.field=value (e.g. legacy.error_rate=0.1)."),
        ]
        for (flag, message) in bad {
            #expect(throws: ConfigurationError(description: "--chaos: " + message)) {
                try Configuration.load(arguments: ["--chaos", flag], environment: [:])
            }
        }
        #expect(throws: ConfigurationError.self) { try Configuration.load(arguments: ["--chaos-seed", "-1"], environment: [:]) }
        // The flag's settings are every project's starting settings.
        let h = try Harness { $0.chaos = c.chaos }
        #expect(h.project.chaos == c.chaos)
        try h.device("android", app: "a.b", project: "other-project")
        #expect(h.gateway.directory["other-project"]?.chaos == c.chaos)
    }

    @Test("PUT, GET and DELETE .../chaos; bad settings answer 400 INVALID_ARGUMENT")
    func controlAPI() throws {
        let h = try Harness()
        let off = json(h.call("GET", chaosURL))
        #expect((off["legacy"] as? [String: Any])?["error_rate"] as? Int == 0)
        #expect((off["apns"] as? [String: Any])?["error"] as? String == "ServiceUnavailable")
        let r = put(
            h, #"{"v1":{"error_rate":0.5,"error":"QUOTA_EXCEEDED","retry_after":30},"apns":{"latency_ms":20,"jitter_ms":5}}"#)
        #expect(r.status == 200)
        let v1 = json(r)["v1"] as? [String: Any]
        #expect(
            v1?["error_rate"] as? Double == 0.5 && v1?["retry_after"] as? Int == 30 && v1?["error"] as? String == "QUOTA_EXCEEDED"
        )
        #expect(h.project.chaos[.apns]?.jitterMs == 5 && h.project.chaos[.legacy] == nil)
        for body in [
            #"{"v1":{"error_rate":"lots"}}"#, #"{"v1":1}"#, #"{"fax":{}}"#, #"{"seed":-3}"#,
            #"{"apns":{"error":"BadDeviceToken"}}"#, "[",
        ] {
            let bad = put(h, body)
            #expect(
                bad.status == 400 && (json(bad)["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT", "\(body)"
            )
        }
        #expect(h.project.chaos[.v1]?.errorRate == 0.5, "a refused PUT changes nothing")
        #expect(h.call("DELETE", chaosURL).status == 200 && h.project.chaos == ChaosSettings())
    }

    @Test("legacy 503 and 500 fail the whole request before anything is accepted; logged with reason chaos")
    func legacyWholeRequest() throws {
        let h = try Harness()
        let token = try h.device("android")["token"] as! String
        #expect(put(h, #"{"legacy":{"error_rate":1,"error":"503","retry_after":7}}"#).status == 200)
        let r = h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#)
        #expect(r.status == 503 && header(r, "Retry-After") == "7" && r.bodyText == "Unavailable")
        #expect(try h.eventNames() == ["MESSAGE_RECEIVED_INTERNAL_ERROR"])
        #expect(try h.events().first?["reason"] as? String == "chaos")
        #expect(put(h, #"{"legacy":{"error_rate":1,"error":"500"}}"#).status == 200)
        #expect(h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#).status == 500)
        // A request that does not authenticate is not the project's: no chaos, the real 401.
        #expect(h.send(#"{"to":"\#(token)"}"#, key: "wrong").status == 401)
        #expect(h.call("DELETE", chaosURL).status == 200)
        #expect(json(h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#))["success"] as? Int == 1)
    }

    @Test(
        "legacy Unavailable is rolled per recipient: failed tokens get it in results, the others are delivered; a seed repeats the run"
    )
    func legacyPerRecipient() throws {
        func run(seed: Int) throws -> [String] {
            let h = try Harness()
            let tokens = try (0..<40).map { _ in try h.device("android")["token"] as! String }
            #expect(put(h, #"{"seed":\#(seed),"legacy":{"error_rate":0.5,"error":"Unavailable"}}"#).status == 200)
            let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
            let r = json(h.send(#"{"registration_ids":[\#(list)],"data":{"k":"v"}}"#))
            let results = r["results"] as! [[String: Any]]
            let failed = results.filter { $0["error"] as? String == "Unavailable" }.count
            #expect(r["failure"] as? Int == failed && r["success"] as? Int == 40 - failed)
            #expect(failed > 5 && failed < 35, "about half of 40 fail: \(failed)")
            let chaos = try h.events("&event=MESSAGE_RECEIVED_INTERNAL_ERROR")
            #expect(chaos.count == failed && chaos.allSatisfy { $0["reason"] as? String == "chaos" })
            #expect(try h.events("&event=MESSAGE_DELIVERED").count == 40 - failed)
            return results.map { $0["error"] as? String ?? "ok" }
        }
        #expect(try run(seed: 11) == run(seed: 11))
        #expect(try run(seed: 11) != run(seed: 12))
    }

    @Test("v1: UNAVAILABLE 503 and QUOTA_EXCEEDED 429 with Retry-After, INTERNAL 500, in Google's error shape")
    func v1Errors() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let token = try h.device("android")["token"] as! String
        let url = "/v1/projects/demo-pushmock/messages:send"
        let body = #"{"message":{"token":"\#(token)","data":{"k":"v"}}}"#
        for (error, status, canonical) in [
            ("UNAVAILABLE", 503, "UNAVAILABLE"), ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED"), ("INTERNAL", 500, "INTERNAL"),
        ] {
            #expect(put(h, #"{"v1":{"error_rate":1,"error":"\#(error)","retry_after":3}}"#).status == 200)
            let r = h.call("POST", url, body: body)
            let e = json(r)["error"] as? [String: Any]
            let fcm = (e?["details"] as? [[String: Any]])?.first { ($0["@type"] as? String)?.hasSuffix("FcmError") == true }
            #expect(r.status == status && e?["status"] as? String == canonical && fcm?["errorCode"] as? String == error)
            #expect(header(r, "Retry-After") == (status == 500 ? nil : "3"))
        }
        let logged = try h.events()
        #expect(
            logged.map { $0["event"] as! String } == [
                "MESSAGE_RECEIVED_INTERNAL_ERROR", "QUOTA_EXCEEDED", "MESSAGE_RECEIVED_INTERNAL_ERROR",
            ])
        #expect(logged.allSatisfy { $0["reason"] as? String == "chaos" })
        // Each refused send is a row of the message list, failed, with its event.
        let listed = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages"))["messages"] as? [[String: Any]] ?? []
        #expect(listed.count == 3 && listed.allSatisfy { $0["api"] as? String == "v1" && $0["failed"] as? Int == 1 })
        #expect(logged.allSatisfy { ($0["message_id"] as? String)?.isEmpty == false })
        // The same for a legacy send refused whole.
        #expect(put(h, #"{"legacy":{"error_rate":1,"error":"503"}}"#).status == 200)
        #expect(h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#).status == 503)
        let legacy = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?limit=1"))["messages"] as? [[String: Any]]
        #expect(legacy?.first?["api"] as? String == "legacy" && legacy?.first?["failed"] as? Int == 1)
    }

    @Test("topic management: the Instance ID API's {\"error\"} and HTTP v1's Google errors")
    func topics() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let token = try h.device("android")["token"] as! String
        #expect(put(h, #"{"topics":{"error_rate":1,"error":"UNAVAILABLE"}}"#).status == 200)
        let iid = h.call(
            "POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/news","registration_tokens":["\#(token)"]}"#,
            headers: [("Authorization", "key=" + Configuration.defaultServerKey)])
        #expect(iid.status == 503 && iid.bodyText == #"{"error":"UNAVAILABLE"}"# && header(iid, "Retry-After") == "10")
        #expect(put(h, #"{"topics":{"error_rate":1,"error":"RESOURCE_EXHAUSTED"}}"#).status == 200)
        let v1 = h.call("POST", "/v1/projects/demo-pushmock/registrations/\(token)/topicSubscriptions?topic_name=news")
        #expect(v1.status == 429 && (json(v1)["error"] as? [String: Any])?["status"] as? String == "RESOURCE_EXHAUSTED")
        #expect(h.project.topics["news"] == nil, "nothing was subscribed")
        #expect(try h.events().map { $0["reason"] as? String } == ["chaos", "chaos"])
    }

    @Test("APNs: TooManyRequests, Shutdown, Unregistered (with timestamp) and the rest, with apns-id; logged with the device")
    func apns() throws {
        let h = try Harness()
        let d = try h.device("ios")
        let token = d["apns_token"] as! String
        let id = d["id"] as! String
        for (name, status) in [
            ("TooManyRequests", 429), ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
            ("Unregistered", 410),
        ] {
            #expect(put(h, #"{"apns":{"error_rate":1,"error":"\#(name)"}}"#).status == 200)
            let r = h.apns(token)
            #expect(r.status == status && h.reason(r) == name && header(r, "apns-id") != nil)
            #expect((json(r)["timestamp"] != nil) == (name == "Unregistered"))
        }
        #expect(try h.story(id).allSatisfy { $0.hasSuffix("(chaos)") } && h.story(id).count == 5)
        // Bad requests keep their own reasons: chaos acts once the sender is authenticated.
        #expect(h.reason(h.apns(token, headers: [("apns-priority", "7")])) == "BadPriority")
    }

    @Test("latency: the answer is delayed by latency plus jitter, never more; drops end the connection and are logged")
    func latencyAndDrops() throws {
        let h = try Harness()
        let token = try h.device("android")["token"] as! String
        let auth = [(name: "Authorization", value: "key=" + Configuration.defaultServerKey)]
        #expect(put(h, #"{"seed":5,"legacy":{"latency_ms":200,"jitter_ms":100}}"#).status == 200)
        var delays: [Double] = []
        for _ in 0..<20 {
            guard case .delayed(let r, let s) = reply(h, "POST", "/fcm/send", body: #"{"to":"\#(token)"}"#, headers: auth) else {
                Issue.record("not delayed")
                return
            }
            #expect(json(r)["success"] as? Int == 1)
            delays.append(s)
        }
        #expect(delays.allSatisfy { $0 >= 0.2 && $0 <= 0.3 } && Set(delays).count > 10)
        #expect(put(h, #"{"legacy":{"drop_rate":1,"drop":"goaway"}}"#).status == 200)
        guard case .drop(.goaway) = reply(h, "POST", "/fcm/send", body: #"{"to":"\#(token)"}"#, headers: auth) else {
            Issue.record("not dropped")
            return
        }
        let last = try h.events().last
        #expect(last?["event"] as? String == "MESSAGE_RECEIVED_INTERNAL_ERROR" && last?["reason"] as? String == "chaos")
        #expect(try h.events("&event=MESSAGE_ACCEPTED").count == 20, "the dropped send was not accepted")
        let metrics = h.call("GET", "/metrics").bodyText
        #expect(metrics.contains(#"pushmock_http_requests_total{route="POST /fcm/send",status="dropped"} 1"#))
    }

    @Test(":scriptErrors: fail twice then succeed, each failure logged with reason chaos")
    func scripted() throws {
        let h = try Harness()
        let d = try h.device("android")
        let token = d["token"] as! String
        let id = d["id"] as! String
        #expect(
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices/\(id):scriptErrors",
                body: #"{"errors":["Unavailable","UNAVAILABLE"]}"#
            ).status == 200)
        let answers = (0..<3).map { _ in
            (json(h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#))["results"] as? [[String: Any]])?.first?["error"] as? String
                ?? "ok"
        }
        #expect(answers == ["Unavailable", "Unavailable", "ok"])
        #expect(try h.story(id).prefix(2) == ["RECEIVED_INTERNAL_ERROR(chaos)", "RECEIVED_INTERNAL_ERROR(chaos)"])
    }
}
