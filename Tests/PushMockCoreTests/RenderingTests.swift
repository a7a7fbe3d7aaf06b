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
