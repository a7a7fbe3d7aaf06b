import Testing

@testable import PushMockCore

@Suite("Google's JSON mapping read straight from bytes")
struct ProtoJSONTests {
    /// What the long way gives: the body parsed, then read as `type`.
    func readTheLongWay(_ body: String) -> Result<(JSONValue, [ProtoViolation]), JSONParseError> {
        Result { () throws(JSONParseError) in ProtoJSON.read(try JSONParser.parse(body), as: V1Schema.request) }
    }

    func readFromBytes(_ body: String) -> Result<(JSONValue, [ProtoViolation]), JSONParseError> {
        Result { () throws(JSONParseError) in try ProtoJSON.read(Array(body.utf8), as: V1Schema.request) }
    }

    func same(
        _ a: Result<(JSONValue, [ProtoViolation]), JSONParseError>, _ b: Result<(JSONValue, [ProtoViolation]), JSONParseError>
    ) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x.0 == y.0 && x.1 == y.1
        case (.failure(let x), .failure(let y)): x == y
        default: false
        }
    }

    @Test(
        "a canonical send is read in one pass into the tree parsing builds",
        arguments: [
            #"{"message":{"token":"abc","notification":{"title":"Bench","body":"hello"},"data":{"k":"v"}}}"#,
            #" { "validate_only" : true , "message" : { "topic" : "news" , "name" : null } } "#,
            #"{"message":{"token":"t","android":{"ttl":"60s","priority":"high","notification":{"body_loc_args":["a","b"],"notification_count":3,"notification_priority":"PRIORITY_HIGH","event_time":"2026-12-06T03:00:00Z","light_settings":{"color":{"red":0.5}}}}}}"#,
            #"{"message":{"token":"t","apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"alert":"x","badge":[1,{"a":null}]}}},"webpush":{"notification":{}}}}"#,
            // A repeated member: each is checked, the last one counts.
            #"{"message":{"token":"a","data":{},"data":{"k":"v"}}}"#,
        ])
    func canonical(_ body: String) throws {
        let read = try #require(ProtoJSON.canonical(Array(body.utf8), as: V1Schema.request))
        #expect(read == (try JSONParser.parse(body)))
        #expect(same(readFromBytes(body), readTheLongWay(body)))
    }

    @Test(
        "any other body is read the long way: the same value, violations and parse errors",
        arguments: [
            // lowerCamelCase names, rewritten to snake_case
            #"{"message":{"token":"t","fcmOptions":{"analyticsLabel":"x"}}}"#,
            // values the mapping takes in another form: an enum by number, an int32 as a string
            #"{"message":{"token":"t","android":{"notification":{"notification_priority":2}}}}"#,
            #"{"message":{"token":"t","android":{"notification":{"notification_count":"3"}}}}"#,
            // a name spelled with an escape: the same field, found only once decoded
            #"{"message":{"tok\u0065n":"t"}}"#,
            // violations: an unknown name, a list or an object where neither belongs, a wrong type
            #"{"message":{"token":"t","colour":"red"}}"#,
            #"{"message":{"token":["t"]}}"#,
            #"{"message":{"token":{"t":1}}}"#,
            #"{"message":{"token":"t","android":{"ttl":60}}}"#,
            #"{"message":{"token":"t","data":{"k":1}}}"#,
            #"{"message":"t"}"#,
            #"["message"]"#,
            // not JSON: after a valid start, at the end, and too deep
            #"{"message":{"token":"t",}}"#,
            #"{"message":{"token":"t"}} x"#,
            #"{"message":{"token":"t","apns":{"payload":"# + String(repeating: #"{"a":"#, count: 70) + "1"
                + String(repeating: "}", count: 70) + "}}}",
        ])
    func otherwise(_ body: String) {
        #expect(ProtoJSON.canonical(Array(body.utf8), as: V1Schema.request) == nil)
        #expect(same(readFromBytes(body), readTheLongWay(body)))
    }
}
