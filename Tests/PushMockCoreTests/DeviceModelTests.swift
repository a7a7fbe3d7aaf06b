import Foundation
import Testing

@testable import PushMockCore

/// One test per fate rule (docs/device-model.md), on the manual clock, asserting the exact
/// sequence of events and what the inbox holds.
@Suite("The device model: what a phone does with each push")
struct DeviceModelTests {
    let alert = #""notification":{"title":"Hi"}"#
    let silent = #""content_available":true,"data":{"k":"v"}"#

    func iPhone(_ h: Harness, _ state: String = "") throws -> String {
        try h.device("ios", extra: state)["token"] as! String
    }

    @Test(
        "Android collapsible messages: a burst of 20, then they wait (collapsing by key) and arrive one every 3 minutes; others are not throttled"
    )
    func collapsibleThrottling() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        // One used, then refilled to 20 three minutes later and one used again.
        h.push(t, #""collapse_key":"warm","data":{"n":"0"}"#)
        try h.advance(180)
        h.push(t, #""collapse_key":"warm","data":{"n":"1"}"#)
        try h.advance(120)
        for i in 0..<25 { h.push(t, #""collapse_key":"score","data":{"n":"\#(i)"}"#) }
        let story = try h.story("d1").filter { $0 != "ACCEPTED" }.dropFirst(2)
        #expect(story.filter { $0 == "DELIVERED" }.count == 19)
        #expect(story.filter { $0 == "STORED(message_throttled)" }.count == 6)
        #expect(story.filter { $0 == "COLLAPSED(replaced_by_newer)" }.count == 5)
        // Messages that do not collapse are never throttled.
        h.push(t, #""data":{"plain":"1"}"#)
        #expect(try h.story("d1").suffix(2) == ["ACCEPTED", "DELIVERED"])
        // The allowance refills one every 3 minutes (the last refill was at the second "warm",
        // 120 s before the burst): the newest "score" arrives 60 s after it, late.
        try h.advance(59)
        #expect(try h.eventNames("&device=d1&event=MESSAGE_DELIVERED").count == 22)
        try h.advance(1)
        let delivered = try h.events("&device=d1&event=MESSAGE_DELIVERED")
        #expect(delivered.count == 23 && delivered.last?["delay_ms"] as? Int == 60_000)
        let data =
            (json(
                h.call("GET", "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData", headers: h.bearer()))[
                "androidDeliveryData"] as? [[String: Any]])?.first?["data"] as? [String: Any]
        #expect((data?["deliveryPerformancePercents"] as? [String: Double])?["delayedMessageThrottled"] != nil, "\(data ?? [:])")
    }

    @Test("--device-rate-limit 0 turns collapsible throttling off too")
    func collapsibleThrottlingOff() throws {
        let h = try Harness { $0.deviceRateLimit = 0 }
        let t = try h.device("android")["token"] as! String
        for i in 0..<25 { h.push(t, #""collapse_key":"score","data":{"n":"\#(i)"}"#) }
        #expect(try h.eventNames("&device=d1&event=MESSAGE_DELIVERED").count == 25)
    }

    @Test("iOS alert in the foreground is presented with the app's options")
    func iosForeground() throws {
        let h = try Harness()
        let t = try iPhone(h, #","app_state":"foreground""#)
        let id = h.push(t, alert)
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED", "PRESENTED(options:banner,list,sound)"])
        #expect(try h.inbox("d1").map { $0["shown"] as? String } == ["presented"])
        #expect(try h.inbox("d1").first?["message_id"] as? String == id)
    }

    @Test("iOS alert in the foreground with no banner or list option reaches only the app")
    func iosForegroundNoOptions() throws {
        let h = try Harness()
        let t = try iPhone(h, #","app_state":"foreground","presentation_options":["sound"]"#)
        h.push(t, alert)
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED"])
        #expect(try h.inbox("d1").map { $0["shown"] as? String } == ["app"])
    }

    @Test(
        "iOS alert in the background, not running or force-quit is displayed in Notification Center",
        arguments: ["background", "not_running", "terminated"])
    func iosDisplayed(_ state: String) throws {
        let h = try Harness()
        let t = try iPhone(h, #","app_state":"\#(state)""#)
        h.push(t, alert)
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED", "DISPLAYED"])
        #expect(try h.inbox("d1").map { $0["shown"] as? String } == ["displayed"])
    }

    @Test("iOS permission: denied drops, not determined drops, provisional displays quietly")
    func iosPermissions() throws {
        let h = try Harness()
        try h.push(iPhone(h, #","notifications":"denied""#), alert)
        try h.push(iPhone(h, #","notifications":"not_determined""#), alert)
        try h.push(iPhone(h, #","notifications":"provisional""#), alert)
        #expect(try h.story("d1") == ["ACCEPTED", "DROPPED(notifications_disabled)"])
        #expect(try h.story("d2") == ["ACCEPTED", "DROPPED(notifications_not_authorized)"])
        #expect(try h.story("d3") == ["ACCEPTED", "DELIVERED", "DISPLAYED(provisional)"])
        #expect(try h.inbox("d1").isEmpty && h.inbox("d2").isEmpty)
        #expect(try h.inbox("d3").map { $0["shown"] as? String } == ["displayed_quietly"])
    }

    @Test("iOS background push wakes a background or system-killed app; force-quit and Low Power Mode drop it")
    func iosBackgroundPush() throws {
        let h = try Harness()
        try h.push(iPhone(h), silent)
        try h.push(iPhone(h, #","app_state":"not_running""#), silent)
        try h.push(iPhone(h, #","app_state":"terminated""#), silent)
        try h.push(iPhone(h, #","low_power_mode":true"#), silent)
        try h.push(iPhone(h), #""data":{"k":"v"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED"])
        #expect(try h.story("d2") == ["ACCEPTED", "DELIVERED"])
        #expect(try h.story("d3") == ["ACCEPTED", "DROPPED(app_terminated)"])
        #expect(try h.story("d4") == ["ACCEPTED", "DROPPED(low_power_mode)"])
        #expect(try h.story("d5") == ["ACCEPTED", "DROPPED(not_content_available)"])
        #expect(try h.inbox("d1").map { $0["shown"] as? String } == ["app"])
    }

    @Test("iOS background budget: 3 an hour, then only the newest is held until the app is launched")
    func iosBudget() throws {
        let h = try Harness()
        let t = try iPhone(h)
        for _ in 0..<3 { h.push(t, silent) }
        let fourth = h.push(t, silent)
        let fifth = h.push(t, silent)
        let story = try h.story("d1")
        #expect(
            Array(story.suffix(5)) == [
                "ACCEPTED", "STORED(background_budget_exhausted)",
                "ACCEPTED", "DROPPED(background_budget_exhausted)", "STORED(background_budget_exhausted)",
            ])
        #expect(try h.events("&device=d1&event=MESSAGE_DROPPED").first?["message_id"] as? String == fourth)
        #expect(try h.patch("d1", "{}")["held"] as? Bool == true)
        try h.advance(30)
        try h.patch("d1", #"{"app_state":"foreground"}"#)
        let delivered = try #require(h.events("&device=d1&event=MESSAGE_DELIVERED").last)
        #expect(delivered["message_id"] as? String == fifth)
        #expect(delivered["reason"] as? String == "app_launched")
        #expect(delivered["delay_ms"] as? Int == 30_000)
        #expect(try h.inbox("d1").count == 4)
        try h.patch("d1", #"{"app_state":"background"}"#)
        try h.advance(3600)
        h.push(t, silent)
        #expect(try h.story("d1").suffix(2) == ["ACCEPTED", "DELIVERED"])
    }

    @Test("force-quitting the app discards a held background push")
    func forceQuitDiscardsHeld() throws {
        let h = try Harness { $0.backgroundBudget = 0 }
        try h.push(iPhone(h), silent)
        try h.patch("d1", #"{"app_state":"terminated"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "STORED(background_budget_exhausted)", "DROPPED(app_terminated)"])
    }

    @Test("offline iOS: APNs keeps only the newest message; back online it arrives with its delay")
    func iosOffline() throws {
        let h = try Harness()
        let t = try iPhone(h, #","online":false"#)
        h.push(t, alert)
        let second = h.push(t, #""notification":{"title":"newer"}"#)
        try h.advance(120)
        try h.patch("d1", #"{"online":true}"#)
        #expect(
            try h.story("d1") == [
                "ACCEPTED", "STORED(device_offline)", "ACCEPTED", "COLLAPSED(replaced_by_newer)",
                "STORED(device_offline)", "DELIVERED", "DISPLAYED",
            ])
        let delivered = try #require(h.events("&device=d1&event=MESSAGE_DELIVERED").first)
        #expect(delivered["message_id"] as? String == second)
        #expect(delivered["delay_ms"] as? Int == 120_000)
        #expect(try h.inbox("d1").count == 1)
    }

    @Test("offline Android: 100 pending at most, then all are dropped")
    func androidTooManyPending() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","online":false"#)["token"] as! String
        for i in 0..<101 { h.push(t, #""data":{"n":"\#(i)"}"#) }
        let story = try h.story("d1")
        #expect(story.filter { $0 == "STORED(device_offline)" }.count == 100)
        #expect(story.filter { $0 == "DROPPED(too_many_pending)" }.count == 101)
        try h.patch("d1", #"{"online":true}"#)
        #expect(try h.inbox("d1").isEmpty)
    }

    @Test("offline Android: collapse keys replace each other, at most four keys are kept, in order on reconnect")
    func androidCollapse() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","online":false"#)["token"] as! String
        h.push(t, #""collapse_key":"a","data":{"v":"1"}"#)
        h.push(t, #""collapse_key":"a","data":{"v":"2"}"#)
        for key in ["b", "c", "d", "e"] { h.push(t, #""collapse_key":"\#(key)","data":{"v":"\#(key)"}"#) }
        h.push(t, #""data":{"v":"plain"}"#)
        let story = try h.story("d1")
        #expect(story.filter { $0 == "COLLAPSED(replaced_by_newer)" }.count == 1)
        #expect(story.filter { $0 == "DROPPED(too_many_collapse_keys)" }.count == 1)
        try h.patch("d1", #"{"online":true}"#)
        let values = try h.inbox("d1").map { (($0["android"] as? [String: Any])?["data"] as? [String: String])?["v"] }
        #expect(values == ["b", "c", "d", "e", "plain"])
    }

    @Test("Android in Doze (Low Power Mode) keeps normal-priority messages until it wakes; high priority goes through")
    func androidDoze() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","low_power_mode":true"#)["token"] as! String
        h.push(t, #""data":{"n":"normal"}"#)
        h.push(t, #""priority":"high","data":{"n":"high"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "STORED(device_doze)", "ACCEPTED", "DELIVERED"])
        try h.advance(5)
        try h.patch("d1", #"{"low_power_mode":false}"#)
        #expect(try h.story("d1").last == "DELIVERED")
        #expect(try h.events("&device=d1&event=MESSAGE_DELIVERED").last?["delay_ms"] as? Int == 5000)
        let perf =
            ((json(
                h.call("GET", "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData", headers: h.bearer()))[
                "androidDeliveryData"]
            as? [[String: Any]])?.first?["data"] as? [String: Any])?["deliveryPerformancePercents"] as? [String: Double]
        #expect(perf == ["deliveredNoDelay": 50, "delayedDeviceDoze": 50])
    }

    @Test("TTL 0 is now-or-never: dropped at once while offline")
    func ttlZero() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","online":false"#)["token"] as! String
        h.push(t, #""time_to_live":0,"data":{"a":"b"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "DROPPED(ttl_expired)"])
    }

    @Test("a stored message whose TTL passes expires, on the manual clock")
    func expiry() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","online":false"#)["token"] as! String
        h.push(t, #""time_to_live":60,"data":{"a":"b"}"#)
        h.push(t, #""time_to_live":600,"data":{"a":"c"}"#)
        try h.advance(61)
        #expect(try h.story("d1").last == "EXPIRED(ttl)")
        try h.patch("d1", #"{"online":true}"#)
        #expect(try h.story("d1").suffix(2) == ["EXPIRED(ttl)", "DELIVERED"])
        #expect(try h.inbox("d1").count == 1)
    }

    @Test(
        "Android notification: displayed with an impression in the background, to the app in the foreground, dropped when force-stopped or denied"
    )
    func android() throws {
        let h = try Harness()
        try h.push(h.device("android")["token"] as! String, alert)
        try h.push(h.device("android", extra: #","app_state":"foreground""#)["token"] as! String, alert)
        try h.push(h.device("android", extra: #","app_state":"terminated""#)["token"] as! String, alert)
        try h.push(h.device("android", extra: #","notifications":"denied""#)["token"] as! String, alert)
        try h.push(h.device("android", extra: #","app_state":"terminated""#)["token"] as! String, #""data":{"a":"b"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "DELIVERED", "DISPLAYED", "IMPRESSION"])
        #expect(try h.story("d2") == ["ACCEPTED", "DELIVERED"])
        #expect(try h.story("d3") == ["ACCEPTED", "DROPPED(app_force_stopped)"])
        #expect(try h.story("d4") == ["ACCEPTED", "DROPPED(notifications_disabled)"])
        #expect(try h.story("d5") == ["ACCEPTED", "DROPPED(app_force_stopped)"])
    }

    @Test("opening: only displayed or presented notifications, once; the app comes to the foreground and gets a held push")
    func open() throws {
        let h = try Harness { $0.backgroundBudget = 0 }
        let t = try iPhone(h)
        let shown = h.push(t, alert)
        h.push(t, silent)
        let base = "/emulator/v1/projects/demo-pushmock/devices/d1/notifications/"
        let escaped = shown.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = h.call("POST", base + escaped + ":open")
        #expect(r.status == 200)
        #expect(json(r)["app_state"] as? String == "foreground")
        #expect(try h.story("d1").suffix(2) == ["OPEN(background)", "DELIVERED(app_launched)"])
        #expect(h.call("POST", base + escaped + ":open").status == 400)
        #expect(try h.inbox("d1").first?["opened"] as? Bool == true)
        let app = try #require(h.inbox("d1").last?["message_id"] as? String)
        #expect(h.call("POST", base + app.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + ":open").status == 400)
        #expect(h.call("POST", base + "nope:open").status == 404)
    }

    @Test("token lifecycle: refresh retires the old token, reinstall also clears subscriptions, 270 idle days expire it")
    func tokens() throws {
        let h = try Harness()
        let old = try iPhone(h)
        try h.subscribe("d1", "news")
        let refreshed = json(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/d1:refreshToken"))
        let new = try #require(refreshed["token"] as? String)
        #expect(new != old && refreshed["fid"] as? String == String(old.prefix(22)))
        #expect(
            (json(h.send(#"{"to":"\#(old)",\#(alert)}"#))["results"] as? [[String: Any]])?.first?["error"] as? String
                == "NotRegistered")
        #expect((json(h.send(#"{"to":"\#(new)",\#(alert)}"#))["success"] as? Int) == 1)
        let reinstalled = json(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/d1:reinstall"))
        #expect(reinstalled["topics"] as? [String] == [])
        #expect(reinstalled["fid"] as? String != refreshed["fid"] as? String)
        #expect(
            (json(h.send(#"{"to":"\#(new)",\#(alert)}"#))["results"] as? [[String: Any]])?.first?["error"] as? String
                == "NotRegistered")
        let current = reinstalled["token"] as! String
        try h.patch("d1", #"{"online":false}"#)
        try h.advance(271 * 86_400)
        #expect(
            (json(h.send(#"{"to":"\#(current)",\#(alert)}"#))["results"] as? [[String: Any]])?.first?["error"] as? String
                == "NotRegistered")
    }

    @Test("an Android device offline for over four weeks drops new messages as inactive")
    func inactive() throws {
        let h = try Harness()
        let t = try h.device("android", extra: #","online":false"#)["token"] as! String
        try h.advance(29 * 86_400)
        h.push(t, #""data":{"a":"b"}"#)
        #expect(try h.story("d1") == ["ACCEPTED", "DROPPED(device_inactive)"])
    }

    @Test("auto-init off: no token until enableAutoInit")
    func autoInit() throws {
        let h = try Harness()
        let d = try h.device("ios", extra: #","auto_init_enabled":false"#)
        #expect(d["token"] is NSNull)
        let enabled = json(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/d1:enableAutoInit"))
        let token = try #require(enabled["token"] as? String)
        #expect(token.hasPrefix((d["fid"] as! String) + ":APA91b"))
        #expect(
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices",
                body: #"{"platform":"ios","app":"a","auto_init_enabled":"no"}"#
            ).status == 400)
    }

    @Test(
        "bad state values are INVALID_ARGUMENT",
        arguments: [
            #"{"app_state":"asleep"}"#, #"{"online":"yes"}"#, #"{"notifications":"maybe"}"#,
            #"{"presentation_options":["popup"]}"#, #"{"presentation_options":"banner"}"#, #"{"low_power_mode":1}"#,
        ])
    func badState(_ body: String) throws {
        let h = try Harness()
        try h.device("ios")
        let r = h.call("PATCH", "/emulator/v1/projects/demo-pushmock/devices/d1", body: body)
        #expect(r.status == 400)
        #expect((json(r)["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
    }
}
