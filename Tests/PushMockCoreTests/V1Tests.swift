import Foundation
import Testing

@testable import PushMockCore

@Suite("FCM HTTP v1: messages:send errors, rendering and auth")
struct V1Tests {
    let url = "/v1/projects/demo-pushmock/messages:send"

    func v1(_ h: Harness, _ body: String, auth: String? = nil) -> Response {
        h.call("POST", url, body: body, headers: auth.map { [("Authorization", $0)] } ?? [])
    }

    func error(_ r: Response) -> (Int?, String?, String?, String?) {
        let e = json(r)["error"] as? [String: Any]
        let details = e?["details"] as? [[String: Any]]
        let fcm = details?.first { ($0["@type"] as? String)?.hasSuffix("FcmError") == true }?["errorCode"] as? String
        return (e?["code"] as? Int, e?["status"] as? String, fcm, e?["message"] as? String)
    }

    @Test("a token send answers the message name and delivers; snake_case and lowerCamelCase both work")
    func send() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("android")["token"] as! String
        let r = v1(
            h,
            #"{"message":{"token":"\#(t)","notification":{"title":"T"},"android":{"ttl":"60s","collapseKey":"k"},"fcmOptions":{"analyticsLabel":"promo"}}}"#
        )
        #expect(r.status == 200)
        let name = try #require(json(r)["name"] as? String)
        #expect(name.range(of: #"^projects/demo-pushmock/messages/0:\d{16}%[0-9a-f]{16}$"#, options: .regularExpression) != nil)
        let android = try #require(h.inbox("d1").first?["android"] as? [String: Any])
        #expect(android["ttl"] as? Int == 60 && android["collapse_key"] as? String == "k")
        #expect(try h.events("&event=MESSAGE_ACCEPTED").first?["analytics_label"] as? String == "promo")
        #expect(
            json(v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}},"validateOnly":true}"#))["name"] as? String
                == "projects/demo-pushmock/messages/fake_message_id")
    }

    @Test(
        "bad requests get INVALID_ARGUMENT with the field",
        arguments: [
            (#"{"message":{}}"#, "Recipient of the message is not set."),
            (
                #"{"message":{"token":"a","topic":"b"}}"#,
                "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set 'topic'"
            ),
            (#"{"message":{"topic":"t","data":{"n":12}}}"#, "Invalid value at 'message.data[0].value' (TYPE_STRING), 12"),
            (
                #"{"message":{"topic":"t","colour":"red"}}"#,
                "Invalid JSON payload received. Unknown name \"colour\" at 'message': Cannot find field."
            ),
            (
                #"{"message":{"topic":"t"},"extra":1}"#,
                "Invalid JSON payload received. Unknown name \"extra\": Cannot find field."
            ),
            (
                #"{"message":{"topic":"t","android":{"priority":"urgent"}}}"#,
                "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \"urgent\""
            ),
            (
                #"{"message":{"topic":"t","android":{"ttl":"ten"}}}"#,
                "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"ten\""
            ),
            (#"{"message":{"condition":"'a' in topics &&"}}"#, "Invalid condition expression provided."),
            (
                #"{"message":{"topic":"/topics/a"}}"#,
                "Invalid topic name '/topics/a': it must match [a-zA-Z0-9-_.~%]+, without the /topics/ prefix."
            ),
            (
                #"{"message":{"topic":"t","fcm_options":{"analytics_label":"no spaces"}}}"#,
                "Analytics label must match ^[a-zA-Z0-9-_.~%]{1,50}$."
            ),
            (
                #"{"message":{"topic":"t","webpush":{"fcm_options":{"link":"http://x"}}}}"#,
                "The webpush link must be an HTTPS URL: http://x"
            ),
            (
                #"{"message":{"topic":"t","data":{"from":"me"}}}"#,
                "Invalid data payload key: from. Keys may not be from, message_type, or start with google. or gcm."
            ),
            // Reserved by its bytes (the SDK compares code units): a combining mark after the dot.
            (
                #"{"message":{"topic":"t","android":{"data":{"google.\u0301x":"me"}}}}"#,
                "Invalid data payload key: google.\u{301}x. Keys may not be from, message_type, or start with google. or gcm."
            ),
            (#"{"message":"#, "Invalid JSON payload received. Unexpected end of input at position 11."),
        ])
    func badRequests(_ body: String, _ message: String) throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let r = v1(h, body)
        let (code, status, fcm, text) = error(r)
        // What the front end refuses never reached FCM: no FcmError (§J.2); FCM's own 400s have one.
        let frontEnd = message.hasPrefix("Invalid JSON payload") || message.hasPrefix("Invalid value at")
        #expect(r.status == 400 && code == 400 && status == "INVALID_ARGUMENT" && fcm == (frontEnd ? nil : "INVALID_ARGUMENT"))
        #expect(text == message)
        #expect(try h.eventNames() == ["INVALID_PARAMETERS"])
    }

    /// The `BadRequest` detail's field violations, `field` nil where it is absent.
    func violations(_ r: Response) -> [(field: String?, description: String)] {
        let details = (json(r)["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
        let bad = details.first { ($0["@type"] as? String)?.hasSuffix("BadRequest") == true }
        return (bad?["fieldViolations"] as? [[String: Any]] ?? []).map {
            ($0["field"] as? String, $0["description"] as? String ?? "")
        }
    }

    @Test(
        "the proto3 JSON mapping as Google's front end reads it: enums by number, int32 as strings, RFC 3339 timestamps, durations, floats",
        arguments: [
            (#""android":{"priority":1}"#, nil),
            (#""android":{"priority":"HIGH","notification":{"notification_priority":4,"visibility":2,"proxy":"DENY"}}"#, nil),
            (#""android":{"notification":{"notification_count":"3"}}"#, nil),
            (#""android":{"notification":{"notification_count":-7}}"#, nil),
            (#""android":{"notification":{"event_time":"2026-12-02T10:00:00.123456789+01:00"}}"#, nil),
            (#""android":{"notification":{"event_time":"2024-02-29T23:59:59Z"}}"#, nil),
            (#""android":{"ttl":"0.5s","notification":{"vibrate_timings":["1s","0.25s"]}}"#, nil),
            (#""android":{"notification":{"light_settings":{"color":{"red":"NaN","green":0.5,"blue":"1"}}}}"#, nil),
            (#""android":{"notification":null},"apns":{"payload":{"aps":{}}}"#, nil),
            (
                #""android":{"notification":{"event_time":"yesterday"}}"#,
                #"Invalid value at 'message.android.notification.event_time' (type.googleapis.com/google.protobuf.Timestamp), "yesterday""#
            ),
            (
                #""android":{"notification":{"event_time":"2025-02-29T00:00:00Z"}}"#,
                #"Invalid value at 'message.android.notification.event_time' (type.googleapis.com/google.protobuf.Timestamp), "2025-02-29T00:00:00Z""#
            ),
            (
                #""android":{"notification":{"event_time":"2026-12-02 10:00:00Z"}}"#,
                #"Invalid value at 'message.android.notification.event_time' (type.googleapis.com/google.protobuf.Timestamp), "2026-12-02 10:00:00Z""#
            ),
            (
                #""android":{"notification":{"notification_count":"three"}}"#,
                #"Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), "three""#
            ),
            (
                #""android":{"notification":{"notification_count":3000000000}}"#,
                "Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), 3000000000"
            ),
            (
                #""android":{"notification":{"notification_count":1.5}}"#,
                "Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), 1.5"
            ),
            (
                #""android":{"notification":{"visibility":9}}"#,
                "Invalid value at 'message.android.notification.visibility' (type.googleapis.com/google.firebase.fcm.v1.AndroidNotification.Visibility), 9"
            ),
            (
                #""android":{"notification":{"visibility":"public"}}"#,
                #"Invalid value at 'message.android.notification.visibility' (type.googleapis.com/google.firebase.fcm.v1.AndroidNotification.Visibility), "public""#
            ),
            (
                #""android":{"ttl":"--5s"}"#,
                #"Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), "--5s""#
            ),
            (
                #""android":{"notification":{"vibrate_timings":["1s","1.0000000001s"]}}"#,
                #"Invalid value at 'message.android.notification.vibrate_timings[1]' (type.googleapis.com/google.protobuf.Duration), "1.0000000001s""#
            ),
            (
                #""android":{"notification":{"light_settings":{"color":{"red":"red"}}}}"#,
                #"Invalid value at 'message.android.notification.light_settings.color.red' (TYPE_FLOAT), "red""#
            ),
            (
                #""android":{"direct_boot_ok":"true"}"#,
                #"Invalid value at 'message.android.direct_boot_ok' (TYPE_BOOL), "true""#
            ),
            (
                #""android":"high""#,
                #"Invalid value at 'message.android' (type.googleapis.com/google.firebase.fcm.v1.AndroidConfig), "high""#
            ),
            (
                #""apns":{"payload":"aps"}"#,
                #"Invalid value at 'message.apns.payload' (type.googleapis.com/google.protobuf.Struct), "aps""#
            ),
        ] as [(String, String?)])
    func protoJSONMapping(_ members: String, _ message: String?) throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let r = v1(h, #"{"message":{"topic":"t","# + members + "}}")
        if let message {
            #expect(r.status == 400)
            #expect(error(r).2 == nil && error(r).3 == message)
            #expect(violations(r).count == 1 && violations(r).first?.description == message)
        } else {
            #expect(r.status == 200, "\(r.bodyText)")
        }
    }

    @Test(
        "size limits count what each platform receives: android.data and webpush.data replace data, the APNs payload is APNs' JSON"
    )
    func platformSizes() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        func x(_ n: Int) -> String { String(repeating: "x", count: n) }
        let phone = try h.device("android")["token"] as! String
        func send(_ members: String, topic: Bool = false) -> Response {
            v1(h, #"{"message":{"# + (topic ? #""topic":"t","# : #""token":"\#(phone)","#) + members + "}}")
        }
        let tooBig: [String] = [
            #""data":{"a":"b"},"android":{"data":{"k":"\#(x(4100))"}}"#,
            #""webpush":{"data":{"k":"\#(x(4100))"}}"#,
            #""notification":{"title":"\#(x(3000))"},"android":{"notification":{"body":"\#(x(1100))"}}"#,
            #""apns":{"payload":{"aps":{"alert":"\#(x(4100))"}}}"#,
            #""data":{"k":"\#(x(3000))"},"apns":{"payload":{"aps":{"alert":"\#(x(1100))"}}}"#,
            #""webpush":{"notification":{"body":"\#(x(4100))"}}"#,
        ]
        for members in tooBig {
            let r = send(members)
            #expect(r.status == 400 && error(r).3 == "Request contains an invalid argument.", "\(members.prefix(60))")
            #expect((json(r)["error"] as? [String: Any])?["details"] == nil, "no details, as observed")
            #expect(try h.events().last?["event"] as? String == "PAYLOAD_TOO_LARGE")
        }
        // Within each platform's limit, though the sum of all blocks is not.
        let fits = #""data":{"k":"\#(x(3000))"},"android":{"data":{"k":"\#(x(3000))"}},"webpush":{"data":{"k":"\#(x(3000))"}}"#
        #expect(send(fits).status == 200)
        // The common message still counts as a whole: data and notification together.
        #expect(send(#""data":{"k":"\#(x(4000))"},"notification":{"title":"\#(x(200))"}"#).status == 400)
        #expect(send(#""android":{"data":{"k":"\#(x(4000))"}}"#).status == 200)
        // VoIP payloads may be 5120 bytes at APNs; topics take 2048 bytes of data.
        let voip = #""apns":{"headers":{"apns-push-type":"voip"},"payload":{"aps":{},"k":"\#(x(4500))"}}"#
        #expect(send(voip).status == 200)
        #expect(send(#""android":{"data":{"k":"\#(x(2100))"}}"#, topic: true).status == 400)
        #expect(send(#""android":{"data":{"k":"\#(x(2000))"}}"#, topic: true).status == 200)
    }

    @Test("a send leaves a canonical data and notification unbuilt and reads them as the built objects read")
    func unbuiltMembers() throws {
        func isUnbuilt(_ m: V1Request.Member) -> Bool {
            if case .unbuilt = m { true } else { false }
        }
        // The body, and whether its data and notification are left unbuilt.
        let bodies: [(String, Bool)] = [
            (#"{"message":{"token":"a","notification":{"title":"T","body":"b"},"data":{"k":"v","gcm":"x"}}}"#, true),
            (#"{"message":{"data":{"a":"b"},"token":"a","data":{"cc":"dd"},"notification":{"image":"i"}}}"#, true),
            (#"{"message":{"topic":"t","notification":{"title":"T"},"android":{"notification":{"body":"B"}}}}"#, true),
            (#"{"message":{"topic":"t","data":{},"notification":{}}}"#, true),
            (#"{"message":{"token":"a","data":{"k":"v"}},"message":{"token":"b","notification":{"body":"B"}}}"#, true),
            (#"{"message":{"token":"a","data":{"k":"v"}},"message":{"topic":"t"}}"#, true),
            // Read the long way, and built: an escape, a value that is not a string, a null, a
            // lowerCamelCase name elsewhere in the body.
            (#"{"message":{"topic":"t","data":{"k":"\u00e9"},"notification":{"title":"T"}}}"#, false),
            (#"{"message":{"topic":"t","data":{"k":"v"},"notification":{"title":null}}}"#, false),
            (#"{"message":{"topic":"t","data":null,"notification":{"title":"T"}}}"#, false),
            (#"{"message":{"topic":"t","data":{"k":"v"},"notification":{"title":"T"},"fcmOptions":{}}}"#, false),
        ]
        for (body, unbuilt) in bodies {
            let sent = try V1Request.decode(Array(body.utf8))
            let built = try V1Request.decode(Array(body.utf8), building: true)
            for (a, b) in [(sent.data, built.data), (sent.notification, built.notification)] {
                #expect(a.pairsBytes == b.pairsBytes, "\(body)")
                #expect(a.reservedKey == b.reservedKey, "\(body)")
                #expect(a.object == b.object && a.isPresent == b.isPresent, "\(body)")
                #expect(!isUnbuilt(b), "\(body)")
                #expect(isUnbuilt(a) == (unbuilt && a.isPresent), "\(body)")
            }
            #expect(sent.content.options.priority == built.content.options.priority, "\(body)")
            #expect(sent.content.options.isNotification == built.content.options.isNotification, "\(body)")
            #expect(sent.message["data"] == nil || !unbuilt, "\(body)")
        }
        let first = try V1Request.decode(Array(bodies[0].0.utf8))
        #expect(first.data.pairsBytes == 1 + 1 + 3 + 1 && first.notification.pairsBytes == 5 + 1 + 4 + 1)
        #expect(first.content.options.priority == .high && first.content.options.isNotification)
        let second = try V1Request.decode(Array(bodies[1].0.utf8))
        #expect(second.data.object == JSONObject([JSONObject.Entry("cc", .string("dd"))]))
        // The Android payload's notification is the top-level one with android's over it.
        #expect(
            try V1Request.decode(Array(bodies[2].0.utf8)).notification.object
                == JSONObject([JSONObject.Entry("title", .string("T"))]))
    }

    @Test("apns.headers FCM passes on are checked as APNs checks them: 400 with APNs' status and reason in an ApnsError")
    func apnsHeadersPassedOn() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let cases: [(String, String)] = [
            (#""apns-collapse-id":"\#(String(repeating: "c", count: 65))""#, "BadCollapseId"),
            (#""apns-priority":"7""#, "BadPriority"),
            (#""apns-expiration":"-1""#, "BadExpirationDate"),
            (#""apns-expiration":"tomorrow""#, "BadExpirationDate"),
            (#""apns-push-type":"bogus""#, "InvalidPushType"),
            (#""apns-id":"not-a-uuid""#, "BadMessageId"),
            (#""apns-topic":"com.example app""#, "BadTopic"),
            (#""apns-push-type":"voip","apns-topic":"com.example.app""#, "BadTopic"),
            (#""apns-push-type":"background","apns-priority":"10""#, "BadPriority"),
        ]
        for (headers, reason) in cases {
            let r = v1(h, #"{"message":{"topic":"t","apns":{"headers":{\#(headers)}}}}"#)
            let details = (json(r)["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
            let apns = details.first { ($0["@type"] as? String)?.hasSuffix("ApnsError") == true }
            #expect(r.status == 400 && error(r).2 == "INVALID_ARGUMENT", "\(headers)")
            #expect(apns?["reason"] as? String == reason && apns?["statusCode"] as? Int == 400, "\(headers): \(r.bodyText)")
        }
        for fine in [
            #""apns-collapse-id":"\#(String(repeating: "c", count: 64))","apns-priority":"5""#,
            #""apns-push-type":"voip""#, #""apns-push-type":"liveactivity","apns-expiration":"0""#,
            #""apns-id":"123e4567-e89b-42d3-a456-426614174000","apns-topic":"com.example.app""#,
        ] {
            #expect(v1(h, #"{"message":{"topic":"t","apns":{"headers":{\#(fine)}}}}"#).status == 200, "\(fine)")
        }
    }

    @Test("Google's front end lists every unknown name and wrong value, one line and one field violation each, in order")
    func frontEndErrors() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        // The legacy API's body sent to HTTP v1: each unknown name listed, at the root without `field`.
        let legacy = v1(h, #"{"to":"/topics/a","notification":{"title":"x"},"priority":"high"}"#)
        #expect(
            error(legacy).3 == """
                Invalid JSON payload received. Unknown name "to": Cannot find field.
                Invalid JSON payload received. Unknown name "notification": Cannot find field.
                Invalid JSON payload received. Unknown name "priority": Cannot find field.
                """)
        #expect(violations(legacy).count == 3 && violations(legacy).allSatisfy { $0.field == nil })
        let details = (json(legacy)["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
        #expect(details.count == 1 && details[0]["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest")
        // A list where one token belongs (an observed answer), and mixed problems in order.
        let list = v1(h, #"{"message":{"token":["a","b"],"colour":"red","data":{"n":1},"notification":{"title":{}}}}"#)
        #expect(
            violations(list).map(\.description) == [
                #"Invalid JSON payload received. Unknown name "token" at 'message': Proto field is not repeating, cannot start list."#,
                #"Invalid JSON payload received. Unknown name "colour" at 'message': Cannot find field."#,
                "Invalid value at 'message.data[0].value' (TYPE_STRING), 1",
                "Invalid value at 'message.notification' (title), Starting an object on a scalar field",
            ])
        #expect(violations(list).map(\.field) == ["message", "message", "message.data[0].value", "message.notification"])
        #expect(error(list).3 == violations(list).map(\.description).joined(separator: "\n"))
        // A hostile body's thousands of unknown names: the first hundred are listed.
        let names = (0..<150).map { #""x\#($0)":1"# }.joined(separator: ",")
        #expect(violations(v1(h, #"{"message":{"topic":"t","# + names + "}}")).count == 100)
        let array = v1(h, #"[{"message":{}}]"#)
        #expect(error(array).3 == #"Invalid JSON payload received. Unknown name "": Root element must be a message."#)
        #expect(violations(array).first?.field == nil)
        // An enum given by number reaches the device as its name's meaning: 1 is HIGH.
        let phone = try h.device("android")["token"] as! String
        #expect(v1(h, #"{"message":{"token":"\#(phone)","data":{"a":"b"},"android":{"priority":1}}}"#).status == 200)
        let accepted = try h.events().last { $0["event"] as? String == "MESSAGE_ACCEPTED" }
        #expect(accepted?["priority"] as? Int == 10, "\(String(describing: accepted))")
    }

    @Test("token errors: malformed, unregistered, another project's, no APNs credential, too big")
    func tokenErrors() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let gone = try h.device("android")["token"] as! String
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/d1").status == 200)
        let other = try h.device("android", project: "other-project")["token"] as! String
        #expect(
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/apps",
                body: #"{"platform":"ios","app":"com.nocert","apns_environments":[]}"#
            ).status == 200)
        let ios = try h.device("ios", app: "com.nocert")["token"] as! String
        let cases: [(String, Int, String, String, String)] = [
            ("junk", 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"),
            (gone, 404, "NOT_FOUND", "UNREGISTERED", "Requested entity was not found."),
            (other, 403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", "SenderId mismatch"),
            (ios, 401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR", "Auth error from APNS or Web Push Service"),
        ]
        for (token, http, status, fcm, message) in cases {
            let r = v1(h, #"{"message":{"token":"\#(token)","notification":{"title":"x"}}}"#)
            #expect(r.status == http)
            let e = error(r)
            #expect(e.0 == http && e.1 == status && e.2 == fcm && e.3 == message)
        }
        #expect(
            json(v1(h, #"{"message":{"token":"\#(ios)","notification":{"title":"x"}}}"#)).description.contains(
                "InvalidProviderToken"))
        #expect(
            try Array(h.eventNames().suffix(5)) == [
                "INVALID_REGISTRATION", "INVALID_REGISTRATION", "MISMATCH_SENDER_ID",
                "INVALID_APNS_CREDENTIAL", "INVALID_APNS_CREDENTIAL",
            ])
        let big = String(repeating: "x", count: 4100)
        #expect(v1(h, #"{"message":{"topic":"t","data":{"k":"\#(big)"}}}"#).status == 400)
        #expect(error(v1(h, #"{"message":{"fid":"cAAAAAAAAAAAAAAAAAAAAA","data":{"a":"b"}}}"#)).2 == "UNREGISTERED")
    }

    @Test(
        "every refused send is logged: with the device it addressed and in the message list; an unreadable body and bad legacy topics too"
    )
    func refusalsLogged() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/apps",
            body: #"{"platform":"ios","app":"com.nocert","apns_environments":[]}"#)
        let ios = try h.device("ios", app: "com.nocert")
        let (id, token) = (ios["id"] as! String, ios["token"] as! String)
        #expect(v1(h, #"{"message":{"token":"\#(token)","notification":{"title":"x"}}}"#).status == 401)
        #expect(try h.story(id) == ["INVALID_APNS_CREDENTIAL(InvalidApnsCredential)"])
        let listed = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?device=\(id)"))
        let m = (listed["messages"] as? [[String: Any]])?.first
        #expect(m?["api"] as? String == "v1" && m?["failed"] as? Int == 1 && m?["accepted"] as? Int == 0, "\(listed)")
        #expect(try h.events("&device=\(id)").first?["message_id"] as? String == m?["message_id"] as? String)

        let before = try h.events().count
        // A body the transport could not read whole: refused by the front end, logged by the send route.
        _ = h.gateway.framingError(.tooLarge, Request(method: "POST", target: url))
        #expect(try h.events().last?["event"] as? String == "PAYLOAD_TOO_LARGE")
        _ = h.gateway.framingError(.malformed, Request(method: "POST", target: "/fcm/send"))
        #expect(try h.events().last?["reason"] as? String == "malformed_request")
        // Legacy sends to a bad topic name or condition: 400, logged.
        #expect(h.send(#"{"to":"/topics/a b","data":{"a":"b"}}"#).status == 400)
        #expect(h.send(#"{"condition":"'a' in","data":{"a":"b"}}"#).status == 400)
        #expect(try h.events().count == before + 4)
    }

    @Test(
        "scripted errors: UNAVAILABLE (503, Retry-After) and INTERNAL (500), then success; legacy answers Unavailable and InternalServerError"
    )
    func scripted() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("android")["token"] as! String
        let script = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices/d1:scriptErrors",
            body: #"{"errors":["UNAVAILABLE","INTERNAL","Unavailable","InternalServerError"]}"#)
        #expect(json(script)["scripted"] as? Int == 4)
        let unavailable = v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}}}"#)
        #expect(unavailable.status == 503 && error(unavailable).1 == "UNAVAILABLE" && error(unavailable).2 == "UNAVAILABLE")
        #expect(unavailable.headers.contains { $0.name == "Retry-After" })
        let failure = v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}}}"#)
        #expect(failure.status == 500 && error(failure).1 == "INTERNAL" && error(failure).2 == "INTERNAL")
        let legacy = json(h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#))
        #expect((legacy["results"] as? [[String: Any]])?.first?["error"] as? String == "Unavailable")
        let form = h.send("registration_id=\(t)&data.a=b", contentType: "application/x-www-form-urlencoded")
        #expect(form.status == 500)
        #expect(v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}}}"#).status == 200)
        #expect(try h.eventNames("&event=MESSAGE_RECEIVED_INTERNAL_ERROR").count == 4)
        #expect(
            h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/d1:scriptErrors", body: #"{"errors":["BOOM"]}"#).status
                == 400)
    }

    @Test("a data-only message to iOS with apns-priority 10 is rejected at send time")
    func iosDataPriority() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("ios")["token"] as! String
        let r = v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"},"apns":{"headers":{"apns-priority":"10"}}}}"#)
        #expect(r.status == 400 && error(r).2 == "INVALID_ARGUMENT")
        #expect(
            v1(
                h,
                #"{"message":{"token":"\#(t)","data":{"a":"b"},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"content-available":1}}}}}"#
            ).status == 200)
    }

    @Test(
        "a send's options: high priority by default only with a top-level notification; what makes a notification message; the overrides"
    )
    func sendOptions() throws {
        func options(_ message: String) throws -> PushOptions {
            try V1Request.decode(Array(#"{"message":{"token":"t",\#(message)}}"#.utf8)).content.options
        }
        let top = try options(#""notification":{"title":"x"}"#)
        #expect(top.priority == .high && top.isNotification)
        let android = try options(#""android":{"notification":{"title":"x"}}"#)
        #expect(android.priority == .normal && android.isNotification)
        let alert = try options(#""apns":{"payload":{"aps":{"alert":"x"}}}"#)
        #expect(alert.priority == .normal && alert.isNotification)
        let data = try options(#""data":{"k":"v"}"#)
        #expect(data.priority == .normal && !data.isNotification && data.apnsExpiration == nil)
        let high = try options(#""data":{"k":"v"},"android":{"priority":"high","ttl":"60s","collapse_key":"c"}"#)
        #expect(high.priority == .high && high.ttl == 60 && high.collapseKey == "c" && !high.isNotification)
        let apns = try options(#""notification":{"title":"x"},"apns":{"headers":{"apns-priority":"5","apns-expiration":"0"}}"#)
        #expect(apns.priority == .normal && apns.apnsExpiration == 0 && apns.isNotification)
    }

    @Test("apns and android overrides reach the device as FCM merges them")
    func rendering() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let ios = try h.device("ios", app: "com.news")["token"] as! String
        let android = try h.device("android", app: "com.news")["token"] as! String
        _ = v1(
            h,
            #"{"message":{"token":"\#(ios)","notification":{"title":"T","body":"B","image":"https://i/a.png"},"data":{"k":"v"},"apns":{"headers":{"apns-collapse-id":"c1"},"payload":{"aps":{"sound":"ping","mutable-content":1},"custom":{"x":1}}}}}"#
        )
        let apns = try #require(h.inbox("d1").first?["apns"] as? [String: Any])
        let payload = try #require(apns["payload"] as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "T", "body": "B"])
        #expect(aps["sound"] as? String == "ping" && aps["mutable-content"] as? Int == 1)
        #expect((payload["custom"] as? [String: Int]) == ["x": 1] && payload["k"] as? String == "v")
        #expect(payload["fcm_options"] as? [String: String] == ["image": "https://i/a.png"])
        let headers = try #require(apns["headers"] as? [String: String])
        #expect(headers["apns-collapse-id"] == "c1" && headers["apns-priority"] == "10" && headers["apns-push-type"] == "alert")
        #expect(headers["apns-expiration"] == String(Harness.start / 1_000_000 + 30 * 86_400))
        _ = v1(
            h,
            #"{"message":{"token":"\#(android)","notification":{"title":"T","body":"B"},"data":{"k":"v"},"android":{"priority":"high","data":{"k":"android"},"notification":{"title":"Android title","channel_id":"news"}}}}"#
        )
        let m = try #require(h.inbox("d2").first?["android"] as? [String: Any])
        #expect(m["data"] as? [String: String] == ["k": "android"])
        #expect(m["notification"] as? [String: String] == ["title": "Android title", "body": "B", "channel_id": "news"])
        #expect(m["priority"] as? String == "high")
    }

    @Test("bearer auth: missing, unknown, and another project's token; the access_token query parameter")
    func auth() throws {
        let h = try Harness()
        let missing = v1(h, #"{"message":{"topic":"t"}}"#)
        #expect(missing.status == 401 && error(missing).1 == "UNAUTHENTICATED" && error(missing).2 == nil)
        #expect(error(missing).3?.hasPrefix("Request is missing required authentication credential.") == true)
        let bad = v1(h, #"{"message":{"topic":"t"}}"#, auth: "Bearer nope")
        #expect(bad.status == 401 && bad.headers.contains { $0.name == "WWW-Authenticate" && $0.value.contains("invalid_token") })
        h.gateway.credentials.add(
            accessToken: "ya29.test", AccessToken(projectID: "other", email: "x", expires: Harness.start + 60_000_000))
        let other = v1(h, #"{"message":{"topic":"t"}}"#, auth: "Bearer ya29.test")
        #expect(other.status == 403 && error(other).1 == "PERMISSION_DENIED")
        h.gateway.credentials.add(
            accessToken: "ya29.mine", AccessToken(projectID: "demo-pushmock", email: "x", expires: Harness.start + 60_000_000))
        #expect(v1(h, #"{"message":{"topic":"t"}}"#, auth: "Bearer ya29.mine").status == 200)
        let number = String(h.project.number)
        #expect(
            h.call(
                "POST", "/v1/projects/\(number)/messages:send", body: #"{"message":{"topic":"t"}}"#,
                headers: [("Authorization", "Bearer ya29.mine")]
            ).status == 200)
        // The standard `access_token` query parameter carries the token too.
        let query = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send?access_token=ya29.mine", body: #"{"message":{"topic":"t"}}"#)
        #expect(query.status == 200, "\(query.bodyText)")
        let badQuery = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send?access_token=nope", body: #"{"message":{"topic":"t"}}"#)
        #expect(badQuery.status == 401)
        #expect(badQuery.headers.contains { $0.name == "WWW-Authenticate" && $0.value.contains("invalid_token") })
        try h.advance(61)
        #expect(v1(h, #"{"message":{"topic":"t"}}"#, auth: "Bearer ya29.mine").status == 401)
    }

    @Test("quota: beyond the per-minute limit, 429 QUOTA_EXCEEDED with Retry-After, until the minute passes")
    func quota() throws {
        let h = try Harness {
            $0.acceptAnyToken = true
            $0.quotaPerMinute = 3
        }
        for _ in 0..<3 { #expect(v1(h, #"{"message":{"topic":"t"}}"#).status == 200) }
        let r = v1(h, #"{"message":{"topic":"t"}}"#)
        #expect(r.status == 429 && error(r).2 == "QUOTA_EXCEEDED" && error(r).1 == "RESOURCE_EXHAUSTED")
        #expect(r.headers.first { $0.name == "Retry-After" }?.value == "60")
        #expect(try h.eventNames().last == "QUOTA_EXCEEDED")
        try h.advance(60)
        #expect(v1(h, #"{"message":{"topic":"t"}}"#).status == 200)
    }

    @Test("an Android device takes 240 messages a minute")
    func deviceRate() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("android")["token"] as! String
        for _ in 0..<240 { _ = v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}}}"#) }
        let r = v1(h, #"{"message":{"token":"\#(t)","data":{"a":"b"}}}"#)
        #expect(r.status == 429 && error(r).3 == "Device message rate exceeded.")
    }

    @Test("OAuth token endpoint: grant type, missing assertion, malformed JWT, unknown account")
    func oauthErrors() throws {
        let h = try Harness()
        let form = "application/x-www-form-urlencoded"
        func token(_ body: String) -> [String: Any] { json(h.call("POST", "/token", body: body, contentType: form)) }
        #expect(token("grant_type=password")["error"] as? String == "unsupported_grant_type")
        #expect(
            token("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")["error_description"] as? String
                == "Missing required parameter: assertion")
        #expect(
            token("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=abc")["error"] as? String
                == "invalid_grant")
        let header = Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8).base64EncodedString()
        let claims = Data(#"{"iss":"nobody@x.iam.gserviceaccount.com","iat":1,"exp":2}"#.utf8).base64EncodedString()
        let jwt = header + "." + claims + ".c2ln"
        #expect(
            token("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)")["error_description"]
                as? String == "Invalid grant: account not found")
    }

    @Test("v1 topic subscriptions: subscribe, ALREADY_EXISTS, allow_missing, bad tokens")
    func topicSubscriptions() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let t = try h.device("android")["token"] as! String
        let escaped = t.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let base = "/v1/projects/demo-pushmock/registrations/\(escaped)/topicSubscriptions"
        #expect(h.call("POST", base + "?topic_name=news", body: "{}").status == 200)
        #expect(h.call("POST", base + "?topic_name=news", body: "{}").status == 409)
        #expect(h.project.topics["news"]?.count == 1)
        #expect(h.call("POST", base + "?topic_name=bad%20name", body: "{}").status == 400)
        #expect(h.call("DELETE", base + "/news?allow_missing=true").status == 200)
        let badBool = h.call("DELETE", base + "/news?allow_missing=yes")
        #expect(badBool.status == 400 && badBool.bodyText.contains(#"Invalid value at 'allow_missing' (TYPE_BOOL), \"yes\""#))
        #expect(h.call("DELETE", base + "/news").status == 404)
        #expect(h.call("DELETE", base + "/news?allow_missing=true").status == 200)
        #expect(
            h.call("POST", "/v1/projects/demo-pushmock/registrations/junk/topicSubscriptions?topic_name=a", body: "{}").status
                == 400)
    }
}
