import Foundation
import Testing

@testable import PushMockCore

@Suite("POST /fcm/send: responses and per-recipient errors")
struct LegacySendTests {
    @Test("a server key names its project after the project is reset (the last key's project is remembered)")
    func keyAfterReset() throws {
        let h = try Harness()
        let before = try h.device("android")["token"] as! String
        #expect(json(h.send(#"{"to":"\#(before)"}"#))["success"] as? Int == 1)
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock").status == 200)
        let after = try h.device("android")["token"] as! String
        #expect(json(h.send(#"{"to":"\#(after)"}"#))["success"] as? Int == 1)
        #expect(h.project.messages.count == 1)
    }

    @Test("a token send answers FCM's multicast shape and is delivered and logged")
    func tokenSend() throws {
        let h = try Harness()
        let d = try h.device("android")
        let token = d["token"] as! String
        let r = h.send(#"{"to":"\#(token)","data":{"k":"v"}}"#)
        #expect(r.status == 200)
        #expect(r.headers.contains { $0.name == "Content-Type" && $0.value == "application/json; charset=UTF-8" })
        #expect(!r.headers.contains { $0.name.lowercased() == "retry-after" })
        let body = json(r)
        #expect(body["success"] as? Int == 1)
        #expect(body["failure"] as? Int == 0)
        #expect(body["canonical_ids"] as? Int == 0)
        #expect(r.bodyText.hasPrefix(#"{"multicast_id":"#))
        let results = try #require(body["results"] as? [[String: Any]])
        let id = try #require(results.first?["message_id"] as? String)
        #expect(id.range(of: #"^0:\d{16}%[0-9a-f]{16}$"#, options: .regularExpression) != nil)
        #expect(
            try h.eventNames("&message_id=" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!) == [
                "MESSAGE_ACCEPTED", "MESSAGE_DELIVERED",
            ])
        #expect(try h.inbox("d1").map { $0["message_id"] as? String } == [id])
    }

