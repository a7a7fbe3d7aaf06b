import Foundation
import Testing

@testable import PushMockCore

/// A transport's side of an MCS connection, in process: what the server sent, and whether it
/// closed.
final class CapturedStream: StreamChannel {
    var sent: [UInt8] = []
    var closed = false
    func send(_ bytes: [UInt8]) { sent += bytes }
    func close() { closed = true }
    var pendingBytes: Int { 0 }
}

@Suite("Protocol Buffers by hand, and MCS framing")
struct ProtobufTests {
    @Test("fields written are read back: varints, fixed64, strings, embedded messages")
    func roundTrip() throws {
        var w = ProtoWriter()
        w.varint(1, 300)
        w.fixed64(7, 1_234_567_890_123_456_789)
        w.string(2, "chrome-156")
        w.message(4) { $0.varint(12, 3) }
        let fields = try ProtoReader.fields(w.bytes[...])
        #expect(fields.map(\.number) == [1, 7, 2, 4])
        #expect(fields[0].integer == 300 && fields[1].integer == 1_234_567_890_123_456_789)
        #expect(fields[2].string == "chrome-156")
        #expect(try ProtoReader.fields(fields[3].bytes!).first?.integer == 3)
        // The check-in answer of the fact sheet's example, byte for byte.
        var answer = ProtoWriter()
        answer.bool(1, true)
        answer.varint(3, 1_700_000_000_000)
        answer.fixed64(7, 1_234_567_890_123_456_789)
        answer.fixed64(8, 987_654_321)
        #expect(
            answer.bytes
                == [
                    0x08, 0x01, 0x18, 0x80, 0xD0, 0x95, 0xFF, 0xBC, 0x31, 0x39, 0x15, 0x81, 0xE9, 0x7D, 0xF4, 0x10, 0x22, 0x11,
                    0x41,
                ]
                + [0xB1, 0x68, 0xDE, 0x3A, 0, 0, 0, 0])
    }

    @Test(
        "malformed messages are refused whole: a truncated varint, fixed64 or length, a group, field number 0, an 11-byte varint",
        arguments: [[0x08], [0x39, 1, 2], [0x12, 5, 1], [0x1B], [0x00, 1], [0x08] + [UInt8](repeating: 0xFF, count: 10) + [1]])
    func malformed(_ bytes: [UInt8]) {
        #expect(throws: ProtoReader.Malformed.self) { try ProtoReader.fields(bytes[...]) }
    }

    @Test("MCS packets: the version byte alone, then tag, varint length and message; partial input waits")
    func framing() throws {
        var reader = MCSReader()
        let packet: [UInt8] = [41, 2, 3, 0x0A, 1, 0x41]
        let step = try packet.withUnsafeBytes { try reader.read($0) }
        #expect(step.consumed == 1 && step.packet == nil)
        let rest = Array(packet.dropFirst())
        #expect(try rest.prefix(3).withUnsafeBytes { try reader.read($0) }.consumed == 0)
        let whole = try rest.withUnsafeBytes { try reader.read($0) }
        #expect(whole.consumed == 5 && whole.packet?.0 == .loginRequest && whole.packet?.1 == [0x0A, 1, 0x41])
        var fresh = MCSReader()
        #expect(throws: MCSReader.Failure.unsupportedVersion(37)) { try ([UInt8]([37])).withUnsafeBytes { try fresh.read($0) } }
        var r = MCSReader()
        _ = try ([UInt8]([41])).withUnsafeBytes { try r.read($0) }
        #expect(throws: MCSReader.Failure.unknownTag(16)) { try ([UInt8]([16, 0])).withUnsafeBytes { try r.read($0) } }
        #expect(throws: MCSReader.Failure.tooLarge(1 << 20)) {
            try ([UInt8]([7, 0x80, 0x80, 0x40])).withUnsafeBytes { try r.read($0) }
        }
        #expect(throws: MCSReader.Failure.badLength) {
            try ([UInt8]([7, 0x80, 0x80, 0x80, 0x80, 0x80, 1])).withUnsafeBytes { try r.read($0) }
        }
        var w = MCSWriter()
        #expect(w.packet(.heartbeatAck, []) == [41, 1, 0] && w.packet(.heartbeatAck, []) == [1, 0])
    }
}

