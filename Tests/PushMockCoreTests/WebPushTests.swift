import Foundation
import Testing

@testable import PushMockCore

/// Web Push's primitives as fakes that always agree (the real ones are OpenSSL's, checked end
/// to end by the server tests with pywebpush and RFC 8291's example): key agreement works for
/// any uncompressed point, "sealing" appends a zero tag, signatures verify when their first
/// byte is 1. Enough to test what Core decides around them.
struct FakeWebPushCrypto: WebPushCrypto {
    func makeP256KeyPair() throws -> (privateKey: [UInt8], publicKey: [UInt8]) {
        ([UInt8](repeating: 7, count: 32), [4] + [UInt8](repeating: 9, count: 64))
    }
    func ecdh(privateKey: [UInt8], peerPublicKey: [UInt8]) -> [UInt8]? {
        peerPublicKey.count == 65 && peerPublicKey[0] == 4 ? [UInt8](repeating: 5, count: 32) : nil
    }
    func publicKey(ofPrivateKey privateKey: [UInt8]) -> [UInt8]? { privateKey.count == 32 ? [4] + privateKey + privateKey : nil }
    func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 32)
        for (i, b) in (key + message).enumerated() { h[i % 32] = h[i % 32] &* 31 &+ b }
        return h
    }
    func sha256(_ message: [UInt8]) -> [UInt8] { hmacSHA256(key: [], message) }
    func aes128GCMOpen(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        sealed.count >= 16 && sealed.suffix(16).allSatisfy { $0 == 0 } ? Array(sealed.dropLast(16)) : nil
    }
    func aes128GCMSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: 16)
    }
    func verifyES256(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool { signature.first == 1 }
    func signES256(message: [UInt8], privateKey: [UInt8]) -> [UInt8]? { [1] + [UInt8](repeating: 0, count: 63) }
}

@Suite("Web Push in process: subscriptions, the push services' routes and answers, the content codings")
struct WebPushCoreTests {
    func device(_ h: Harness, _ fields: String = "") throws -> [String: Any] {
        let r = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"web","app":"https://shop.example"\#(fields)}"#, headers: [("Host", "127.0.0.1:4010")])
        #expect(r.status == 201, "\(r.bodyText)")
        return json(r)
    }

    @Test("each browser's subscription has its service's endpoint on the address the request came to, and its keys")
    func subscriptions() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        let key = Base64URL.encode([4] + [UInt8](repeating: 3, count: 64))
        for (fields, prefix) in [
            ("", "http://127.0.0.1:4010/fcm/send/"),
            (#","browser":"chrome","application_server_key":"\#(key)""#, "http://127.0.0.1:4010/wp/"),
            (#","browser":"firefox""#, "http://127.0.0.1:4010/wpush/v1/"),
            (#","browser":"firefox","application_server_key":"\#(key)""#, "http://127.0.0.1:4010/wpush/v2/"),
            (#","browser":"safari","application_server_key":"\#(key)""#, "http://127.0.0.1:4010/"),
        ] {
            let d = try device(h, fields)
            let sub = try #require(d["push_subscription"] as? [String: Any])
            #expect((sub["endpoint"] as? String)?.hasPrefix(prefix) == true, "\(sub)")
            #expect(sub["expirationTime"] is NSNull)
            #expect((sub["keys"] as? [String: String])?["auth"]?.count == 22)
        }
        let safari = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"web","app":"https://a.example","browser":"safari"}"#)
        #expect(safari.status == 400 && safari.bodyText.contains("applicationServerKey"))
        let android = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"android","app":"com.a","browser":"chrome"}"#)
        #expect(android.status == 400)
        let badKey = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"web","app":"https://a.example","application_server_key":"AAAA"}"#)
        #expect(badKey.status == 400 && badKey.bodyText.contains("application_server_key"))
    }