    @Test("recipient message ids: FCM's shape, one suffix for the run, the timestamp always moving forward")
    func recipientIDs() throws {
        let ids = MessageIDs(random: RandomSource(seed: 7), clock: Clock(mode: .system))
        let made = (0..<1000).map { _ in ids.recipient() }
        for id in made { #expect(id.range(of: #"^0:\d{16}%[0-9a-f]{16}$"#, options: .regularExpression) != nil, "\(id)") }
        #expect(Set(made.map { $0.split(separator: "%")[1] }).count == 1)
        let micros = made.map { Int64($0.dropFirst(2).split(separator: "%")[0])! }
        #expect(zip(micros, micros.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("on the system clock a recipient id carries the time its send was accepted at (the request's, read once)")
    func recipientIDTime() throws {
        let h = try Harness(clock: Clock(mode: .system))
        let token = try h.device("android")["token"] as! String
        for _ in 0..<3 {
            let results = try #require(json(h.send(#"{"to":"\#(token)"}"#))["results"] as? [[String: Any]])
            let id = try #require(results.first?["message_id"] as? String)
            let micros = try #require(Timestamp(id.dropFirst(2).split(separator: "%")[0]))
            let accepted = try h.events(
                "&event=MESSAGE_ACCEPTED&message_id=" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(accepted.map { $0["event_timestamp"] as? String } == [micros.rfc3339])
        }
    }

    @Test("registration_ids gives one result per token in order, each with its own error")
    func multicastMixed() throws {
        let h = try Harness()
        let a = try h.device("android")["token"] as! String
        let gone = try h.device("android")["token"] as! String
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/d2").status == 200)
        let other = try h.device("android", project: "other-project")["token"] as! String
        let unknown = "eAAAAAAAAAAAAAAAAAAAAA:APA91b" + String(repeating: "x", count: 134)
        let body =
            #"{"registration_ids":["\#(a)","","garbage","\#(gone)","\#(other)","\#(unknown)"],"notification":{"title":"t"}}"#
        let r = json(h.send(body))
        #expect(r["success"] as? Int == 1)
        #expect(r["failure"] as? Int == 5)
        let results = r["results"] as! [[String: Any]]
        #expect(results.count == 6)
        #expect(results[0]["message_id"] is String)
        #expect(
            results.dropFirst().map { $0["error"] as? String } == [
                "MissingRegistration", "InvalidRegistration", "NotRegistered", "MismatchSenderId", "NotRegistered",
            ])
        #expect(
            try h.eventNames().filter { !$0.hasPrefix("MESSAGE_") } == [
                "MISSING_REGISTRATIONS", "INVALID_REGISTRATION", "INVALID_REGISTRATION", "MISMATCH_SENDER_ID",
                "INVALID_REGISTRATION",
            ])
    }

    @Test("no target at all answers MissingRegistration")
    func missingTarget() throws {
        let r = json(try Harness().send(#"{"data":{"a":"b"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "MissingRegistration")
    }

    @Test("restricted_package_name must match an Android token's package")
    func packageName() throws {
        let h = try Harness()
        let t = try h.device("android", app: "com.a")["token"] as! String
        let r = json(h.send(#"{"to":"\#(t)","restricted_package_name":"com.b","data":{"x":"y"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "InvalidPackageName")
        let ok = json(h.send(#"{"to":"\#(t)","restricted_package_name":"com.a","data":{"x":"y"}}"#))
        #expect(ok["success"] as? Int == 1)
    }

    @Test("an iOS app without an APNs credential for the device's environment answers InvalidApnsCredential")
    func apnsCredential() throws {
        let h = try Harness()
        #expect(
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/apps",
                body: #"{"platform":"ios","app":"com.ios","apns_environments":["production"]}"#
            ).status == 200)
        let t = try h.device("ios", app: "com.ios")["token"] as! String
        let r = json(h.send(#"{"to":"\#(t)","notification":{"title":"x"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "InvalidApnsCredential")
        #expect(try h.eventNames() == ["INVALID_APNS_CREDENTIAL"])
    }

    @Test("time_to_live outside 0...2419200 or fractional answers InvalidTtl", arguments: ["-1", "2419201", "1.5"])
    func invalidTTL(_ ttl: String) throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let r = json(h.send(#"{"to":"\#(t)","time_to_live":\#(ttl),"data":{"a":"b"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "InvalidTtl")
        #expect(try h.eventNames() == ["INVALID_TTL"])
    }

    @Test("reserved data keys answer InvalidDataKey", arguments: ["from", "message_type", "google.x", "gcm.y", "googleFoo"])
    func reservedKeys(_ key: String) throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let r = json(h.send(#"{"to":"\#(t)","data":{"\#(key)":"v"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "InvalidDataKey")
        #expect(json(h.send(#"{"to":"/topics/t","data":{"\#(key)":"v"}}"#))["error"] as? String == "InvalidDataKey")
    }

    @Test("payloads over 4096 bytes (2048 for topics) answer MessageTooBig")
    func tooBig() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let fits = String(repeating: "a", count: 4096 - 1)
        #expect(json(h.send(#"{"to":"\#(t)","data":{"k":"\#(fits)"}}"#))["success"] as? Int == 1)
        let over = String(repeating: "a", count: 4096)
        let r = json(h.send(#"{"to":"\#(t)","data":{"k":"\#(over)"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "MessageTooBig")
        let topic = String(repeating: "a", count: 2048)
        #expect(json(h.send(#"{"to":"/topics/t","data":{"k":"\#(topic)"}}"#))["error"] as? String == "MessageTooBig")
        #expect(try h.eventNames().suffix(2) == ["PAYLOAD_TOO_LARGE", "PAYLOAD_TOO_LARGE"])
        // Counted in UTF-8 once decoded: `\u00e9` is two bytes.
        let accents = { (n: Int) in String(repeating: "\\u00e9", count: n) }
        #expect(json(h.send(#"{"to":"\#(t)","data":{"k":"\#(accents(2047))"}}"#))["success"] as? Int == 1)
        let r2 = json(h.send(#"{"to":"\#(t)","data":{"k":"\#(accents(2048))"}}"#))
        #expect((r2["results"] as? [[String: Any]])?.first?["error"] as? String == "MessageTooBig")
        // A reserved key spelled with an escape is still reserved.
        let r3 = json(h.send(#"{"to":"\#(t)","data":{"\u0066rom":"v"}}"#))
        #expect((r3["results"] as? [[String: Any]])?.first?["error"] as? String == "InvalidDataKey")
    }

    @Test("a send weighs data and notification where they lie in its body, as the built objects weigh")
    func payloadWeights() throws {
        let bodies = [
            #"{"to":"a","data":{"k":"v","n":12.50,"b":true,"o":{"x":[1, 2]},"z":null},"notification":{"title":"T"}}"#,
            #"{"to":"a","data":{"\u006b":"\u00e9\n","é":"ü"}}"#,
            #"{"to":"a","data":{"a":"b"},"data":{"cc":"dd"},"notification":{},"notification":null}"#,
            #"{"to":"a","data":{"\u0066rom":"x"}}"#,
            #"{"to":"a","notification":{"from":"x","gcm.n":"y"},"data":{}}"#,
            #"{"to":"a","data":null}"#,
        ]
        var weights: [(data: Int?, notification: Int?, reserved: Bool?)] = []
        for body in bodies {
            let sent = try LegacyRequest.decodeJSON(Array(body.utf8))
            let built = try LegacyRequest.decodeJSON(Array(body.utf8), building: true)
            #expect(sent.content.data == nil && sent.content.notification == nil, "\(body)")
            #expect((built.content.data != nil) == (built.dataWeight != nil), "\(body)")
            #expect(sent.dataWeight?.bytes == built.dataWeight?.bytes, "\(body)")
            #expect(sent.dataWeight?.hasReservedKey == built.dataWeight?.hasReservedKey, "\(body)")
            #expect(sent.notificationWeight?.bytes == built.notificationWeight?.bytes, "\(body)")
            #expect(sent.content.options.isNotification == built.content.options.isNotification, "\(body)")
            #expect(sent.content.options.priority == built.content.options.priority, "\(body)")
            weights.append((sent.dataWeight?.bytes, sent.notificationWeight?.bytes, sent.dataWeight?.hasReservedKey))
        }
        // Keys and strings as UTF-8; other values as their JSON text (`12.50`, `true`,
        // `{"x":[1,2]}`, `null`); the last of a repeated member; a null as if absent.
        #expect(weights[0].data == 2 + 6 + 5 + 12 + 5 && weights[0].notification == 6)
        #expect(weights[1].data == 1 + 3 + 2 + 2)
        #expect(weights[2].data == 4 && weights[2].notification == 0)
        #expect(weights[3].reserved == true && weights[4].reserved == false && weights[4].notification == 4 + 1 + 5 + 1)
        #expect(weights[5].data == nil)
    }

    @Test("dry_run validates without delivering and answers fake ids")
    func dryRun() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let r = h.send(#"{"to":"\#(t)","dry_run":true,"data":{"a":"b"}}"#)
        #expect(
            r.bodyText
                == #"{"multicast_id":-1,"success":1,"failure":0,"canonical_ids":0,"results":[{"message_id":"fake_message_id"}]}"#)
        #expect(try h.inbox("d1").isEmpty)
        #expect(try h.events().map { $0["reason"] as? String } == ["dry_run"])
        #expect(h.send(#"{"to":"/topics/x","dry_run":true,"data":{"a":"b"}}"#).bodyText == #"{"message_id":-1}"#)
        // GCM read its parameters from the query string too: `?dry_run=true` makes a JSON or
        // plain-text send a dry run; `?dry_run=false` changes nothing.
        let key = [("Authorization", "key=\(Configuration.defaultServerKey)")]
        let query = h.call("POST", "/fcm/send?dry_run=true", body: #"{"to":"\#(t)","data":{"a":"b"}}"#, headers: key)
        #expect(query.bodyText.contains(#""message_id":"fake_message_id""#), "\(query.bodyText)")
        let form = h.call(
            "POST", "/fcm/send?dry_run=1", body: "registration_id=\(t)&data.a=b",
            contentType: "application/x-www-form-urlencoded;charset=UTF-8", headers: key)
        #expect(form.bodyText == "id=fake_message_id\n")
        #expect(try h.inbox("d1").isEmpty)
        let real = h.call("POST", "/fcm/send?dry_run=false", body: #"{"to":"\#(t)","data":{"a":"b"}}"#, headers: key)
        #expect(!real.bodyText.contains("fake_message_id"))
        #expect(try h.inbox("d1").count == 1)
    }

    @Test("the seed's topic send reaches every subscriber and answers a numeric message_id")
    func seedTopicSend() throws {
        let h = try Harness()
        try h.device("ios", app: "jp.nnsnodnb.demo")
        try h.device("android", app: "jp.nnsnodnb.demo")
        try h.device("android", app: "jp.nnsnodnb.demo")
        try h.subscribe("d1", "news")
        try h.subscribe("d2", "news")
        let seed =
            #"{"to": "/topics/news", "priority": "high", "notification": {"title": "t", "body": "b", "badge": 1, "sound": "default", "mutable_content": true, "image_url": "https://example.com/i.png"}}"#
        let r = h.send(seed, contentType: "application/json; charset=UTF-8")
        #expect(r.status == 200)
        #expect(r.bodyText.range(of: #"^\{"message_id":\d{19}\}$"#, options: .regularExpression) != nil)
        let id = String(describing: json(r)["message_id"]!)
        #expect(try h.eventNames("&message_id=\(id)").count == 8)
        #expect(
            try h.eventNames("&message_id=\(id)&device=d1") == ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED"])
        #expect(
            try h.eventNames("&message_id=\(id)&device=d2") == [
                "MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_IMPRESSION",
            ])
        #expect(try h.events("&message_id=\(id)").first?["message_type"] as? String == "TOPIC")
        #expect(try h.inbox("d1").count == 1 && h.inbox("d2").count == 1 && h.inbox("d3").isEmpty)
        let detail = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages/\(id)"))
        #expect((detail["request"] as? [String: Any])?["body"] as? String == seed)
        #expect(detail["accepted"] as? Int == 2)
    }

    @Test("a condition send reaches exactly the devices whose topics satisfy it")
    func conditionSend() throws {
        let h = try Harness()
        for _ in 0..<4 { try h.device("android") }
        try h.subscribe("d1", "a")
        try h.subscribe("d1", "b")
        try h.subscribe("d2", "a")
        try h.subscribe("d3", "c")
        let r = json(
            h.send(
                #"{"condition":"'a' in topics && ('b' in topics || 'c' in topics) || !('a' in topics) && 'c' in topics","data":{"x":"y"}}"#
            ))
        #expect(r["message_id"] != nil)
        #expect(try h.inbox("d1").count == 1)
        #expect(try h.inbox("d2").isEmpty)
        #expect(try h.inbox("d3").count == 1)
        #expect(try h.inbox("d4").isEmpty)
        let negated = json(h.send(#"{"condition":"!('a' in topics)","data":{"x":"y"}}"#))
        #expect(negated["message_id"] != nil)
        #expect(try h.inbox("d4").count == 1 && h.inbox("d3").count == 2 && h.inbox("d2").isEmpty)
    }

    @Test("a device group's notification key sends to its members")
    func deviceGroup() throws {
        let h = try Harness()
        let a = try h.device("android")["token"] as! String
        let b = try h.device("android")["token"] as! String
        let auth = [(name: "Authorization", value: "key=\(Configuration.defaultServerKey)")]
        let created = json(
            h.call(
                "POST", "/fcm/notification",
                body: #"{"operation":"create","notification_key_name":"fam","registration_ids":["\#(a)","\#(b)"]}"#, headers: auth
            ))
        let key = try #require(created["notification_key"] as? String)
        let r = h.send(#"{"to":"\#(key)","data":{"a":"b"}}"#)
        #expect(r.bodyText == #"{"success":2,"failure":0}"#)
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/d2").status == 200)
        #expect(
            h.send(#"{"to":"\#(key)","data":{"a":"b"}}"#).bodyText
                == #"{"success":1,"failure":1,"failed_registration_ids":["\#(b)"]}"#)
        let found = json(h.call("GET", "/fcm/notification?notification_key_name=fam", headers: auth))
        #expect(found["notification_key"] as? String == key)
    }

    @Test("an Android device takes 240 messages a minute; then DeviceMessageRateExceeded until the minute passes")
    func deviceRate() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        for _ in 0..<240 { _ = h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#) }
        let r = json(h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#))
        #expect((r["results"] as? [[String: Any]])?.first?["error"] as? String == "DeviceMessageRateExceeded")
        #expect(try h.eventNames().last == "QUOTA_EXCEEDED")
        try h.advance(60)
        #expect(json(h.send(#"{"to":"\#(t)","data":{"a":"b"}}"#))["success"] as? Int == 1)
        let off = try Harness { $0.deviceRateLimit = 0 }
        let u = try off.device("android")["token"] as! String
        for _ in 0..<300 { _ = off.send(#"{"to":"\#(u)","data":{"a":"b"}}"#) }
        #expect(try off.eventNames("&event=QUOTA_EXCEEDED").isEmpty)
    }

    @Test("the body's media type read without regard to case, before its parameters: any other type is plain text")
    func mediaTypes() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let body = #"{"to":"\#(t)","data":{"k":"v"}}"#
        for type in ["Application/JSON", " APPLICATION/json ; charset=UTF-8", "application/json\t;x=1"] {
            let r = h.send(body, contentType: type)
            #expect(r.status == 200 && r.bodyText.hasPrefix(#"{"multicast_id":"#), "\(type)")
        }
        // A JSON body as another type is read as plain text: it names no registration_id.
        for type in ["application/jsonp", "application/jso", "text/json", "application/x-www-form-urlencoded"] {
            #expect(h.send(body, contentType: type).bodyText == "Error=MissingRegistration\n", "\(type)")
        }
    }

    @Test("plain-text (form) requests answer id= and Error= lines")
    func formRequests() throws {
        let h = try Harness()
        let t = try h.device("android")["token"] as! String
        let ok = h.send(
            "registration_id=\(t)&collapse_key=c&data.score=5x1", contentType: "application/x-www-form-urlencoded;charset=UTF-8")
        #expect(ok.status == 200)
        #expect(ok.bodyText.range(of: #"^id=0:\d{16}%[0-9a-f]{16}\n$"#, options: .regularExpression) != nil)
        let payload = try h.inbox("d1").first?["android"] as? [String: Any]
        #expect((payload?["data"] as? [String: String]) == ["score": "5x1"])
        #expect(payload?["collapse_key"] as? String == "c")
        #expect(h.send("collapse_key=c", contentType: nil).bodyText == "Error=MissingRegistration\n")
        #expect(
            h.send("registration_id=\(t)&time_to_live=x", contentType: "application/x-www-form-urlencoded").bodyText
                == "Error=InvalidTtl\n")
    }
}
