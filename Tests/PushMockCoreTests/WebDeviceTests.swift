import Foundation
import Testing

@testable import PushMockCore

/// Fake browsers: the Firebase JS SDK's service worker and page (docs/device-model.md, "Web";
/// docs/rendering.md, "Web").
@Suite("Web devices: a browser with a push subscription for one web app")
struct WebDeviceTests {
    let origin = "https://app.example.com"
    let v1URL = "/v1/projects/demo-pushmock/messages:send"

    func webDevice(_ h: Harness, _ extra: String = "") throws -> [String: Any] {
        try h.device("web", app: origin, extra: extra)
    }

    func v1(_ h: Harness, _ message: String) -> Response {
        h.call("POST", v1URL, body: #"{"message":\#(message)}"#, headers: h.bearer())
    }

    func notificationPath(_ messageID: String) -> String {
        "/emulator/v1/projects/demo-pushmock/devices/d1/notifications/"
            + messageID.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// The newest inbox entry's `web` rendering: the payload and the shown notification.
    func received(_ h: Harness, _ device: String = "d1") throws -> (
        shown: String, payload: [String: Any], notification: [String: Any]?
    ) {
        let entry = try #require(try h.inbox(device).last)
        let web = try #require(entry["web"] as? [String: Any])
        return (entry["shown"] as? String ?? "?", web["payload"] as? [String: Any] ?? [:], web["notification"] as? [String: Any])
    }

    @Test("registration: the app is an origin; browsers have no force-stop, provisional permission or Low Power Mode")
    func registration() throws {
        let h = try Harness()
        let d = try webDevice(h)
        #expect(d["platform"] as? String == "web" && d["app"] as? String == origin && d["token"] is String)
        let post = { (body: String) in h.call("POST", "/emulator/v1/projects/demo-pushmock/devices", body: body) }
        let path = post(#"{"platform":"web","app":"https://app.example.com/index.html"}"#)
        #expect(path.status == 400)
        #expect(
            json(path)["error"].flatMap { ($0 as? [String: Any])?["message"] as? String }
                == #"Invalid value at 'app': an origin has no path, query or fragment: "https://app.example.com/index.html"."#)
        #expect(post(#"{"platform":"web","app":"http://app.example.com"}"#).status == 400)
        #expect(post(#"{"platform":"web","app":"http://localhost:5173"}"#).status == 201)
        #expect(post(#"{"platform":"web","app":"\#(origin)","app_state":"terminated"}"#).status == 400)
        #expect(post(#"{"platform":"web","app":"\#(origin)","notifications":"provisional"}"#).status == 400)
        #expect(post(#"{"platform":"web","app":"\#(origin)","low_power_mode":true}"#).status == 400)
        #expect(
            h.call("PATCH", "/emulator/v1/projects/demo-pushmock/devices/d1", body: #"{"app_state":"terminated"}"#).status == 400)
        // Before the user answers the permission prompt there is no subscription, so no token.
        let undecided = try webDevice(h, #","notifications":"not_determined""#)
        #expect(undecided["token"] is NSNull)
        let app = json(h.call("GET", "/emulator/v1/projects/demo-pushmock"))["apps"] as? [[String: Any]]
        let id = app?.first { $0["platform"] as? String == "web" }?["app_id"] as? String
        #expect(id?.hasPrefix("1:\(h.project.number):web:") == true)
    }

    @Test("legacy notification to a page in the background: the service worker shows it; the payload is the SDK's")
    func legacyBackground() throws {
        let h = try Harness()
        let t = try webDevice(h)["token"] as! String
        let id = h.push(
            t,
            ##""notification":{"title":"Sale","body":"Today only","icon":"/i.png","click_action":"https://app.example.com/sale","sound":"x","color":"#ff0000"},"data":{"sku":"42","n":7}"##
        )
        let (shown, payload, notification) = try received(h)
        #expect(shown == "displayed")
        #expect(payload["from"] as? String == String(h.project.number))
        #expect(payload["collapseKey"] is NSNull)
        #expect(payload["messageId"] as? String == id)
        #expect(payload["notification"] as? [String: String] == ["title": "Sale", "body": "Today only", "icon": "/i.png"])
        #expect(payload["data"] as? [String: String] == ["sku": "42", "n": "7"])
        #expect(payload["fcmOptions"] as? [String: String] == ["link": "https://app.example.com/sale"])
        #expect(notification?["title"] as? String == "Sale")
        let options = notification?["options"] as? [String: String]
        #expect(
            options == ["title": "Sale", "body": "Today only", "icon": "/i.png", "click_action": "https://app.example.com/sale"])
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED", "DISPLAYED"])
        #expect(try h.events("&event=MESSAGE_DELIVERED").last?["sdk_platform"] as? String == "WEB")
    }

    @Test(
        "a visible page gets every message in onMessage and the browser shows nothing; data in the background goes to onBackgroundMessage"
    )
    func foregroundAndData() throws {
        let h = try Harness()
        let t = try webDevice(h, #","app_state":"foreground""#)["token"] as! String
        h.push(t, #""notification":{"title":"Hi"}"#)
        #expect(try received(h).shown == "page")
        try h.patch("d1", #"{"app_state":"not_running"}"#)
        h.push(t, #""data":{"k":"v"},"collapse_key":"scores""#)
        let (shown, payload, notification) = try received(h)
        #expect(shown == "app" && notification == nil && payload["notification"] == nil)
        #expect(payload["collapseKey"] as? String == "scores")
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED", "ACCEPTED", "DELIVERED"])
        let id = try h.inbox("d1")[0]["message_id"] as! String
        #expect(h.call("POST", notificationPath(id) + ":open").status == 400)
    }

    @Test("HTTP v1: webpush.notification overlays notification, webpush.data replaces data, the link becomes click_action")
    func v1Merge() throws {
        let h = try Harness()
        let t = try webDevice(h)["token"] as! String
        let r = v1(
            h,
            #"""
            {"token":"\#(t)","notification":{"title":"T","body":"B","image":"https://img/x.png"},"data":{"a":"1"},
             "android":{"notification":{"title":"Android only"}},
             "webpush":{"notification":{"title":"Web T","icon":"/w.png","requireInteraction":true,"actions":[{"action":"yes","title":"Yes"}]},
                        "data":{"w":"2"},"headers":{"TTL":"60","Topic":"news"},
                        "fcm_options":{"link":"https://app.example.com/n/1","analytics_label":"wk1"}}}
            """#)
        #expect(r.status == 200)
        let (shown, payload, notification) = try received(h)
        #expect(shown == "displayed")
        #expect(
            payload["notification"] as? [String: String] == [
                "title": "Web T", "body": "B", "image": "https://img/x.png", "icon": "/w.png",
            ])
        #expect(payload["data"] as? [String: String] == ["w": "2"])
        #expect(payload["collapseKey"] as? String == "news")
        #expect(payload["fcmOptions"] as? [String: String] == ["link": "https://app.example.com/n/1", "analyticsLabel": "wk1"])
        let options = try #require(notification?["options"] as? [String: Any])
        #expect(options["requireInteraction"] as? Bool == true)
        #expect(options["click_action"] as? String == "https://app.example.com/n/1")
        #expect((options["actions"] as? [[String: String]])?.first == ["action": "yes", "title": "Yes"])
        let accepted = try h.events("&event=MESSAGE_ACCEPTED&device=d1").last
        #expect(accepted?["message_type"] as? String == "DISPLAY_NOTIFICATION")
    }

    @Test("HTTP v1: a webpush.notification alone is a notification for browsers and data for Android")
    func webOnlyNotification() throws {
        let h = try Harness()
        let web = try webDevice(h)["token"] as! String
        let android = try h.device("android")["token"] as! String
        for t in [web, android] {
            #expect(v1(h, #"{"token":"\#(t)","webpush":{"notification":{"title":"W"}}}"#).status == 200)
        }
        let types = try h.events("&event=MESSAGE_ACCEPTED").map { "\($0["sdk_platform"]!) \($0["message_type"]!)" }
        #expect(types == ["WEB DISPLAY_NOTIFICATION", "ANDROID DATA_MESSAGE"])
        #expect(try h.story("d1").last == "DISPLAYED")
    }

    @Test("a closed browser: the push service keeps messages for the Web Push TTL and collapses by Topic")
    func closedBrowser() throws {
        let h = try Harness()
        let t = try webDevice(h, #","online":false"#)["token"] as! String
        let send = { (ttl: String, topic: String, title: String) in
            v1(
                h,
                #"{"token":"\#(t)","notification":{"title":"\#(title)"},"webpush":{"headers":{"TTL":"\#(ttl)","Topic":"\#(topic)"}}}"#
            )
        }
        #expect(send("60", "score", "1-0").status == 200)
        #expect(send("3600", "score", "2-0").status == 200)
        #expect(send("30", "other", "short").status == 200)
        #expect(send("0", "now", "never").status == 200)
        try h.advance(45)
        try h.patch("d1", #"{"online":true}"#)
        #expect(try h.inbox("d1").count == 1)
        #expect(try (received(h).payload["notification"] as? [String: String])?["title"] == "2-0")
        #expect(
            try h.story("d1") == [
                "ACCEPTED", "STORED(device_offline)", "ACCEPTED", "COLLAPSED(replaced_by_newer)", "STORED(device_offline)",
                "ACCEPTED", "STORED(device_offline)", "ACCEPTED", "DROPPED(ttl_expired)", "EXPIRED(ttl)", "DELIVERED",
                "DISPLAYED",
            ])
    }

    @Test("withdrawing notification permission drops the subscription: token, topics and waiting messages go")
    func permissionRevoked() throws {
        let h = try Harness()
        let t = try webDevice(h, #","online":false"#)["token"] as! String
        try h.subscribe("d1", "news")
        h.push(t, #""notification":{"title":"waiting"}"#)
        let d = try h.patch("d1", #"{"notifications":"denied"}"#)
        #expect(d["token"] is NSNull && (d["topics"] as? [Any])?.isEmpty != false)
        #expect(try h.story("d1").last == "DROPPED(push_subscription_revoked)")
        let r = json(h.send(#"{"to":"\#(t)","notification":{"title":"late"}}"#))
        #expect((r["results"] as? [[String: String]])?.first == ["error": "NotRegistered"])
        let before = try h.story("d1")
        let topic = json(h.send(#"{"to":"/topics/news","notification":{"title":"t"}}"#))
        #expect(topic["message_id"] != nil)
        #expect(try h.story("d1") == before)
        // Allowing notifications again lets the page subscribe again: a new token.
        let again = try h.patch("d1", #"{"notifications":"authorized","online":true}"#)
        let fresh = try #require(again["token"] as? String)
        #expect(fresh != t)
        #expect(!h.push(fresh, #""data":{"k":"v"}"#).hasPrefix("error"))
    }

    @Test("a click opens the page only for a link on the app's origin, as the FCM service worker does")
    func open() throws {
        let h = try Harness()
        let t = try webDevice(h)["token"] as! String
        let same = h.push(t, #""notification":{"title":"a","click_action":"https://app.example.com/a"}"#)
        let other = h.push(t, #""notification":{"title":"b","click_action":"https://elsewhere.example/b"}"#)
        let none = h.push(t, #""notification":{"title":"c"}"#)
        let open = { (id: String) in
            json(h.call("POST", notificationPath(id) + ":open"))["app_state"] as? String
        }
        #expect(open(other) == "background")
        #expect(open(none) == "background")
        #expect(open(same) == "foreground")
        let reasons = try h.events("&event=MESSAGE_OPEN").map { $0["reason"] as? String ?? "" }
        #expect(reasons == ["other_origin:https://elsewhere.example/b", "no_link", "link:https://app.example.com/a"])
    }

    @Test("topics, Instance ID and reports: a Web token is a token like any other, reported as CHROME and WEB")
    func topicsAndReports() throws {
        let h = try Harness()
        let t = try webDevice(h)["token"] as! String
        let escaped = t.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let auth = [("Authorization", "key=\(Configuration.defaultServerKey)")]
        #expect(h.call("POST", "/iid/v1/\(escaped)/rel/topics/news", headers: auth).status == 200)
        let info = json(h.call("GET", "/iid/info/\(escaped)", headers: auth))
        #expect(info["platform"] as? String == "CHROME" && info["application"] as? String == origin)
        _ = h.send(#"{"to":"/topics/news","notification":{"title":"t"}}"#)
        #expect(try received(h).payload["from"] as? String == "/topics/news")
        let web = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?platform=web"))["total"] as? [String: Any]
        #expect((web?["outcomes"] as? [String: Int])?["delivered"] == 1)
        // The console's Sends count Android and Apple apps only.
        #expect(web?["sends"] as? Int == 0)
    }
}