@Suite("Google's client side in process: check-in, register3, MCS, Installations, FCM registrations")
struct FCMClientsCoreTests {
    static let apiKey = "AIzaSyA-pushmock-test-key-0123456789abc"

    /// A browser's protobuf check-in; its android id and security token.
    func checkin(_ h: Harness) throws -> (UInt64, UInt64) {
        var w = ProtoWriter()
        w.message(4) { c in
            c.varint(12, 3)
            c.message(13) { $0.string(2, "156.0.8078.114") }
        }
        w.varint(14, 3)
        var request = Request(
            method: "POST", target: "/checkin", headers: [("Content-Type", "application/x-protobuf")], body: w.bytes)
        request.secure = false
        let r = h.answer(h.gateway.handle(request))
        #expect(r.status == 200)
        var id: UInt64 = 0
        var token: UInt64 = 0
        for f in try ProtoReader.fields(r.body[...]) {
            if f.number == 7 { id = f.integer! }
            if f.number == 8 { token = f.integer! }
        }
        return (id, token)
    }

    /// An MCS connection in process, logged in with a check-in's credentials (every byte taken).
    func login(_ h: Harness, _ id: UInt64, _ token: UInt64, as name: String) throws -> (MCSConnection, CapturedStream) {
        let connection = try #require(h.gateway.mcsConnection() as? MCSConnection)
        let channel = CapturedStream()
        connection.opened(channel)
        var login = ProtoWriter()
        login.string(1, name)
        login.string(3, String(id))
        login.string(5, String(token))
        let packet = [41, 2] + varint(login.bytes.count) + login.bytes
        #expect(packet.withUnsafeBytes { connection.received($0) } == packet.count)
        return (connection, channel)
    }

    func register3(_ h: Harness, _ id: UInt64, _ token: UInt64, sender: String = "123456789012") -> Response {
        h.call(
            "POST", "/c2dm/register3", body: "app=org.chromium.linux&X-subtype=wp:a%23b&device=\(id)&sender=\(sender)",
            contentType: "application/x-www-form-urlencoded", headers: [("Authorization", "AidLogin \(id):\(token)")])
    }

    @Test(
        "a browser checks in, registers, logs in to MCS and gets a Web Push as a data message; its selective ack is its delivery"
    )
    func mcsInProcess() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        let (id, token) = try checkin(h)
        #expect(id > 0 && id < 1 << 63 && token > 0)
        let registered = register3(h, id, token)
        #expect(registered.status == 200 && registered.bodyText.hasPrefix("token="))
        let gcm = String(registered.bodyText.dropFirst(6))

        let (connection, channel) = try login(h, id, token, as: "chrome-156.0.8078.114")
        var reader = MCSReader()
        let (_, answer) = try read(&reader, &channel.sent)
        #expect(answer.0 == .loginResponse)
        #expect(try ProtoReader.fields(answer.1[...]).contains { $0.number == 1 && $0.string == "chrome-156.0.8078.114" })
        #expect(try !ProtoReader.fields(answer.1[...]).contains { $0.number == 3 }, "no error on success")

        let pushed = h.call(
            "POST", "/fcm/send/\(gcm)", body: "abc", contentType: "application/octet-stream",
            headers: [("TTL", "60"), ("Content-Encoding", "aes128gcm")])
        #expect(pushed.status == 201)
        let (_, data) = try read(&reader, &channel.sent)
        #expect(data.0 == .dataMessageStanza)
        let fields = try ProtoReader.fields(data.1[...])
        #expect(fields.first { $0.number == 5 }?.string == "org.chromium.linux")
        #expect(fields.first { $0.number == 3 }?.string == "123456789012")
        #expect(fields.first { $0.number == 21 }?.bytes.map(Array.init) == Array("abc".utf8))
        let persistentID = try #require(fields.first { $0.number == 9 }?.string)

