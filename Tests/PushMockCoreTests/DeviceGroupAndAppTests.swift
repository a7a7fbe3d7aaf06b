import Testing

@testable import PushMockCore

@Suite("Device-group management and app declarations: bad input")
struct DeviceGroupAndAppTests {
    let auth = [(name: "Authorization", value: "key=\(Configuration.defaultServerKey)")]

    func group(_ h: Harness, _ body: String) -> Response {
        h.call("POST", "/fcm/notification", body: body, headers: auth)
    }

    @Test("device-group requests with bad operations, names, keys or tokens get 400 with a reason")
    func groupErrors() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        #expect(h.call("POST", "/fcm/notification", body: "{}").status == 401)
        #expect(group(h, "{").bodyText == #"{"error":"InvalidJson"}"#)
        #expect(
            group(h, #"{"operation":"explode","notification_key_name":"a","registration_ids":["\#(t)"]}"#).bodyText
                == #"{"error":"invalid operation"}"#)
        #expect(
            group(h, #"{"operation":"create","registration_ids":["\#(t)"]}"#).bodyText
                == #"{"error":"notification_key_name not found"}"#)
        #expect(
            group(h, #"{"operation":"create","notification_key_name":"a","registration_ids":["nope"]}"#).bodyText
                == #"{"error":"no valid registration ids"}"#)
        #expect(group(h, #"{"operation":"create","notification_key_name":"a","registration_ids":["\#(t)"]}"#).status == 200)
        #expect(
            group(h, #"{"operation":"create","notification_key_name":"a","registration_ids":["\#(t)"]}"#).bodyText
                == #"{"error":"notification_key already exists"}"#)
        #expect(
            group(h, #"{"operation":"add","notification_key_name":"a","notification_key":"wrong","registration_ids":["\#(t)"]}"#)
                .bodyText == #"{"error":"notification_key not found"}"#)
        let many = try (0..<21).map { _ in try h.device("android")["token"] as! String }
        let list = many.map { "\"\($0)\"" }.joined(separator: ",")
        #expect(
            group(h, #"{"operation":"create","notification_key_name":"big","registration_ids":[\#(list)]}"#).bodyText
                == #"{"error":"too many registration ids"}"#)
        #expect(h.call("GET", "/fcm/notification?notification_key_name=none", headers: auth).status == 400)
    }

    @Test("removing a group's last member deletes the group")
    func removeLast() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let key =
            json(group(h, #"{"operation":"create","notification_key_name":"g","registration_ids":["\#(t)"]}"#))[
                "notification_key"] as! String
        #expect(
            group(
                h,
                #"{"operation":"remove","notification_key_name":"g","notification_key":"\#(key)","registration_ids":["\#(t)"]}"#
            ).status == 200)
        #expect(h.call("GET", "/fcm/notification?notification_key_name=g", headers: auth).status == 400)
    }

    @Test(
        "app declarations validate platform, name and environments",
        arguments: [
            #"{"app":"a"}"#, #"{"platform":"web","app":"a"}"#, #"{"platform":"ios"}"#,
            #"{"platform":"ios","app":"a","apns_environments":"sandbox"}"#,
            #"{"platform":"ios","app":"a","apns_environments":["moon"]}"#, #"{"platform":"ios","app":"a","x":1}"#, "[]",
        ])
    func appErrors(_ body: String) throws {
        let r = try Harness().call("POST", "/emulator/v1/projects/demo-pushmock/apps", body: body)
        #expect(r.status == 400)
        #expect((json(r)["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
    }
}
