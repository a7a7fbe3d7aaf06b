import Foundation
import Testing

@testable import PushMockCore

/// Signature checks without OpenSSL: a signature of 64 sevens is valid, anything else is
/// not. The server tests sign with real keys.
struct FakeKeys: KeyService {
    static let good = [UInt8](repeating: 7, count: 64)
    func generateRSAKey() throws -> (privatePEM: String, publicPEM: String) { ("", "") }
    func generateP256Key() throws -> (privatePEM: String, publicPEM: String) { ("PRIVATE", "-----BEGIN PUBLIC KEY-----") }
    func publicKey(fromPrivatePEM pem: String) throws -> String { "PUBLIC OF " + pem }
    func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool { false }
    func verifyES256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool { signature == Self.good }
    func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws
        -> (certificatePEM: String, privateKeyPEM: String)
    { ("CERT", "KEY") }
    var certificateAuthorityPEM: String? { "CA" }
}

/// An APNs client in-process: HTTP/2 connections (contexts) and the headers APNs wants.
extension Harness {
    func h2(certificate: ClientCertificate? = nil) -> ConnectionContext {
        ConnectionContext(isHTTP2: true, clientCertificate: certificate)
    }

    func certificate(_ bundle: String = "com.example.app", development: Bool = false, trusted: Bool = true) -> ClientCertificate {
        ClientCertificate(
            userID: bundle,
            commonName: (development ? "Apple Development IOS Push Services: " : "Apple Push Services: ") + bundle,
            organizationalUnit: project.teamID, trusted: trusted)
    }

    func apns(
        _ token: String, _ body: String = #"{"aps":{"alert":"hi"}}"#, headers: [(String, String)] = [],
        on connection: ConnectionContext? = nil, method: String = "POST"
    ) -> Response {
        let h = headers.map { (name: $0.0, value: $0.1) }
        return call(
            method, "/3/device/\(token)", body: body, contentType: nil, headers: h,
            connection: connection ?? h2(certificate: certificate()))
    }

    func reason(_ r: Response) -> String { (json(r)["reason"] as? String) ?? "status \(r.status)" }