        var ack = ProtoWriter()
        ack.varint(2, 1)
        ack.string(3, "")
        ack.message(7) { e in
            e.varint(1, 12)
            var ids = ProtoWriter()
            ids.string(1, persistentID)
            e.bytes(2, ids.bytes)
        }
        let iq = [7] + varint(ack.bytes.count) + ack.bytes
        _ = iq.withUnsafeBytes { connection.received($0) }
        let delivered = h.call("GET", "/emulator/v1/projects/demo-pushmock/events?event=MESSAGE_DELIVERED")
        #expect(delivered.bodyText.contains("MESSAGE_DELIVERED"), "\(delivered.bodyText)")
        connection.closed()
    }

    @Test("a client that leaves 1,000 pushes unacknowledged gets no more: they wait, stored, and go out as it answers")
    func busyClient() throws {
        let h = try Harness(webPush: FakeWebPushCrypto()) { $0.deviceRateLimit = 0 }
        let (id, token) = try checkin(h)
        let gcm = String(register3(h, id, token).bodyText.dropFirst(6))
        let (connection, _) = try login(h, id, token, as: "chrome-1")
        for _ in 0...MCSServer.maxUnacknowledged {
            #expect(h.call("POST", "/fcm/send/\(gcm)", body: "", headers: [("TTL", "600")]).status == 201)
        }
        #expect(connection.unacknowledgedCount == MCSServer.maxUnacknowledged)
        let busy = h.call("GET", "/emulator/v1/projects/demo-pushmock/events?event=MESSAGE_STORED")
        #expect(busy.bodyText.contains("client_busy"), "\(busy.bodyText.prefix(300))")
        // A stream position acknowledging everything sent: the waiting push goes out next.
        var ping = ProtoWriter()
        ping.varint(2, 5000)
        let ack = [0] + varint(ping.bytes.count) + ping.bytes
        _ = ack.withUnsafeBytes { connection.received($0) }
        #expect(connection.unacknowledgedCount == 0)
        h.gateway.expireDue()
        #expect(connection.unacknowledgedCount == 1)
        connection.closed()
    }

    func varint(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        ProtoWriter.appendVarint(UInt64(n), to: &out)
        return out
    }

    func read(_ reader: inout MCSReader, _ bytes: inout [UInt8]) throws -> (Int, (MCSTag, [UInt8])) {
        while true {
            let step = try bytes.withUnsafeBytes { try reader.read($0) }
            bytes.removeFirst(step.consumed)
            if let p = step.packet { return (step.consumed, p) }
            guard step.consumed > 0 else { throw MCSReader.Failure.badLength }
        }
    }

    @Test("register3's errors as Chromium parses them: AidLogin, sender, parameters")
    func register3Errors() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        let (id, token) = try checkin(h)
        #expect(register3(h, id, token &+ 1).bodyText == "Error=AUTHENTICATION_FAILED")
        #expect(register3(h, id, token, sender: "x").bodyText == "Error=INVALID_SENDER")
        let noApp = h.call(
            "POST", "/c2dm/register3", body: "device=\(id)&sender=1", contentType: "application/x-www-form-urlencoded",
            headers: [("Authorization", "AidLogin \(id):\(token)")])
        #expect(noApp.bodyText == "Error=INVALID_PARAMETERS")
    }

    @Test("Installations: the API key checked as Firebase does, create, generate, delete, and the errors the SDKs parse")
    func installations() throws {
        let h = try Harness()
        let path = "/v1/projects/demo-pushmock/installations"
        let body = #"{"fid":"dQ8PWd8gQ0K9cRq1yUHUfq","authVersion":"FIS_v2","appId":"1:1:web:1","sdkVersion":"w:0.6.13"}"#
        let noKey = h.call("POST", path, body: body)
        #expect(noKey.status == 403 && noKey.bodyText.contains("PERMISSION_DENIED"))
        let badKey = h.call("POST", path, body: body, headers: [("x-goog-api-key", "nope")])
        #expect(badKey.status == 400 && badKey.bodyText.contains("API_KEY_INVALID"))
        let noApp = h.call("POST", path, body: #"{"fid":"dQ8PWd8gQ0K9cRq1yUHUfq"}"#, headers: [("x-goog-api-key", Self.apiKey)])
        #expect(noApp.status == 400 && noApp.bodyText.contains("INVALID_ARGUMENT"))
        // Google's front end reads the body by the proto3 JSON mapping: unknown names and wrong types, each listed.
        let unknown = h.call(
            "POST", path, body: #"{"appId":"1:1:web:1","fids":["a"],"sdkVersion":7}"#, headers: [("x-goog-api-key", Self.apiKey)])
        let error = json(unknown)["error"] as? [String: Any]
        #expect(
            unknown.status == 400
                && error?["message"] as? String == """
                    Invalid JSON payload received. Unknown name "fids": Cannot find field.
                    Invalid value at 'sdk_version' (TYPE_STRING), 7
                    """,
            "\(unknown.bodyText)")
        let violations = ((error?["details"] as? [[String: Any]])?.first?["fieldViolations"] as? [[String: Any]]) ?? []
        #expect(violations.count == 2 && violations[0]["field"] == nil && violations[1]["field"] as? String == "sdk_version")
        // aiohttp's text/plain body is JSON all the same.
        let made = h.call(
            "POST", path, body: body, contentType: "text/plain; charset=utf-8", headers: [("x-goog-api-key", Self.apiKey)])
        #expect(made.status == 200 && made.headers.contains { $0.value.hasPrefix("application/json") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])
        #expect(json["fid"] as? String == "dQ8PWd8gQ0K9cRq1yUHUfq")
        #expect(json["name"] as? String == "projects/demo-pushmock/installations/dQ8PWd8gQ0K9cRq1yUHUfq")
        let refresh = try #require(json["refreshToken"] as? String)
        let auth = [("x-goog-api-key", Self.apiKey), ("Authorization", "FIS_v2 \(refresh)")]
        let generated = h.call("POST", path + "/dQ8PWd8gQ0K9cRq1yUHUfq/authTokens:generate", body: "{}", headers: auth)
        #expect(generated.status == 200 && generated.bodyText.contains(#""expiresIn":"604800s""#))
        let wrong = h.call(
            "POST", path + "/dQ8PWd8gQ0K9cRq1yUHUfq/authTokens:generate", body: "{}",
            headers: [("x-goog-api-key", Self.apiKey), ("Authorization", "FIS_v2 nope")])
        #expect(wrong.status == 401 && wrong.bodyText.contains("UNAUTHENTICATED"))
        #expect(h.call("DELETE", path + "/dQ8PWd8gQ0K9cRq1yUHUfq", headers: auth).status == 200)
        #expect(h.call("POST", path + "/dQ8PWd8gQ0K9cRq1yUHUfq/authTokens:generate", body: "{}", headers: auth).status == 401)
        let preflight = h.call(
            "OPTIONS", path, headers: [("Origin", "https://shop.example"), ("Access-Control-Request-Headers", "x-goog-api-key")])
        #expect(preflight.status == 200)
        #expect(preflight.headers.contains { $0 == ("Access-Control-Allow-Origin", "https://shop.example") })
    }

    @Test(
        "FCM registrations: authorized by an installation's token of the same project; a Web token for the subscription, read, deleted, then unregistered"
    )
    func registrations() throws {
        let h = try Harness(webPush: FakeWebPushCrypto())
        let made = h.call(
            "POST", "/v1/projects/demo-pushmock/installations",
            body: #"{"fid":"eQ8PWd8gQ0K9cRq1yUHUfq","authVersion":"FIS_v2","appId":"1:1:web:1","sdkVersion":"w:0.6.13"}"#,
            headers: [("x-goog-api-key", Self.apiKey)])
        let fis = try #require(
            ((try JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])?["authToken"] as? [String: Any])?[
                "token"]
                as? String)
        let path = "/v1/projects/demo-pushmock/registrations"
        let key = Base64URL.encode([4] + [UInt8](repeating: 3, count: 64))
        let web =
            #"{"web":{"endpoint":"https://fcm.googleapis.com/fcm/send/abc:APA91bxyz","p256dh":"\#(key)","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}"#
        #expect(h.call("POST", path, body: web, headers: [("x-goog-api-key", Self.apiKey)]).status == 401)
        let headers = [("x-goog-api-key", Self.apiKey), ("x-goog-firebase-installations-auth", "FIS " + fis)]
        let other = h.call("POST", "/v1/projects/other-project/registrations", body: web, headers: headers)
        #expect(other.status == 403)
        let bad = h.call("POST", path, body: #"{"web":{"endpoint":"x","p256dh":"y","auth":"z"}}"#, headers: headers)
        #expect(bad.status == 400)
        let created = h.call("POST", path, body: web, headers: headers)
        #expect(created.status == 200, "\(created.bodyText)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
        let token = try #require(json["token"] as? String)
        #expect(json["name"] as? String == "projects/demo-pushmock/registrations/\(token)")
        #expect(h.call("POST", path, body: web, headers: headers).bodyText == created.bodyText, "the same again")
        #expect(h.call("GET", path + "/\(token)", headers: headers).bodyText == created.bodyText)
        #expect(h.call("DELETE", path + "/\(token)", headers: headers).bodyText == "{}")
        let send = h.call(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"a":"b"}}"#,
            headers: [("Authorization", "key=pushmock-dev-server-key")])
        #expect(send.bodyText.contains("NotRegistered"), "\(send.bodyText)")
    }

    @Test("the iOS SDK's JSON check-in answers numbers; a body that is neither JSON nor a protobuf is refused")
    func iosCheckin() throws {
        let h = try Harness()
        let r = h.call("POST", "/checkin", body: #"{"checkin":{"type":2},"id":0,"security_token":0}"#)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
        #expect(json["android_id"] is Int && json["security_token"] is Int && json["stats_ok"] as? Bool == true)
        #expect(h.call("POST", "/checkin", body: "{", contentType: "application/json").status == 400)
        #expect(h.call("POST", "/checkin", body: "\u{1B}", contentType: "application/x-protobuf").status == 400)
    }

    @Test("a saved state's check-ins are checked as they are put back: an android id out of int64's range is refused, naming it")
    func restoredCheckins() throws {
        let h = try Harness()
        let fixture =
            #"{"projects":[{"id":"demo-pushmock","clients":{"checkins":[{"android_id":"18446744073709551615","security_token":"1"}]}}]}"#
        #expect(throws: SeedError.self) { try h.gateway.seed(Array(fixture.utf8), file: "state") }
        let good = #"{"projects":[{"id":"demo-pushmock","clients":{"checkins":[{"android_id":"42","security_token":"7"}]}}]}"#
        try h.gateway.seed(Array(good.utf8), file: "state")
        // The restored check-in is known: its pair checks in again, another token for its id is
        // refused (an unknown pair would have been adopted).
        let r = h.call("POST", "/checkin", body: #"{"id":42,"security_token":7}"#)
        #expect(r.bodyText.contains(#""android_id":42"#) && r.bodyText.contains(#""security_token":7"#), "\(r.bodyText)")
        #expect(h.call("POST", "/checkin", body: #"{"id":42,"security_token":8}"#).status == 401)
    }

    @Test("a bridge's 'app' and 'sdk_devices' settings round-trip")
    func bridgeSettings() throws {
        let h = try Harness()
        let made = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/bridges",
            body: #"{"app":"com.example.news","sdk_devices":true,"simulator":{"udid":"booted"}}"#)
        #expect(made.status == 201, "\(made.bodyText)")
        #expect(made.bodyText.contains(#""app":"com.example.news","sdk_devices":true"#), "\(made.bodyText)")
        #expect(made.bodyText.contains(#""bundle_id":"com.example.news""#))
        let each = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/bridges", body: #"{"sdk_devices":true,"simulator":{"udid":"booted"}}"#)
        #expect(each.status == 201 && !each.bodyText.contains("bundle_id"), "\(each.bodyText)")
        let both = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/bridges",
            body: #"{"app":"a.b","device":"d1","simulator":{"udid":"booted"}}"#)
        #expect(both.status == 400)
    }
}
