import Foundation
import Testing

@testable import PushMockCore

@Suite("Reports and the FCM Data API")
struct ReportsTests {
    let alert = #""notification":{"title":"Hi"}"#

    /// One Android and one iPhone through background, foreground, force-quit, denied and
    /// offline: seven sends, six of them notifications.
    func scenario() throws -> Harness {
        let h = try Harness()
        let android = try h.device("android")["token"] as! String
        let ios = try h.device("ios")["token"] as! String
        let a = h.push(android, alert)
        let open =
            "/emulator/v1/projects/demo-pushmock/devices/d1/notifications/\(a.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!):open"
        #expect(h.call("POST", open).status == 200)
        h.push(android, alert) // foreground now: to the app
        try h.patch("d1", #"{"app_state":"terminated"}"#)
        h.push(android, alert) // force-stopped: dropped
        try h.patch("d1", #"{"app_state":"background","online":false}"#)
        h.push(android, #""data":{"k":"v"}"#) // stored
        try h.advance(10)
        try h.patch("d1", #"{"online":true}"#) // delivered late
        let e = h.push(ios, alert)
        let openIOS =
            "/emulator/v1/projects/demo-pushmock/devices/d2/notifications/\(e.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!):open"
        #expect(h.call("POST", openIOS).status == 200)
        try h.patch("d2", #"{"app_state":"background","notifications":"denied"}"#)
        h.push(ios, alert) // dropped: notifications off
        try h.patch("d2", #"{"notifications":"authorized","online":false}"#)
        h.push(ios, alert) // still pending
        return h
    }

    @Test("the console's four metrics and the outcome categories add up as the console and Data API define them")
    func totals() throws {
        let h = try scenario()
        let r = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports"))
        let total = try #require(r["total"] as? [String: Any])
        #expect(total["sends"] as? Int == 6)
        #expect(total["received"] as? Int == 2)
        #expect(total["impressions"] as? Int == 1)
        #expect(total["opens"] as? Int == 2)
        let outcomes = try #require(total["outcomes"] as? [String: Int])
        #expect(outcomes["accepted"] == 7)
        #expect(outcomes["delivered"] == 4)
        #expect(outcomes["pending"] == 1)
        #expect(outcomes["droppedAppForceStopped"] == 1)
        #expect(outcomes["droppedOther"] == 1)
        #expect(total["dropped_by_reason"] as? [String: Int] == ["app_force_stopped": 1, "notifications_disabled": 1])
        let days = try #require(r["days"] as? [[String: Any]])
        #expect(days.count == 1 && days[0]["date"] as? String == Harness.start.day)
    }

    @Test("event kinds: each case's ordinal is its place in allCases, so per-kind counters and hashing are right")
    func kindOrdinals() throws {
        #expect(EventKind.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal })
        #expect(Set(EventKind.allCases).count == EventKind.allCases.count)
        let h = try Harness()
        let token = try h.device("android")["token"] as! String
        _ = h.send(#"{"to":"\#(token)","notification":{"title":"Hi"}}"#)
        #expect(h.gateway.log.kindCounts[.messageDelivered] == 1 && h.gateway.log.kindCounts[.messageOpen] == 0)
    }

    @Test("filters: platform, app and dates")
    func filters() throws {
        let h = try scenario()
        let android =
            json(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?platform=android"))["total"] as? [String: Any]
        #expect(android?["sends"] as? Int == 3)
        #expect((android?["outcomes"] as? [String: Int])?["accepted"] == 4)
        let none = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?app=other"))["total"] as? [String: Any]
        #expect(none?["sends"] as? Int == 0)
        let tomorrow = (Harness.start + 86_400_000_000).day
        let later = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?from=\(tomorrow)"))["days"] as? [Any]
        #expect(later?.isEmpty == true)
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?from=yesterday").status == 400)
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?platform=windows").status == 400)
    }

    @Test("deliveryData answers in the Data API's shape for the Android app, by package name or app id")
    func deliveryData() throws {
        let h = try scenario()
        let r = json(
            h.call("GET", "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData", headers: h.bearer()))
        let entries = try #require(r["androidDeliveryData"] as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = entries[0]
        let appID = try #require(entry["appId"] as? String)
        #expect(appID.range(of: #"^1:\d{12}:android:[0-9a-f]{16}$"#, options: .regularExpression) != nil)
        let date = entry["date"] as? [String: Int]
        let parts = Harness.start.day.split(separator: "-").map { Int($0)! }
        #expect(date == ["year": parts[0], "month": parts[1], "day": parts[2]])
        let data = try #require(entry["data"] as? [String: Any])
        #expect(data["countMessagesAccepted"] as? String == "4")
        #expect(data["countNotificationsAccepted"] as? String == "3")
        #expect(data["messageOutcomePercents"] as? [String: Double] == ["delivered": 75, "droppedAppForceStopped": 25])
        let performance = try #require(data["deliveryPerformancePercents"] as? [String: Double])
        #expect(abs((performance["deliveredNoDelay"] ?? 0) - 200.0 / 3) < 0.001)
        #expect(abs((performance["delayedDeviceOffline"] ?? 0) - 100.0 / 3) < 0.001)
        let byID = json(h.call("GET", "/v1beta1/projects/demo-pushmock/androidApps/\(appID)/deliveryData", headers: h.bearer()))
        #expect((byID["androidDeliveryData"] as? [Any])?.count == 1)
        let missing = h.call("GET", "/v1beta1/projects/demo-pushmock/androidApps/com.nope/deliveryData", headers: h.bearer())
        #expect(missing.status == 404 && (json(missing)["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
        #expect(
            h.call(
                "GET", "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData?pageSize=-1", headers: h.bearer()
            ).status == 400)
    }

    @Test("the Data API needs an access token with the cloud-platform scope, as the real API does")
    func deliveryDataAuth() throws {
        let h = try scenario()
        let path = "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData"
        let missing = h.call("GET", path)
        #expect(missing.status == 401 && (json(missing)["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        h.gateway.credentials.add(
            accessToken: "ya29.messaging",
            AccessToken(
                projectID: "demo-pushmock", email: "x", expires: Harness.start + 60_000_000, scopes: [AccessToken.messagingScope])
        )
        let narrow = h.call("GET", path, headers: [("Authorization", "Bearer ya29.messaging")])
        let error = json(narrow)["error"] as? [String: Any]
        #expect(narrow.status == 403 && error?["status"] as? String == "PERMISSION_DENIED")
        #expect(error?["message"] as? String == "Request had insufficient authentication scopes.")
        #expect(((error?["details"] as? [[String: Any]])?.first?["reason"]) as? String == "ACCESS_TOKEN_SCOPE_INSUFFICIENT")
        #expect(narrow.headers.contains { $0.name == "WWW-Authenticate" && $0.value.contains("insufficient_scope") })
        h.gateway.credentials.add(
            accessToken: "ya29.other", AccessToken(projectID: "other", email: "x", expires: Harness.start + 60_000_000))
        #expect(h.call("GET", path, headers: [("Authorization", "Bearer ya29.other")]).status == 403)
        _ = h.bearer()
        #expect(h.call("GET", path + "?access_token=ya29.harness").status == 200)
        let any = try Harness { $0.acceptAnyToken = true }
        #expect(any.call("GET", path).status == 404) // no such app in an empty project, but past the credentials
    }
}
