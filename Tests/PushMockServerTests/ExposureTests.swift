import Foundation
import Testing

/// Who may use the control API and dashboard (docs/exposure.md): the host names pushmock is
/// known by, JSON bodies only, and an optional token; the FCM and APNs routes are not affected.
@Suite("Exposure of the control API and dashboard")
struct ExposureTests {
    let base = "/emulator/v1/projects/demo-pushmock"

    @Test("a Host pushmock is not known by (DNS rebinding) is refused on the control API and dashboard, not on FCM or /healthz")
    func hostNames() throws {
        let server = try ServerProcess(["--tls-san", "push.test"])
        let c = try HTTPConnection(port: server.port)
        func get(_ path: String, host: String) throws -> HTTPConnection.Reply {
            try c.request("GET", path, headers: ["Host": host])
        }
        let rebound = try get(base + "/devices", host: "evil.example:4010")
        #expect(rebound.status == 403 && (rebound.json["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
        #expect(try get("/", host: "evil.example").status == 403)
        #expect(try get("/healthz", host: "evil.example").status == 200)
        for host in ["localhost:4010", "127.0.0.1", "[::1]:4010", "push.test", "fcm.googleapis.com", "api.push.apple.com"] {
            #expect(try get(base + "/devices", host: host).status == 200, "\(host)")
        }
        let send = try c.request(
            "POST", "/fcm/send", body: #"{"to":"/topics/a","data":{"a":"b"}}"#,
            headers: ["Host": "evil.example", "Authorization": "key=pushmock-dev-server-key"])
        #expect(send.status == 200)
        // --allow-host adds names; * any.
        let allowed = try ServerProcess(["--allow-host", "pushmock,ci.internal"])
        let a = try HTTPConnection(port: allowed.port)
        #expect(try a.request("GET", base + "/devices", headers: ["Host": "pushmock:4010"]).status == 200)
        #expect(try a.request("GET", base + "/devices", headers: ["Host": "other"]).status == 403)
        let any = try ServerProcess(["--allow-host", "*"])
        #expect(try HTTPConnection(port: any.port).request("GET", base + "/devices", headers: ["Host": "other"]).status == 200)
    }

    @Test("the control API takes JSON bodies only: a browser's text/plain or form post from another site is refused")
    func jsonOnly() throws {
        let server = try ServerProcess()
        let c = try HTTPConnection(port: server.port)
        let body = #"{"platform":"android","app":"a.b"}"#
        for type in ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let r = try c.request("POST", base + "/devices", body: body, headers: ["Content-Type": type])
            #expect(r.status == 415, "\(type)")
        }
        #expect(
            try c.request("POST", base + "/devices", body: body, headers: ["Content-Type": "application/json; charset=utf-8"])
                .status == 201)
        // Posts without a body need no type.
        #expect(try c.request("POST", base + "/devices/d1/topics/news").status == 200)
    }

    @Test("--control-token: the control API needs it (header, or access_token for event streams); FCM does not")
    func token() throws {
        let server = try ServerProcess(["--control-token", "s3cret"])
        let c = try HTTPConnection(port: server.port)
        let none = try c.request("GET", base + "/devices")
        #expect(none.status == 401 && (none.json["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        #expect(try c.request("GET", base + "/devices", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try c.request("GET", base + "/devices", headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(try c.request("GET", base + "/events?count=true&access_token=s3cret").status == 200)
        #expect(try c.request("GET", "/").status == 200, "the dashboard page itself holds no data")
        let send = try c.request(
            "POST", "/fcm/send", body: #"{"to":"/topics/a","data":{"a":"b"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key"])
        #expect(send.status == 200)
    }
}
