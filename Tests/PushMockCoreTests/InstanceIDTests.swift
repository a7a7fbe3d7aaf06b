import Foundation
import Testing

@testable import PushMockCore

@Suite("Instance ID topic management")
struct InstanceIDTests {
    let auth = [(name: "Authorization", value: "key=\(Configuration.defaultServerKey)")]

    @Test("batchAdd and batchRemove answer one result per token, in order")
    func batch() throws {
        let h = try Harness()
        let a = try h.device("android")["token"] as! String
        let b = try h.device("ios")["token"] as! String
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/d2").status == 200)
        let r = h.call(
            "POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/news","registration_tokens":["\#(a)","\#(b)","junk"]}"#,
            headers: auth)
        #expect(r.status == 200)
        #expect(r.bodyText == #"{"results":[{},{"error":"NOT_FOUND"},{"error":"INVALID_ARGUMENT"}]}"#)
        #expect(h.project.topics["news"]?.count == 1)
        let bare = h.call("POST", "/iid/v1:batchRemove", body: #"{"to":"news","registration_tokens":["\#(a)"]}"#, headers: auth)
        #expect(bare.bodyText == #"{"results":[{}]}"#)
        #expect(h.project.topics["news"] == nil)
    }

    @Test("whole-request errors: auth, JSON, topic, token list")
    func batchErrors() throws {
        let h = try Harness()
        #expect(h.call("POST", "/iid/v1:batchAdd", body: "{}").status == 401)
        #expect(h.call("POST", "/iid/v1:batchAdd", body: "{", headers: auth).bodyText == #"{"error":"InvalidJson"}"#)
        #expect(
            h.call("POST", "/iid/v1:batchAdd", body: #"{"registration_tokens":["a"]}"#, headers: auth).bodyText
                == #"{"error":"MissingTopic"}"#)
        #expect(
            h.call("POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/a b","registration_tokens":["a"]}"#, headers: auth).bodyText
                == #"{"error":"InvalidTopicName"}"#)
        #expect(
            h.call("POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/a","registration_tokens":[]}"#, headers: auth).bodyText
                == #"{"error":"MissingIIDToken"}"#)
        let many = (0..<1001).map { "\"t\($0)\"" }.joined(separator: ",")
        let r = h.call("POST", "/iid/v1:batchAdd", body: #"{"to":"/topics/a","registration_tokens":[\#(many)]}"#, headers: auth)
        #expect(r.status == 400 && r.bodyText == #"{"error":"TooManyTokens"}"#)
    }

    @Test("single-token relation and instance info with topics and add dates")
    func relationAndInfo() throws {
        let h = try Harness()
        let d = try h.device("ios", app: "com.iid.example")
        let t = d["token"] as! String
        let escaped = t.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(h.call("POST", "/iid/v1/\(escaped)/rel/topics/weather", headers: auth).bodyText == "{}")
        let info = json(h.call("GET", "/iid/info/\(escaped)?details=true", headers: auth))
        #expect(info["application"] as? String == "com.iid.example")
        #expect(info["authorizedEntity"] as? String == String(h.project.number))
        #expect(info["platform"] as? String == "IOS")
        let topics = (info["rel"] as? [String: Any])?["topics"] as? [String: [String: String]]
        #expect(topics == ["weather": ["addDate": Harness.start.day]])
        #expect(json(h.call("GET", "/iid/info/\(escaped)", headers: auth))["rel"] == nil)
        let unknown = h.call("GET", "/iid/info/eAAAAAAAAAAAAAAAAAAAAA:APA91b" + String(repeating: "y", count: 134), headers: auth)
        #expect(unknown.status == 404 && unknown.bodyText == #"{"error":"No information found about this instance id."}"#)
        #expect(h.call("GET", "/iid/info/nope", headers: auth).bodyText == #"{"error":"InvalidToken"}"#)
        #expect(h.call("POST", "/iid/v1/nope/rel/topics/weather", headers: auth).status == 400)
    }
}