    @Test(
        "a push to an unknown, ended or misplaced endpoint answers in its service's shape; a POST at the root for no one is Google's 404"
    )
    func unknownAndEnded() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        let d = try device(h, #","browser":"firefox""#)
        let path = try #require(URL(string: (d["push_subscription"] as! [String: Any])["endpoint"] as! String)?.path)
        #expect(h.call("POST", path, body: "", contentType: nil, headers: [("TTL", "0")]).status == 201)
        let unknown = h.call("POST", "/wpush/v1/gAAAAABnope", body: "", contentType: nil, headers: [("TTL", "0")])
        #expect(unknown.status == 404 && unknown.bodyText.contains(#""errno":102"#))
        let misplaced = h.call(
            "POST", path.replacingOccurrences(of: "/v1/", with: "/v2/"), body: "", contentType: nil, headers: [("TTL", "0")])
        #expect(misplaced.status == 404)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(d["id"]!):unsubscribe").status == 200)
        let gone = h.call("POST", path, body: "", contentType: nil, headers: [("TTL", "0")])
        #expect(gone.status == 410 && gone.bodyText.contains(#""errno":106"#))
        // The push to the ended subscription is logged for the device it belonged to.
        let refused = try h.events("&device=\(d["id"]!)").last
        #expect(refused?["event"] as? String == "INVALID_REGISTRATION", "\(String(describing: refused))")
        let chrome = h.call("POST", "/fcm/send/nope", body: "", contentType: nil, headers: [("TTL", "0")])
        #expect(chrome.status == 404 && chrome.bodyText.hasPrefix("A valid push subscription endpoint"))
        #expect(h.call("POST", "/whatever", body: "", contentType: nil).bodyText.contains("Error 404 (Not Found)"))
        let apple = h.call("POST", "/whatever", body: "", contentType: nil, headers: [("Host", "web.push.apple.com")])
        #expect(apple.status == 400 && apple.bodyText == #"{"reason":"BadDeviceToken"}"#)
    }

    @Test("aes128gcm records: padding delimiters, truncation and record sizes are the browser's checks")
    func contentCoding() throws {
        let coding = ContentEncoding(crypto: FakeWebPushCrypto())
        let key = [UInt8](repeating: 1, count: 32)
        let point = [4] + [UInt8](repeating: 2, count: 64)
        let auth = [UInt8](repeating: 3, count: 16)
        func body(rs: Int = 4096, _ records: [[UInt8]]) -> [UInt8] {
            [UInt8](repeating: 0, count: 16) + [0, 0, UInt8(rs >> 8), UInt8(rs & 0xFF), 65] + point
                + records.flatMap { $0 + [UInt8](repeating: 0, count: 16) }
        }
        func decrypt(_ b: [UInt8]) -> Result<[UInt8], ContentEncoding.Failure> {
            Result { () throws(ContentEncoding.Failure) in
                try coding.decryptAES128GCM(b, privateKey: key, publicKey: point, auth: auth)
            }
        }
        #expect(try decrypt(body([Array("hi".utf8) + [2, 0, 0]])).get() == Array("hi".utf8))
        #expect(try decrypt(body(rs: 21, [Array("ab".utf8) + [1, 0, 0], Array("c".utf8) + [2]])).get() == Array("abc".utf8))
        let failures: [([UInt8], String)] = [
            (body([Array("hi".utf8) + [1]]), "bad_padding_delimiter"), (body([[0, 0]]), "no_padding_delimiter"),
            (Array(body([[2]]).prefix(30)), "truncated_header"), (Array(body([]).prefix(86)), "no_records"),
            (body(rs: 17, [[2]]), "record_size_too_small"),
        ]
        for (b, why) in failures {
            guard case .failure(let f) = decrypt(b) else {
                Issue.record("\(why) decrypted")
                continue
            }
            #expect(f.why == why)
        }
    }

    @Test("the WebSocket route takes a GET with Upgrade: websocket at the root; a plain GET there is still the dashboard")
    func webSocketRoute() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        #expect(h.call("GET", "/", headers: [("Upgrade", "websocket")]).status == 101)
        #expect(h.call("GET", "/").status != 101)
    }
}
