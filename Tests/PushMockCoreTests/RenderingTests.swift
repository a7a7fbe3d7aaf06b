import Foundation
import Testing

@testable import PushMockCore

@Suite("What devices receive: the APNs request and the Android RemoteMessage")
struct RenderingTests {
    func iosPayload(_ h: Harness, _ body: String, device: String = "d1") throws -> ([String: String], [String: Any]) {
        _ = h.send(body)
        let apns = try h.inbox(device).last?["apns"] as? [String: Any]
        return (apns?["headers"] as? [String: String] ?? [:], apns?["payload"] as? [String: Any] ?? [:])
    }

    @Test("legacy notification keys map to aps, unknown keys to gcm.notification.*, FCM adds its own keys")
    func iosNotification() throws {
        let h = try Harness()
        let d = try h.device("ios", app: "com.news")
        let t = d["token"] as! String
        let (headers, p) = try iosPayload(
            h,
            #"""
            {"to":"\#(t)","notification":{"title":"T","subtitle":"S","body":"B","badge":"3","sound":"ping.caf",
             "click_action":"REPLY","title_loc_key":"TK","title_loc_args":["a"],"body_loc_key":"BK","body_loc_args":"[\"x\",\"y\"]",
             "icon":"ic","color":"#ff0000","image_url":"https://i/x.png"},
             "mutable_content":true,"data":{"story":"42","n":7}}
            """#)
        let aps = try #require(p["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "T")
        #expect(alert["subtitle"] as? String == "S")
        #expect(alert["body"] as? String == "B")
        #expect(alert["title-loc-key"] as? String == "TK")
        #expect(alert["title-loc-args"] as? [String] == ["a"])
        #expect(alert["loc-key"] as? String == "BK")
        #expect(alert["loc-args"] as? [String] == ["x", "y"])
        #expect(aps["badge"] as? Int == 3)
        #expect(aps["sound"] as? String == "ping.caf")
        #expect(aps["category"] as? String == "REPLY")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["content-available"] == nil)
        #expect(p["gcm.notification.image_url"] as? String == "https://i/x.png")
        #expect(p["gcm.notification.icon"] == nil && p["gcm.notification.color"] == nil)
        #expect(p["story"] as? String == "42" && p["n"] as? Int == 7)
        #expect(try p["gcm.message_id"] as? String == (h.inbox("d1").last?["message_id"] as? String))
        #expect(p["google.c.a.e"] as? String == "1")
        #expect(p["google.c.fid"] as? String == d["fid"] as? String)
        #expect(p["google.c.sender.id"] as? String == String(h.project.number))
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-topic"] == "com.news")
        #expect(headers["apns-expiration"] == String(Harness.start / 1_000_000 + 2_419_200))
    }

    @Test("content_available makes a background push with priority from the request; TTL 0 means apns-expiration 0")
    func iosBackground() throws {
        let h = try Harness()
        let t = try h.device("ios")["token"] as! String
        let (headers, p) = try iosPayload(h, #"{"to":"\#(t)","content_available":true,"time_to_live":0,"data":{"k":"v"}}"#)
        #expect(p["aps"] as? [String: Int] == ["content-available": 1])
        #expect(headers["apns-push-type"] == "background")
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "0")
        let (h2, _) = try iosPayload(h, #"{"to":"\#(t)","content_available":true,"priority":"high","data":{"k":"v"}}"#)
        #expect(h2["apns-priority"] == "10")
    }

    @Test("Android gets the RemoteMessage fields, data as strings, and the notification")
    func android() throws {
        let h = try Harness()
        let t = try h.device("android", app: "com.shop")["token"] as! String
        _ = h.send(
            #"{"to":"\#(t)","collapse_key":"sale","time_to_live":60,"data":{"a":"1","n":2,"o":{"x":true}},"notification":{"title":"T","body":"B","android_channel_id":"promo","tag":"t1"}}"#
        )
        let m = try #require(h.inbox("d1").first?["android"] as? [String: Any])
        #expect(m["from"] as? String == String(h.project.number))
        #expect(m["collapse_key"] as? String == "sale")
        #expect(m["ttl"] as? Int == 60)
        #expect(m["priority"] as? String == "high")
        #expect(m["sent_time"] as? Int == Int(Harness.start / 1000))
        #expect(m["data"] as? [String: String] == ["a": "1", "n": "2", "o": #"{"x":true}"#])
        #expect(m["notification"] as? [String: String] == ["title": "T", "body": "B", "tag": "t1", "channel_id": "promo"])
        _ = h.send(#"{"to":"\#(t)","data":{"a":"1"}}"#)
        let data = try #require(h.inbox("d1").last?["android"] as? [String: Any])
        #expect(data["priority"] as? String == "normal")
        #expect(data["collapse_key"] as? String == "do_not_collapse")
        #expect(data["notification"] == nil)
    }

    @Test(
        "a data key named collapse_key never reaches the Android app: FCM puts its own value there, and getData() leaves it out")
    func dataKeysNamedLikeFCMs() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("android", app: "com.shop")["token"] as! String
        _ = h.send(#"{"to":"\#(t)","collapse_key":"sale","data":{"collapse_key":"mine","k":"v"}}"#)
        let legacy = try #require(h.inbox("d1").last?["android"] as? [String: Any])
        #expect(legacy["collapse_key"] as? String == "sale")
        #expect(legacy["data"] as? [String: String] == ["k": "v"])
        _ = h.send(#"{"to":"\#(t)","data":{"collapse_key":"mine"}}"#)
        let noKey = try #require(h.inbox("d1").last?["android"] as? [String: Any])
        #expect(noKey["collapse_key"] as? String == "do_not_collapse" && noKey["data"] as? [String: String] == [:])
        let v1 = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send",
            body: #"{"message":{"token":"\#(t)","data":{"collapse_key":"mine","k":"v"},"android":{"collapse_key":"sale"}}}"#,
            headers: [("Authorization", "Bearer any")])
        #expect(v1.status == 200, "\(v1.bodyText)")
        let viaV1 = try #require(h.inbox("d1").last?["android"] as? [String: Any])
        #expect(viaV1["collapse_key"] as? String == "sale")
        #expect(viaV1["data"] as? [String: String] == ["k": "v"])
    }

    @Test("delivery events carry the payload the device saw")
    func eventPayload() throws {
        let h = try Harness()
        let t = try h.device("ios")["token"] as! String
        _ = h.send(#"{"to":"\#(t)","notification":{"title":"x"}}"#)
        let delivered = try h.events("&event=MESSAGE_DELIVERED").first
        let payload = (delivered?["payload"] as? [String: Any])?["apns"] as? [String: Any]
        #expect(
            ((payload?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: String] == ["title": "x"])
        #expect(delivered?["sdk_platform"] as? String == "IOS")
        #expect(delivered?["message_type"] as? String == "DISPLAY_NOTIFICATION")
    }

    /// A run of events writes the columns that say whose an event is, and a payload, once for a
    /// send and a device, and repeats them for that device's next event: each device's events
    /// must still carry their own, though a topic send's message id is the same for all.
    @Test("one topic send's events to two devices each carry their own device's columns and payload")
    func eventPayloadPerDevice() throws {
        let h = try Harness()
        let a = try h.device("android", app: "com.a")
        let b = try h.device("android", app: "com.b")
        for d in [a, b] { try h.subscribe(d["id"] as! String, "news") }
        let r = h.send(#"{"to":"/topics/news","notification":{"title":"x"}}"#)
        #expect(r.status == 200, "\(r.bodyText)")
        let shown = try h.events().filter { ["MESSAGE_DELIVERED", "MESSAGE_DISPLAYED"].contains($0["event"] as? String) }
        #expect(shown.count == 4)
        let tokens = Dictionary(uniqueKeysWithValues: [a, b].map { ($0["id"] as! String, $0["token"] as! String) })
        var seen: [String: String] = [:]
        for e in shown {
            #expect(e["token"] as? String == tokens[e["device_id"] as? String ?? ""])
            #expect((e["token"] as? String)?.hasPrefix((e["instance_id"] as? String ?? "?") + ":") == true)
            let android = try #require((e["payload"] as? [String: Any])?["android"] as? [String: Any])
            #expect(android["collapse_key"] as? String == e["app_name"] as? String)
            #expect(android["message_id"] as? String == e["message_id"] as? String)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: android, options: .sortedKeys), as: UTF8.self)
            let device = e["device_id"] as? String ?? "?"
            #expect(seen[device, default: text] == text, "one device's events carry one payload")
            seen[device] = text
        }
        #expect(Set(seen.keys) == Set([a["id"], b["id"]].compactMap { $0 as? String }))
    }

    /// A run of events writes a time once and repeats it while the next event has the same.
    @Test("events of sends a second apart carry their own send's time")
    func eventTimes() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        _ = h.send(#"{"to":"\#(t)","data":{"k":"1"}}"#)
        try h.advance(1)
        _ = h.send(#"{"to":"\#(t)","data":{"k":"2"}}"#)
        let times = try h.events().map { ($0["message_id"] as? String ?? "?", $0["event_timestamp"] as? String ?? "?") }
        let perSend = Dictionary(grouping: times, by: \.0).mapValues { Set($0.map(\.1)) }
        #expect(perSend.count == 2 && perSend.values.allSatisfy { $0.count == 1 }, "\(times)")
        #expect(Set(perSend.values.flatMap { $0 }).count == 2, "\(times)")
    }

    @Test("a data key is FCM's own when it is from or message_type, or begins with google. or gcm. as bytes")
    func reservedDataKeys() {
        for key in ["from", "message_type", "google.", "google.c.a.e", "gcm.", "gcm.n.e", "google.\u{301}x"] {
            #expect(AndroidRendering.isReservedKey(key), "\(key)")
        }
        for key in ["", "k", "fro", "fromm", "From", "message_typ", "message_types", "google", "gcm", "googl.x", "xgcm."] {
            #expect(!AndroidRendering.isReservedKey(key), "\(key)")
        }
        #expect(!AndroidRendering.isAppDataKey("collapse_key") && AndroidRendering.isAppDataKey("k"))
    }
}
