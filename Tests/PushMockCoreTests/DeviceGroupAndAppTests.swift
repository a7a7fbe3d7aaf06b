import Testing

@testable import PushMockCore

@Suite("Device-group management and app declarations: bad input")
struct DeviceGroupAndAppTests {
    let auth = [(name: "Authorization", value: "key=\(Configuration.defaultServerKey)")]

    func group(_ h: Harness, _ body: String) -> Response {
        h.call("POST", "/fcm/notification", body: body, headers: auth)
    }

    @Test(
        "device groups with an OAuth token: Authorization: Bearer with access_token_auth: true and project_id, as FCM's docs give"
    )
    func groupsWithOAuth() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        h.gateway.credentials.add(
            accessToken: "ya29.groups", AccessToken(projectID: "demo-pushmock", email: "x", expires: Harness.start + 60_000_000))
        let body = #"{"operation":"create","notification_key_name":"oauth","registration_ids":["\#(t)"]}"#
        let number = String(h.project.number)
        func call(_ headers: [(name: String, value: String)]) -> Response {
            h.call("POST", "/fcm/notification", body: body, headers: headers)
        }
        let bearer = [(name: "Authorization", value: "Bearer ya29.groups"), (name: "access_token_auth", value: "true")]
        // Without access_token_auth a bearer token is not taken, as for the Instance ID API.
        #expect(call([bearer[0], (name: "project_id", value: number)]).status == 401)
        #expect(call(bearer + [(name: "project_id", value: "123456")]).status == 401)
        #expect(
            call([(name: "Authorization", value: "Bearer nope"), bearer[1], (name: "project_id", value: number)]).status == 401)
        let created = call(bearer + [(name: "project_id", value: number)])
        #expect(created.status == 200 && json(created)["notification_key"] as? String != nil, "\(created.bodyText)")
        let lookup = h.call(
            "GET", "/fcm/notification?notification_key_name=oauth", headers: bearer + [(name: "project_id", value: number)])
        #expect(
            lookup.status == 200 && json(lookup)["notification_key"] as? String == json(created)["notification_key"] as? String)
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
