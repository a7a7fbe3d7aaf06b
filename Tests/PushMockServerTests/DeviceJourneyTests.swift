import Foundation
import Testing

@Suite("A day in the life of two phones, over HTTP", .serverTestLimit)
struct DeviceJourneyTests {
    let auth = ["Authorization": "key=pushmock-dev-server-key"]
    let base = "/emulator/v1/projects/demo-pushmock"

    func send(_ c: HTTPConnection, _ token: String, _ members: String) throws -> String {
        let r = try c.request("POST", "/fcm/send", body: #"{"to":"\#(token)",\#(members)}"#, headers: auth)
        return ((r.json["results"] as? [[String: Any]])?.first?["message_id"] as? String) ?? ""
    }

    func patch(_ c: HTTPConnection, _ id: String, _ body: String) throws {
        #expect(try c.request("PATCH", base + "/devices/\(id)", body: body).status == 200)
    }

    @Test("an iPhone and an Android phone through foreground, background, force-quit, offline and back; the report counts it")
    func journey() throws {
        let server = try ServerProcess(["--clock", "manual"])
        let c = try HTTPConnection(port: server.port)
        let ios = try c.request(
            "POST", base + "/devices", body: #"{"platform":"ios","app":"com.example.app","app_state":"foreground"}"#
        ).json
        let android = try c.request(
            "POST", base + "/devices", body: #"{"platform":"android","app":"com.example.app","app_state":"foreground"}"#
        ).json
        let it = ios["token"] as! String
        let at = android["token"] as! String
        let alert = #""notification":{"title":"Hi"}"#

        _ = try send(c, it, alert) // presented
        _ = try send(c, at, alert) // to the app
        try patch(c, "d1", #"{"app_state":"background"}"#)
        try patch(c, "d2", #"{"app_state":"background"}"#)
        let shown = try send(c, it, alert) // displayed
        _ = try send(c, at, alert) // displayed + impression
        let tap =
            base + "/devices/d1/notifications/" + shown.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + ":open"
        #expect(try c.request("POST", tap).status == 200)
        try patch(c, "d1", #"{"app_state":"terminated"}"#)
        try patch(c, "d2", #"{"app_state":"terminated"}"#)
        _ = try send(c, it, #""content_available":true,"data":{"k":"v"}"#) // dropped: force-quit
        _ = try send(c, at, alert) // dropped: force-stopped
        try patch(c, "d1", #"{"app_state":"background","online":false}"#)
        try patch(c, "d2", #"{"app_state":"background","online":false}"#)
        _ = try send(c, it, alert) // stored
        _ = try send(c, at, #""time_to_live":30,"data":{"k":"v"}"#) // stored, then expires
        #expect(try c.request("POST", "/emulator/v1/clock:advance", body: #"{"seconds":60}"#).status == 200)
        try patch(c, "d1", #"{"online":true}"#)
        try patch(c, "d2", #"{"online":true}"#)

        let delivered =
            try c.request("GET", base + "/events?device=d1&event=MESSAGE_DELIVERED").json["events"] as? [[String: Any]]
        #expect(delivered?.last?["delay_ms"] as? Int == 60_000)
        let expired = try c.request("GET", base + "/events?device=d2&event=MESSAGE_EXPIRED&count=true").json
        #expect(expired["count"] as? Int == 1)

        let total = try c.request("GET", base + "/reports").json["total"] as? [String: Any]
        #expect(total?["sends"] as? Int == 6) // every notification message accepted for a device
        #expect(total?["received"] as? Int == 2) // Android arrivals of notification messages
        #expect(total?["impressions"] as? Int == 1)
        #expect(total?["opens"] as? Int == 1)
        let outcomes = total?["outcomes"] as? [String: Int]
        #expect(outcomes?["accepted"] == 8)
        #expect(outcomes?["delivered"] == 5)
        #expect(outcomes?["droppedAppForceStopped"] == 2)
        #expect(outcomes?["droppedTtlExpired"] == 1)
        #expect(outcomes?["pending"] == 0)
        #expect(outcomes?["droppedOther"] == 0)
        #expect(outcomes?["collapsed"] == 0)
    }
}