    /// A provider token as a client signs it; `valid: false` gives a bad signature.
    func providerToken(kid: String, iss: String, iat: Double, valid: Bool = true, iatAsString: Bool = false) -> String {
        func b64(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let header = b64(Array(#"{"alg":"ES256","kid":"\#(kid)"}"#.utf8))
        let iatJSON = iatAsString ? "\"\(Int(iat))\"" : "\(iat)"
        let claims = b64(Array(#"{"iss":"\#(iss)","iat":\#(iatJSON)}"#.utf8))
        return header + "." + claims + "." + b64(valid ? FakeKeys.good : [UInt8](repeating: 1, count: 64))
    }

    func addKey(_ body: String = "{}") -> (kid: String, team: String) {
        let r = call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: body)
        precondition(r.status == 201, r.bodyText)
        let k = json(r)
        return (k["key_id"] as! String, k["team_id"] as! String)
    }

    var nowSeconds: Double { Double(gateway.clock.now()) / 1_000_000 }
}

@Suite("APNs provider API")
struct APNsTests {
    @Test("apns-ids pushmock makes are version-4 UUIDs in lower case, different each time")
    func uuids() throws {
        let random = RandomSource(seed: 42)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = Identifiers.uuid(random)
            #expect(APNsHeaders.isUUID(id) && id == id.lowercased(), "\(id)")
            let chars = Array(id)
            #expect(chars[14] == "4" && "89ab".contains(chars[19]), "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }

    @Test(
        "a device token is 64 hex digits in either case; every other byte anywhere is refused, and tokens differing in one digit differ"
    )
    func deviceTokenKeys() throws {
        let token = "0123456789abcdef" + "fedcba9876543210" + "00ff11ee22dd33cc" + "a1b2c3d4e5f60789"
        #expect(APNsToken(token) != nil)
        #expect(APNsToken(token) == APNsToken(token.uppercased()))
        #expect(APNsToken(String(token.dropLast())) == nil)
        #expect(APNsToken(token + "0") == nil)
        let hex = Array("0123456789abcdefABCDEF".utf8)
        for position in 0..<64 {
            var bytes = Array(token.utf8)
            for bad in [
                UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"),
                UInt8(ascii: "`"), UInt8(ascii: " "), 0x00, 0x7F,
            ] {
                bytes[position] = bad
                #expect(APNsToken(String(decoding: bytes, as: UTF8.self)) == nil, "byte \(bad) at \(position)")
            }
            bytes = Array(token.utf8)
            let original = bytes[position]
            for digit in hex where digit | 0x20 != original | 0x20 {
                bytes[position] = digit
                #expect(APNsToken(String(decoding: bytes, as: UTF8.self)) != APNsToken(token))
            }
        }
        var accented = Array(token.utf8)
        accented.replaceSubrange(62..<64, with: Array("é".utf8))
        #expect(APNsToken(String(decoding: accented, as: UTF8.self)) == nil)
    }

    @Test("each bad header, path or payload gets its APNs reason and status, with apns-id")
    func headerRules() throws {
        let h = try Harness()
        let token = try h.device("ios")["apns_token"] as! String
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let cases: [(String, [(String, String)], String, String, Int)] = [
            (token, [("apns-id", "nope")], "{}", "BadMessageId", 400),
            (token, [("apns-collapse-id", String(repeating: "c", count: 65))], "{}", "BadCollapseId", 400),
            (token, [("apns-priority", "7")], "{}", "BadPriority", 400),
            (token, [("apns-priority", "10"), ("apns-push-type", "background")], "{}", "BadPriority", 400),
            (token, [("apns-push-type", "banner")], "{}", "InvalidPushType", 400),
            (token, [("apns-push-type", "voip")], "{}", "BadTopic", 400),
            (token, [("apns-topic", "com.example.app.voip")], "{}", "BadTopic", 400),
            (token, [("apns-expiration", "tomorrow")], "{}", "BadExpirationDate", 400),
            (token, [("apns-topic", "com.example app")], "{}", "BadTopic", 400),
            (token, [("APNS-PRIORITY", "10"), ("apns-priority", "5")], "{}", "DuplicateHeaders", 400),
            (token, [("apns-priority", "10"), ("apns-priority", "5")], "{}", "DuplicateHeaders", 400),
            ("abc", [], "{}", "BadDeviceToken", 400),
            (String(repeating: "a", count: 64), [], "{}", "BadDeviceToken", 400),
            (String(token.dropLast()) + "g", [], "{}", "BadDeviceToken", 400),
            ("g" + String(token.dropFirst()), [], "{}", "BadDeviceToken", 400),
            (token, [("apns-topic", "com.other.app")], "{}", "DeviceTokenNotForTopic", 400),
            (token, [], "", "PayloadEmpty", 400),
            (token, [], "{\"x\":\"" + String(repeating: "x", count: 4090) + "\"}", "PayloadTooLarge", 413),
        ]
        for (t, headers, body, reason, status) in cases {
            let r = h.apns(t, body, headers: headers)
            #expect(r.status == status && h.reason(r) == reason, "\(headers) \(body.prefix(20)) → \(r.status) \(r.bodyText)")
            #expect(r.headers.contains { $0.name == "apns-id" })
        }
        let echoed = h.apns(token, "", headers: [("apns-id", id)])
        #expect(echoed.headers.first { $0.name == "apns-id" }?.value == id)
        #expect(h.reason(h.apns("", "{}")) == "MissingDeviceToken")
        #expect(h.reason(h.apns(token, method: "GET")) == "MethodNotAllowed")
        #expect(h.apns(token, method: "GET").status == 405)
        let badPath = h.call("POST", "/3/devices/\(token)", body: "{}", connection: h.h2())
        #expect(badPath.status == 404 && h.reason(badPath) == "BadPath")
        // A path outside /3/ is APNs' BadPath where the TLS server name is an APNs host; on
        // other names it is Google's page (pushmock serves every API on one port).
        for name in ["api.push.apple.com", "api.sandbox.push.apple.com", "API.development.push.apple.com"] {
            let apple = ConnectionContext(isHTTP2: true, clientCertificate: nil, serverName: name)
            for (method, path) in [
                ("POST", "/device/\(token)"), ("GET", "/nothing/here"), ("POST", "/v1/projects/demo-pushmock"),
            ] {
                let r = h.call(method, path, body: "{}", connection: apple)
                #expect(r.status == 404 && h.reason(r) == "BadPath", "\(name) \(method) \(path): \(r.status) \(r.bodyText)")
                #expect(r.headers.contains { $0.name == "apns-id" })
            }
            // A path some route serves, with another method: still APNs' answer, not Google's 405 page.
            let get = h.call("GET", "/fcm/send", connection: apple)
            #expect(h.reason(get) == "MethodNotAllowed", "\(get.bodyText)")
        }
        let google = ConnectionContext(isHTTP2: true, clientCertificate: nil, serverName: "fcm.googleapis.com")
        #expect(h.call("GET", "/nowhere", connection: google).bodyText.contains("That’s an error."))
        // VoIP payloads may be 5120 bytes.
        let voip = h.apns(
            token, "{\"x\":\"" + String(repeating: "x", count: 5000) + "\"}",
            headers: [("apns-push-type", "voip"), ("apns-topic", "com.example.app.voip")])
        #expect(voip.status == 200, "\(voip.bodyText)")
        // Over HTTP/1.1 APNs does not answer at all; pushmock says why.
        #expect(h.call("POST", "/3/device/\(token)", body: "{}").status == 505)
    }

    @Test("an accepted push answers 200 with apns-id and, in the sandbox, apns-unique-id, and reaches the device and the log")
    func delivery() throws {
        let h = try Harness()
        let d = try h.device("ios")
        let token = d["apns_token"] as! String
        let r = h.apns(
            token, #"{"aps":{"alert":{"title":"Hi"},"badge":2},"order":"42"}"#,
            headers: [("apns-push-type", "alert"), ("apns-topic", "com.example.app"), ("apns-collapse-id", "c1")])
        #expect(r.status == 200 && r.body.isEmpty)
        let apnsID = try #require(r.headers.first { $0.name == "apns-id" }?.value)
        #expect(r.headers.contains { $0.name == "apns-unique-id" })
        #expect(try h.story(d["id"] as! String) == ["ACCEPTED", "DELIVERED", "DISPLAYED"])
        let entry = try #require(h.inbox(d["id"] as! String).first)
        #expect(entry["message_id"] as? String == apnsID)
        let apns = try #require(entry["apns"] as? [String: Any])
        #expect((apns["headers"] as? [String: String])?["apns-collapse-id"] == "c1")
        #expect((apns["headers"] as? [String: String])?["apns-id"] == apnsID)
        #expect((apns["headers"] as? [String: String])?["apns-push-type"] == "alert")
        #expect(((apns["payload"] as? [String: Any])?["order"] as? String) == "42")
        // Pushes with the same headers on one connection: each is shown with its own id and
        // the push type its payload resolves to.
        let connection = h.h2(certificate: h.certificate())
        let topic = [("apns-topic", "com.example.app")]
        let alert = h.apns(token, #"{"aps":{"alert":"a"}}"#, headers: topic, on: connection)
        let silent = h.apns(token, #"{"aps":{"content-available":1}}"#, headers: topic, on: connection)
        for (answer, type) in [(alert, "alert"), (silent, "background")] {
            let id = try #require(answer.headers.first { $0.name == "apns-id" }?.value)
            let shown = try h.inbox(d["id"] as! String).first { $0["message_id"] as? String == id }
            let headers = (shown?["apns"] as? [String: Any])?["headers"] as? [String: String]
            #expect(headers?["apns-id"] == id && headers?["apns-push-type"] == type, "\(String(describing: shown))")
        }
        #expect(try h.events().first?["message_type"] as? String == "DISPLAY_NOTIFICATION")
        // Production devices answer only on production hosts.
        let prod = try h.device("ios", extra: #","apns_environment":"production""#)["apns_token"] as! String
        #expect(h.reason(h.apns(prod)) == "BadDeviceToken")
        let onProd = h.apns(prod, headers: [("host", "api.push.apple.com:443")])
        #expect(onProd.status == 200 && !onProd.headers.contains { $0.name == "apns-unique-id" })
    }

    @Test(
        "a silent push to a force-quit iPhone is accepted and dropped with its reason; an offline one is stored until apns-expiration"
    )
    func deviceModel() throws {
        let h = try Harness()
        let d = try h.device("ios")
        let id = d["id"] as! String
        let token = d["apns_token"] as! String
        try h.patch(id, #"{"app_state":"terminated"}"#)
        let silent = h.apns(
            token, #"{"aps":{"content-available":1}}"#, headers: [("apns-push-type", "background"), ("apns-priority", "5")])
        #expect(silent.status == 200)
        #expect(try h.story(id).last == "DROPPED(app_terminated)")
        try h.patch(id, #"{"app_state":"background","online":false}"#)
        let expires = Int(h.nowSeconds) + 60
        #expect(h.apns(token, headers: [("apns-expiration", String(expires))]).status == 200)
        #expect(try h.story(id).last == "STORED(device_offline)")
        try h.advance(61)
        h.gateway.expireDue()
        #expect(try h.story(id).last == "EXPIRED(ttl)")
        // An expiration past what microseconds can count (found by the fuzzer): stored, never due.
        #expect(h.apns(token, headers: [("apns-expiration", "200000000000000761")]).status == 200)
        #expect(try h.story(id).last == "STORED(device_offline)")
        try h.advance(86_400 * 365)
        h.gateway.expireDue()
        #expect(try h.story(id).last == "STORED(device_offline)")
    }

    @Test(
        "certificates: the topic comes from the certificate; untrusted, wrong-environment and other-bundle certificates are refused"
    )
    func certificates() throws {
        let h = try Harness()
        let token = try h.device("ios")["apns_token"] as! String
        let production = try h.device("ios", extra: #","apns_environment":"production""#)["apns_token"] as! String
        #expect(h.apns(token).status == 200)
        #expect(h.reason(h.apns(token, on: h.h2(certificate: h.certificate(trusted: false)))) == "BadCertificate")
        let dev = h.h2(certificate: h.certificate(development: true))
        #expect(h.apns(token, on: dev).status == 200)
        #expect(h.reason(h.apns(production, headers: [("host", "api.push.apple.com")], on: dev)) == "BadCertificateEnvironment")
        #expect(h.apns(production, headers: [("host", "api.push.apple.com")]).status == 200)
        let other = h.h2(certificate: h.certificate("com.other.app"))
        #expect(h.reason(h.apns(token, headers: [("apns-topic", "com.example.app")], on: other)) == "TopicDisallowed")
        // A certificate of another team, for this very bundle id: the app is not that team's.
        let otherTeam = try #require(h.gateway.directory.project("other-project")).teamID
        let foreign = ClientCertificate(
            userID: "com.example.app", commonName: "Apple Push Services: com.example.app", organizationalUnit: otherTeam,
            trusted: true)
        #expect(h.reason(h.apns(token, on: h.h2(certificate: foreign))) == "TopicDisallowed")
        // Without a certificate the topic is required.
        #expect(h.reason(h.apns(token, on: h.h2())) == "MissingTopic")
    }

    @Test(
        "provider tokens: missing, forged, unknown, expired after an hour, wrong environment or topic, unrelated, and refreshed too often"
    )
    func providerTokens() throws {
        let h = try Harness(keys: FakeKeys())
        let token = try h.device("ios")["apns_token"] as! String
        let (kid, team) = h.addKey()
        let topic = [("apns-topic", "com.example.app")]
        func push(_ jwt: String?, on c: ConnectionContext? = nil, extra: [(String, String)] = []) -> String {
            let auth = jwt.map { [("authorization", "bearer " + $0)] } ?? []
            let r = h.apns(token, headers: topic + auth + extra, on: c ?? h.h2())
            return r.status == 200 ? "ok" : h.reason(r)
        }
        #expect(push(nil) == "MissingProviderToken")
        #expect(push("") == "MissingProviderToken")
        #expect(push("   ") == "MissingProviderToken")
        #expect(push("not.a.jwt") == "InvalidProviderToken")
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds, valid: false)) == "InvalidProviderToken")
        #expect(push(h.providerToken(kid: "ZZZZZZZZZZ", iss: team, iat: h.nowSeconds)) == "InvalidProviderToken")
        #expect(push(h.providerToken(kid: kid, iss: "WRONGTEAM0", iat: h.nowSeconds)) == "InvalidProviderToken")
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds - 3601)) == "ExpiredProviderToken")
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds)) == "ok")
        // Spaces around the token are not part of it; the device token in capitals is the same token.
        #expect(push(" " + h.providerToken(kid: kid, iss: team, iat: h.nowSeconds) + "  ") == "ok")
        let capitals = h.apns(
            token.uppercased(),
            headers: topic + [("authorization", "bearer " + h.providerToken(kid: kid, iss: team, iat: h.nowSeconds))], on: h.h2())
        #expect(capitals.status == 200, "\(capitals.bodyText)")

        let (prodKid, _) = h.addKey(#"{"environment":"production"}"#)
        #expect(push(h.providerToken(kid: prodKid, iss: team, iat: h.nowSeconds)) == "BadEnvironmentKeyIdInToken")
        let (topicKid, _) = h.addKey(#"{"topics":["com.other.app"]}"#)
        #expect(push(h.providerToken(kid: topicKid, iss: team, iat: h.nowSeconds)) == "InvalidProviderToken")

        // One connection: bound to its first team; a new token at most every 20 minutes.
        let c = h.h2()
        let first = h.providerToken(kid: kid, iss: team, iat: h.nowSeconds)
        #expect(push(first, on: c) == "ok")
        let (otherKid, otherTeam) = h.addKey(#"{"team_id":"OTHERTEAM1"}"#)
        #expect(push(h.providerToken(kid: otherKid, iss: otherTeam, iat: h.nowSeconds), on: c) == "UnrelatedKeyIdInToken")
        // On a connection of its own, another team's key is valid, but this team's app is not its topic.
        #expect(push(h.providerToken(kid: otherKid, iss: otherTeam, iat: h.nowSeconds)) == "TopicDisallowed")
        #expect(try h.events().last?["event"] as? String == "AUTHENTICATION_ERROR")
        try h.advance(60)
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds), on: c) == "TooManyProviderTokenUpdates")
        #expect(push(first, on: c) == "ok")
        try h.advance(20 * 60)
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds), on: c) == "ok")
        // The iat claim may be a float (as above) or a numeric string.
        #expect(push(h.providerToken(kid: kid, iss: team, iat: h.nowSeconds, iatAsString: true)) == "ok")
    }

