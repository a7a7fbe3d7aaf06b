import Testing

@testable import PushMockCore

@Suite("--legacy-api shutdown: the legacy API as Google answers it today")
struct LegacyShutdownTests {
    @Test(
        "legacy sends, device groups and the batch endpoint answer Google's plain 404 page, and each call is logged with its caller"
    )
    func shutDown() throws {
        let h = try Harness { $0.legacyAPIShutDown = true }
        let t = try h.device("android")["token"] as! String
        let sent = h.call(
            "POST", "/fcm/send", body: #"{"to":"\#(t)","data":{"k":"v"}}"#,
            headers: [("Authorization", "key=\(Configuration.defaultServerKey)"), ("User-Agent", "pyfcm/1.5.4")])
        #expect(sent.status == 404)
        #expect(sent.headers.contains { $0.name == "Content-Type" && $0.value == "text/html; charset=UTF-8" })
        #expect(
            sent.bodyText.hasPrefix("<HTML>\n<HEAD>\n<TITLE>Not Found</TITLE>") && sent.bodyText.contains("<H2>Error 404</H2>"))
        #expect(h.call("POST", "/gcm/send", body: #"{"to":"\#(t)"}"#).status == 404)
        #expect(h.call("POST", "/fcm/notification", body: "{}").status == 404)
        #expect(h.call("GET", "/fcm/notification?notification_key_name=a").status == 404)
        #expect(h.call("POST", "/batch", body: "--x--").status == 404)
        // Nothing was delivered; every call is in the log, the first with its key's project and client.
        let events = (json(h.call("GET", "/emulator/v1/projects/demo-pushmock/events"))["events"] as? [[String: Any]]) ?? []
        #expect(events.allSatisfy { $0["event"] as? String == "LEGACY_API_CALL" } && events.count == 5, "\(events)")
        #expect(events.first?["reason"] as? String == "POST /fcm/send (User-Agent: pyfcm/1.5.4)")
        // What was never shut down keeps working: HTTP v1 and the Instance ID topic API.
        let v1 = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send", body: #"{"message":{"token":"\#(t)"}}"#,
            headers: [("Authorization", "Bearer any")])
        #expect(v1.status == 401) // answered by v1 itself (no token issued), not the shutdown
        #expect(
            h.call(
                "POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/a","registration_tokens":["\#(t)"]}"#,
                headers: [("Authorization", "key=\(Configuration.defaultServerKey)")]
            ).status == 200)
    }

    @Test("by default the legacy API answers as before its shutdown; the batch endpoint is Google's 404 page")
    func available() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        #expect(
            h.call(
                "POST", "/fcm/send", body: #"{"to":"\#(t)"}"#,
                headers: [("Authorization", "key=\(Configuration.defaultServerKey)")]
            )
            .status == 200)
        let batch = h.call("POST", "/batch", body: "--x--")
        #expect(batch.status == 404 && batch.bodyText.contains("That’s an error."))
        #expect(
            json(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&event=LEGACY_API_CALL"))["count"] as? Int
                == 0)
        #expect(
            json(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&event=MESSAGE_DELIVERED"))["count"] as? Int
                == 1)
    }

    @Test("--legacy-api takes available or shutdown")
    func flag() throws {
        #expect(try Configuration.load(arguments: ["--legacy-api", "shutdown"], environment: [:]).legacyAPIShutDown)
        #expect(!(try Configuration.load(arguments: [], environment: [:]).legacyAPIShutDown))
        #expect(throws: ConfigurationError.self) { try Configuration.load(arguments: ["--legacy-api", "off"], environment: [:]) }
    }
}
