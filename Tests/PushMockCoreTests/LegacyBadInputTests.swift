import Testing

@testable import PushMockCore

@Suite("POST /fcm/send: bad input and authentication")
struct LegacyBadInputTests {
    @Test("missing or wrong keys get FCM's 401 HTML page and an AUTHENTICATION_ERROR event")
    func unauthorized() throws {
        let h = try Harness()
        for key in [nil, "wrong", ""] as [String?] {
            let r = h.send(#"{"to":"x"}"#, key: key)
            #expect(r.status == 401)
            #expect(r.bodyText.contains("<TITLE>Unauthorized</TITLE>"))
            #expect(r.bodyText.contains("<H2>Error 401</H2>"))
            #expect(r.headers.contains { $0.value.hasPrefix("text/html") })
        }
        #expect(h.call("POST", "/fcm/send", body: "{}", headers: [("Authorization", "Bearer abc")]).status == 401)
        #expect(try h.eventNames() == Array(repeating: "AUTHENTICATION_ERROR", count: 4))
    }

    @Test(
        "the Authorization schemes: key= and Bearer in any case, spaces around a server key; a scheme alone, or another, is none")
    func authorizationSchemes() throws {
        let key = Configuration.defaultServerKey
        #expect(Authorization.serverKey("key=" + key) == key && Authorization.serverKey("KEY=" + key) == key)
        #expect(Authorization.serverKey("Key= \(key) ") == key)
        for none in ["key=", "key", "", "Bearer " + key, "kex=" + key] {
            #expect(Authorization.serverKey(none) == nil, "\(none)")
        }
        #expect(Authorization.bearerToken("Bearer t") == "t" && Authorization.bearerToken("bEARER t") == "t")
        #expect(Authorization.bearerToken("Bearer  t ") == " t " && Authorization.bearerToken("Bearer  t ", trimmed: true) == "t")
        for none in ["Bearer ", "Bearer", "Basic dXNlcg==", "key=t"] {
            #expect(Authorization.bearerToken(none) == nil, "\(none)")
        }
        #expect(Authorization.bearerToken("Bearer   ", trimmed: true) == nil)
        // Through the API: a key in another case is taken; the scheme alone is FCM's 401 page.
        let h = try Harness()
        let upper = h.call(
            "POST", "/fcm/send", body: #"{"to":"/topics/a","data":{"a":"b"}}"#, headers: [("Authorization", "KEY=" + key)])
        #expect(upper.status == 200)
        let bare = h.call("POST", "/fcm/send", body: "{}", headers: [("Authorization", "key=")])
        #expect(bare.status == 401 && bare.bodyText.contains("<H2>Error 401</H2>"))
    }

    @Test("--accept-any-key accepts any key; a project's own key selects that project")
    func acceptAnyKey() throws {
        let h = try Harness { $0.acceptAnyKey = true }
        #expect(h.send(#"{"to":"/topics/a","data":{"a":"b"}}"#, key: "anything").status == 200)
        #expect(h.send(#"{"to":"/topics/a","data":{"a":"b"}}"#, key: nil).status == 200)
    }

    @Test("configured server keys are the only ones accepted")
    func configuredKeys() throws {
        let h = try Harness { $0.serverKeys = ["k1", "k2"] }
        #expect(h.send(#"{"to":"/topics/a","data":{"a":"b"}}"#, key: "k2").status == 200)
        #expect(h.send(#"{"to":"/topics/a","data":{"a":"b"}}"#, key: Configuration.defaultServerKey).status == 401)
    }

    @Test(
        "unparseable JSON gets 400 with FCM's JSON_PARSING_ERROR text",
        arguments: [
            (#"{"to": }"#, "JSON_PARSING_ERROR: Unexpected character (}) at position 7.\n"),
            (#"{"to": "a""#, "JSON_PARSING_ERROR: Unexpected end of input at position 10.\n"),
            ("", "JSON_PARSING_ERROR: Unexpected end of input at position 0.\n"),
            ("[1]", "JSON_PARSING_ERROR: Expected a JSON object at position 0.\n"),
        ])
    func badJSON(_ body: String, _ text: String) throws {
        let h = try Harness()
        let r = h.send(body)
        #expect(r.status == 400)
        #expect(r.bodyText == text)
        #expect(try h.eventNames() == ["INVALID_PARAMETERS"])
    }

    @Test(
        "wrong field types get 400 naming the field and value",
        arguments: [
            (#"{"to":["a"]}"#, "Field \"to\" must be a JSON string: [\"a\"]\n"),
            (#"{"to":"a","data":"x"}"#, "Field \"data\" must be a JSON array: \"x\"\n"),
            (#"{"to":"a","notification":5}"#, "Field \"notification\" must be a JSON array: 5\n"),
            (#"{"to":"a","time_to_live":"60"}"#, "Field \"time_to_live\" must be a JSON number: \"60\"\n"),
            (#"{"to":"a","dry_run":"yes"}"#, "Field \"dry_run\" must be a JSON boolean: \"yes\"\n"),
            (#"{"to":"a","content_available":1}"#, "Field \"content_available\" must be a JSON boolean: 1\n"),
            (#"{"registration_ids":"a"}"#, "\"registration_ids\" field is not a JSON array\n"),
            (#"{"registration_ids":[1]}"#, "Field \"registration_ids\" must be a JSON array of strings: 1\n"),
            (#"{"to":"a","priority":"urgent"}"#, "Invalid value for \"priority\": \"urgent\". Use \"normal\" or \"high\".\n"),
        ])
    func wrongTypes(_ body: String, _ text: String) throws {
        let r = try Harness().send(body)
        #expect(r.status == 400)
        #expect(r.bodyText == text)
    }

    @Test(
        "a body that is not JSON is refused for that before any member's type; then the first member in order",
        arguments: [
            (#"{"to":5,"data":{"a":"b"}"#, "JSON_PARSING_ERROR: Unexpected end of input at position 24.\n"),
            (#"{"to":5,"data":"x"}"#, "Field \"to\" must be a JSON string: 5\n"),
            (#"{"data":"x","to":5}"#, "Field \"data\" must be a JSON array: \"x\"\n"),
            // The first wrong member refuses the send although a later one replaces it.
            (#"{"to":5,"to":"a"}"#, "Field \"to\" must be a JSON string: 5\n"),
            (#" "x" "#, "JSON_PARSING_ERROR: Expected a JSON object at position 0.\n"),
            ("null", "JSON_PARSING_ERROR: Expected a JSON object at position 0.\n"),
            ("[1,", "JSON_PARSING_ERROR: Unexpected end of input at position 3.\n"),
            (#"{"to":"a"} x"#, "JSON_PARSING_ERROR: Unexpected character (x) at position 11.\n"),
            // A name spelled with an escape is the member it spells.
            (#"{"t\u006f":5}"#, "Field \"to\" must be a JSON string: 5\n"),
        ])
    func refusalOrder(_ body: String, _ text: String) throws {
        let r = try Harness().send(body)
        #expect(r.status == 400)
        #expect(r.bodyText == text)
    }

    @Test("a body is refused with the reason and position the JSON parser gives, whatever member holds the fault")
    func sameParseErrors() throws {
        func nested(_ levels: Int) -> String { String(repeating: "[", count: levels) + String(repeating: "]", count: levels) }
        let values = [
            nested(62), nested(63), nested(64), "\"\u{1}\"", "\"\\ud800\"", "\"\\x\"", "01", "1.", "tru", "nulll",
            "{\"a\":}", "[1,]", "{\"a\" 1}",
            // Faults inside an object, which a send reads without building it.
            "{\"a\":[1,]}", "{\"a\":\"\\ud800\"}", "{\"\\ud800\":1}", "{\"a\":\"\u{1}\"}", "{\"a\":\"\\x\"}",
            "{\"a\":1,}", "{\"a\":\"b\"", "{\"a\":" + nested(61) + "}", "{\"a\":" + nested(62) + "}",
            "{\"a\":" + nested(63) + "}",
        ]
        var bodies: [[UInt8]] = []
        for value in values {
            for name in ["to", "data", "notification", "registration_ids", "whatever"] {
                bodies.append(Array(#"{"to":"a","\#(name)":\#(value),"priority":"high"}"#.utf8))
            }
        }
        // Bytes that are not UTF-8, in a known member's value and in an unknown member's name.
        bodies.append(Array(#"{"to":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
        bodies.append(Array(#"{""#.utf8) + [0xFF] + Array(#"":1}"#.utf8))
        var refused = 0
        for body in bodies {
            let shown = String(decoding: body, as: UTF8.self)
            do {
                _ = try JSONParser.parse(body)
                // JSON (nested to the limit or a level short of it): never refused as unparseable.
                do { _ = try LegacyRequest.decodeJSON(body) } catch {
                    #expect(!error.text.hasPrefix("JSON_PARSING_ERROR"), "\(shown)")
                }
            } catch {
                refused += 1
                let text = LegacyRequest.parseErrorText(error, body)
                do {
                    _ = try LegacyRequest.decodeJSON(body)
                    Issue.record("accepted: \(shown)")
                } catch {
                    #expect(error.text == text, "\(shown)")
                }
            }
        }
        // All but the twenty nested to the limit (two depths as an array, two within an object;
        // five members) are not JSON.
        #expect(refused == bodies.count - 20)
    }

    @Test("target conflicts and registration_ids bounds get FCM's 400 texts")
    func targets() throws {
        let h = try Harness()
        #expect(
            h.send(#"{"to":"a","registration_ids":["b"]}"#).bodyText
                == "Must use either \"registration_ids\" field or \"to\", not both\n")
        #expect(
            h.send(#"{"to":"a","condition":"'a' in topics"}"#).bodyText
                == "Must use either \"condition\" field or \"to\", not both\n")
        #expect(h.send(#"{"registration_ids":[]}"#).bodyText == "\"registration_ids\" field cannot be empty\n")
        let ids = (0..<1001).map { "\"t\($0)\"" }.joined(separator: ",")
        let r = h.send(#"{"registration_ids":[\#(ids)]}"#)
        #expect(r.status == 400)
        #expect(r.bodyText == "Number of messages on bulk (1001) exceeds maximum allowed (1000)\n")
        let thousand = (0..<1000).map { "\"t\($0)\"" }.joined(separator: ",")
        #expect(h.send(#"{"registration_ids":[\#(thousand)],"data":{"a":"b"}}"#).status == 200)
    }

    @Test("bad topic names and conditions get a 400 that says why")
    func badTopics() throws {
        let h = try Harness()
        #expect(h.send(#"{"to":"/topics/bad name"}"#).bodyText == "Invalid \"to\" field: /topics/bad name\n")
        // The prefix is read on bytes, as FCM reads it: a combining mark after its slash does
        // not make the target a token (String's `hasPrefix` would have said so).
        #expect(h.send(#"{"to":"/topics/\u0301news"}"#).bodyText == "Invalid \"to\" field: /topics/\u{0301}news\n")
        let six = (1...6).map { "'t\($0)' in topics" }.joined(separator: " || ")
        let r = h.send(#"{"condition":"\#(six)"}"#)
        #expect(r.status == 400)
        #expect(r.bodyText == "Invalid \"condition\" field: condition has 6 topics; at most 5 are allowed\n")
        #expect(h.send(#"{"condition":"'a' in topics &&"}"#).status == 400)
    }

    @Test("unknown top-level fields are ignored, as FCM did")
    func extraFields() throws {
        let h = try Harness()
        #expect(json(h.send(#"{"to":"/topics/a","data":{"a":"b"},"delay_while_idle":true,"whatever":1}"#))["message_id"] != nil)
        // A misspelled option and PyFCM's 2017-2019 `android` block (docs/fcm-legacy.md,
        // "Unknown names"): accepted, and neither changes the message.
        let token = try h.device("android")["token"] as! String
        let id = h.push(token, #""data":{"a":"b"},"time_to_lve":60,"android":{"priority":"high"}"#)
        #expect(!id.hasPrefix("error"))
        let accepted = try h.events("&event=MESSAGE_ACCEPTED").last
        #expect(accepted?["ttl"] as? Int == PushContent.maxTTL)
        #expect(accepted?["priority"] as? Int == 5)
    }

    @Test("only POST is allowed; other methods get Google's 405 page")
    func methods() throws {
        let r = try Harness().call("GET", "/fcm/send")
        #expect(r.status == 405)
        #expect(r.bodyText.contains("Error 405 (Method Not Allowed)!!1"))
    }
}