    @Test(
        "uninstalled and reinstalled apps answer 410 Unregistered with when the token stopped; idle tokens 410 ExpiredToken with when they expired"
    )
    func goneTokens() throws {
        let h = try Harness()
        let a = try h.device("ios")
        let b = try h.device("ios")
        let oldB = b["apns_token"] as! String
        try h.advance(10)
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/\(a["id"] as! String)").status == 200)
        let gone = h.apns(a["apns_token"] as! String)
        #expect(gone.status == 410 && h.reason(gone) == "Unregistered")
        #expect(json(gone)["timestamp"] as? Int == Int((Harness.start + 10_000_000) / 1000))
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(b["id"] as! String):reinstall").status == 200)
        #expect(h.apns(oldB).status == 410)
        let c = try h.device("ios")
        try h.patch(c["id"] as! String, #"{"online":false}"#)
        try h.advance(271 * 86_400)
        let expired = h.apns(c["apns_token"] as! String)
        // Every 410 carries `timestamp`: the token expired 270 days after the device went offline.
        #expect(expired.status == 410 && h.reason(expired) == "ExpiredToken")
        #expect(json(expired)["timestamp"] as? Int == Int((Harness.start + 10_000_000 + 270 * 86_400_000_000) / 1000))
    }

    @Test(
        "every refused push is in the log and the message list: for the deleted or reinstalled device, by device and by either token; unknown tokens and bad requests in the sender's project"
    )
    func refusalsLogged() throws {
        let h = try Harness()
        let a = try h.device("ios")
        let b = try h.device("ios")
        let (aID, aToken, aFCM) = (a["id"] as! String, a["apns_token"] as! String, a["token"] as! String)
        let (bID, oldB) = (b["id"] as! String, b["apns_token"] as! String)
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock/devices/\(aID)").status == 200)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(bID):reinstall").status == 200)
        let gone = h.apns(aToken, headers: [("apns-id", "11111111-2222-4333-8444-555555555555")])
        #expect(gone.status == 410)
        for query in ["&device=\(aID)", "&token=\(aToken)", "&token=\(aFCM)"] {
            let e = try h.events(query).last
            #expect(e?["event"] as? String == "INVALID_REGISTRATION" && e?["reason"] as? String == "Unregistered", "\(query)")
            #expect(e?["message_id"] as? String == "11111111-2222-4333-8444-555555555555", "\(query)")
        }
        #expect(h.apns(oldB).status == 410)
        #expect(try h.story(bID).last == "INVALID_REGISTRATION(Unregistered)")
        #expect(try h.events("&token=\(oldB)").count == 1)
        let listed = h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?token=\(aToken)")
        let messages = json(listed)["messages"] as? [[String: Any]] ?? []
        #expect(
            messages.first?["message_id"] as? String == "11111111-2222-4333-8444-555555555555",
            "\(listed.status) \(listed.bodyText)")

        // Refusals before any device is found: logged in the credential's project, the token as sent.
        let unknown = String(repeating: "ab", count: 32)
        let before = try h.events().count
        #expect(h.reason(h.apns(unknown)) == "BadDeviceToken")
        #expect(h.reason(h.apns("nothex")) == "BadDeviceToken")
        #expect(h.reason(h.apns(unknown, headers: [("apns-priority", "7")])) == "BadPriority")
        #expect(h.reason(h.apns(unknown, headers: [("apns-id", "nope")])) == "BadMessageId")
        #expect(
            h.reason(h.call("POST", "/3/device/", body: "{}", connection: h.h2(certificate: h.certificate())))
                == "MissingDeviceToken")
        let after = try h.events()
        #expect(after.count == before + 5)
        #expect(
            after.suffix(5).map { $0["reason"] as? String } == [
                "BadDeviceToken", "BadDeviceToken", "BadPriority", "BadMessageId", "MissingDeviceToken",
            ])
        #expect(try h.events("&token=\(unknown)").count == 3)
        // Over HTTP/1.1 a push is refused too, and logged.
        let h1 = h.call(
            "POST", "/3/device/\(unknown)", body: "{}", connection: ConnectionContext(isHTTP2: false, clientCertificate: nil))
        #expect(h1.status == 505)
        #expect(try h.events().last?["reason"] as? String == "http_version_not_supported")
    }

    @Test(
        "scripted APNs errors answer in order, then pushes succeed; the device rate limit answers TooManyRequests; shutdown answers 503 Shutdown"
    )
    func scriptedAndLimits() throws {
        let h = try Harness { $0.deviceRateLimit = 3 }
        let d = try h.device("ios")
        let id = d["id"] as! String
        let token = d["apns_token"] as! String
        let script = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices/\(id):scriptErrors",
            body: #"{"apns_errors":["ServiceUnavailable","InternalServerError"]}"#)
        #expect(script.status == 200)
        #expect(h.apns(token).status == 503)
        #expect(h.apns(token).status == 500)
        #expect(h.apns(token).status == 200)
        #expect(try h.story(id).first == "RECEIVED_INTERNAL_ERROR(chaos)")
        #expect(h.apns(token).status == 200 && h.apns(token).status == 200)
        let limited = h.apns(token)
        #expect(limited.status == 429 && h.reason(limited) == "TooManyRequests")
        #expect(
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices/\(id):scriptErrors",
                body: #"{"apns_errors":["Nope"]}"#
            ).status == 400)
        h.shutdown.raise()
        let down = h.apns(token)
        #expect(down.status == 503 && h.reason(down) == "Shutdown")
        // Refused before the device is looked up, and still logged for it.
        #expect(try h.story(id).last == "RECEIVED_INTERNAL_ERROR(Shutdown)")
        #expect(try h.story(id).suffix(2).first == "QUOTA_EXCEEDED(TooManyRequests)")
    }

    @Test("every APNs reason can be scripted and answers with its own status, JSON body and apns-id")
    func everyReasonScripted() throws {
        let h = try Harness()
        let d = try h.device("ios")
        let id = d["id"] as! String
        let token = d["apns_token"] as! String
        let all = APNsReason.allCases
        let body = "{\"apns_errors\":[" + all.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]}"
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(id):scriptErrors", body: body).status == 200)
        for reason in all {
            let r = h.apns(token)
            #expect(r.status == reason.status && h.reason(r) == reason.rawValue, "\(reason) → \(r.status) \(r.bodyText)")
            #expect(r.headers.contains { $0.name == "content-type" && $0.value == "application/json" })
        }
        #expect(APNsReason.forbidden.status == 403 && APNsReason.idleTimeout.status == 400 && APNsReason.shutdown.status == 503)
        #expect(h.apns(token).status == 200)
    }

    @Test("APNs keys: registered with or without a public key, listed without private keys, checked")
    func keys() throws {
        let h = try Harness(keys: FakeKeys())
        let made = json(h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"key_id":"ABCDE12345"}"#))
        #expect(made["private_key"] as? String == "PRIVATE" && made["team_id"] as? String == h.project.teamID)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"key_id":"ABCDE12345"}"#).status == 409)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"key_id":"short"}"#).status == 400)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"public_key":"x"}"#).status == 400)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/apnsKeys", body: #"{"environment":"moon"}"#).status == 400)
        let list = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/apnsKeys"))["keys"] as? [[String: Any]]
        #expect(list?.count == 1 && list?.first?["private_key"] == nil)
        #expect(h.call("GET", "/emulator/v1/ca.pem").bodyText == "CA")
    }
}
