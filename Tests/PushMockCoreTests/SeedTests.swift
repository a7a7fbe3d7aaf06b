import Foundation
import Testing

@testable import PushMockCore

@Suite("Seed fixtures")
struct SeedTests {
    static let token = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "x", count: 134)
    static let fixture = """
        {"projects": [
          {"id": "ci-project", "server_keys": ["ci-key"],
           "apps": [{"platform": "ios", "app": "com.example.ci", "apns_environments": ["sandbox"]}],
           "apns_keys": [{"key_id": "KEY1234567", "team_id": "TEAM123456", "public_key": "-----BEGIN PUBLIC KEY-----\\nAA\\n-----END PUBLIC KEY-----\\n"}],
           "service_accounts": [{"client_email": "ci@ci-project.iam.gserviceaccount.com", "private_key_id": "k1", "private_key": "PEM"}],
           "devices": [
             {"platform": "android", "app": "com.example.ci", "token": "\(token)", "app_state": "foreground", "topics": ["news", "sport"]},
             {"platform": "ios", "app": "com.example.ci", "apns_token": "\(String(repeating: "ab", count: 32))", "online": false}
           ]}
        ]}
        """

    @Test(
        "a fixture declares projects, keys, apps, APNs keys, service accounts, devices with fixed tokens and states, and topics")
    func loads() throws {
        let h = try Harness(keys: FakeKeys())
        try h.gateway.seed(Array(Self.fixture.utf8), file: "ci.json")
        let p = try #require(h.gateway.directory["ci-project"])
        #expect(p.serverKeys == ["ci-key"])
        #expect(p.app(.ios, "com.example.ci")?.apnsCredentials == [.sandbox])
        #expect(h.gateway.credentials.apnsKeys["KEY1234567"]?.teamID == "TEAM123456")
        #expect(h.gateway.credentials.serviceAccounts["ci@ci-project.iam.gserviceaccount.com"]?.publicKeyPEM == "PUBLIC OF PEM")
        let android = try #require(p.devices.withToken(Self.token))
        #expect(android.id == "d1" && android.state.appState == .foreground && Set(android.topics.keys) == ["news", "sport"])
        #expect(p.devices["d2"]?.apnsToken == String(repeating: "ab", count: 32) && p.devices["d2"]?.state.online == false)
        // The fixture's key and token work at once.
        let r = h.call(
            "POST", "/fcm/send", body: #"{"to":"/topics/news","data":{"k":"v"}}"#, headers: [("Authorization", "key=ci-key")])
        #expect(r.status == 200, "\(r.bodyText)")
    }

    @Test("a bad fixture is refused with the file, the path in it and the problem")
    func refusals() throws {
        let cases: [(String, String)] = [
            ("{", "ci.json: the document: not JSON"),
            ("[]", "ci.json: the document: must be a JSON object"),
            (#"{"projects": [], "extra": 1}"#, "ci.json: extra: unknown field"),
            (#"{"projects": [{"id": "Bad_ID"}]}"#, "ci.json: projects[0].id: must be a project id"),
            (
                #"{"projects": [{"id": "p", "server_keys": []}]}"#,
                "ci.json: projects[0].server_keys: must be a list of non-empty strings"
            ),
            (
                #"{"projects": [{"id": "p", "devices": [{"platform": "android", "app": "a"}, {"platform": "windows", "app": "a"}]}]}"#,
                "ci.json: projects[0].devices[1]: Invalid value at 'platform'"
            ),
            (
                #"{"projects": [{"id": "p", "devices": [{"platform": "android", "app": "a", "topics": ["bad topic!"]}]}]}"#,
                "ci.json: projects[0].devices[0].topics[0]: Invalid topic name"
            ),
            (
                #"{"projects": [{"id": "p", "apns_keys": [{"key_id": "short"}]}]}"#,
                "ci.json: projects[0].apns_keys[0]: Invalid value at 'key_id'"
            ),
            (
                #"{"projects": [{"id": "p", "service_accounts": [{"private_key": "x"}]}]}"#,
                "ci.json: projects[0].service_accounts[0].client_email: is required"
            ),
            (#"{"projects": [{"id": "p", "apps": [7]}]}"#, "ci.json: projects[0].apps[0]: must be an object"),
        ]
        for (text, expected) in cases {
            let h = try Harness(keys: FakeKeys())
            do {
                try h.gateway.seed(Array(text.utf8), file: "ci.json")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(text) → \(error.description)")
            }
        }
    }
}
