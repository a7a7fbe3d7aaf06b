import Foundation
import Testing

@testable import PushMockCore

/// Extreme numbers in every numeric field of every request (JSON members, numeric strings,
/// durations, query parameters, headers, JWT claims), and in the fixture file: each must get
/// an answer in its service's shape, never a trap (docs/hardening.md, "Numbers").
/// `clock:advance {"seconds": 1e19}` once killed the process with SIGILL.
@Suite struct ExtremeNumberTests {
    static let numbers = [
        "1e19", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "4294967297", "1e300", "-1e300", "1e400", "-1e400", "1e-400", "-0", "0.5", "-1",
        "253402300800", "99999999999999999999999999999999",
    ]
    /// Numbers written as strings, and the words a Double parser takes.
    static let texts = numbers + ["NaN", "nan", "inf", "-Infinity", "0x10", "1_000", "١٢", "+5"]

    /// A request of the sample set: `@T` is an Android token, `@A` an APNs token, `@J` a
    /// provider token, `@B` an access token; JWT claims have their own test.
    struct Sample: CustomStringConvertible {
        var method: String
        var target: String
        var body: String? = nil
        var contentType: String? = "application/json"
        var headers: [(String, String)] = []
        var description: String { "\(method) \(target) \(body ?? "")" }
    }

    static let project = "/emulator/v1/projects/demo-pushmock"
    static let samples: [Sample] = [
        Sample(method: "POST", target: "/emulator/v1/clock:advance", body: #"{"seconds":1}"#),
        Sample(
            method: "PUT", target: project + "/chaos",
            body:
                #"{"seed":1,"legacy":{"error_rate":0,"latency_ms":0,"jitter_ms":0,"retry_after":5,"drop_rate":0},"apns":{"error_rate":0,"retry_after":"7"}}"#
        ),
        Sample(
            method: "POST", target: "/fcm/send",
            body:
                #"{"to":"@T","time_to_live":10,"priority":10,"content_available":true,"data":{"n":1},"notification":{"title":"t","badge":"1","notification_count":2}}"#,
            headers: [("Authorization", "key=" + Configuration.defaultServerKey)]),
        Sample(
            method: "POST", target: "/fcm/send", body: "registration_id=@T&time_to_live=10&data.n=1",
            contentType: "application/x-www-form-urlencoded;charset=UTF-8",
            headers: [("Authorization", "key=" + Configuration.defaultServerKey)]),
        Sample(
            method: "POST", target: "/v1/projects/demo-pushmock/messages:send",
            body:
                #"{"message":{"token":"@T","android":{"ttl":"10s","priority":"HIGH","notification":{"title":"t","notification_count":3,"event_time":"2026-12-01T00:00:00Z","light_settings":{"color":{"red":0.5,"alpha":1},"light_on_duration":"1.5s","light_off_duration":"2s"},"vibrate_timings":["0.5s"]}},"apns":{"headers":{"apns-expiration":"1900000000","apns-priority":"10"},"payload":{"aps":{"badge":1,"content-available":1,"mutable-content":1,"relevance-score":0.5}}},"webpush":{"headers":{"TTL":"60","Urgency":"high"}},"fcm_options":{"analytics_label":"l"}}}"#,
            headers: [("Authorization", "Bearer @B")]),
        Sample(
            method: "POST", target: "/3/device/@A", body: #"{"aps":{"alert":"hi","badge":3,"content-available":1}}"#,
            contentType: nil,
            headers: [
                ("authorization", "bearer @J"), ("apns-topic", "com.example.app"), ("apns-expiration", "1900000000"),
                ("apns-priority", "10"),
            ]),
        Sample(method: "POST", target: project + "/devices:batchCreate", body: #"{"count":2,"platform":"android","app":"x"}"#),
        Sample(
            method: "POST", target: project + "/bridges",
            body: #"{"webhook":{"url":"http://127.0.0.1:9/h","timeout_seconds":5,"max_attempts":3},"queue_limit":10}"#),
        Sample(method: "POST", target: project + "/bridges", body: #"{"simulator":{"bundle_id":"b"},"queue_limit":10}"#),
        Sample(method: "GET", target: project + "/events?since=1&limit=10&min=1&wait=0&heartbeat=1"),
        Sample(method: "GET", target: project + "/events?count=true&since=0"),
        Sample(method: "GET", target: project + "/events:export?since=1&limit=5"),
        Sample(method: "GET", target: project + "/messages?limit=10&offset=1"),
        Sample(method: "GET", target: project + "/reports?from=2026-01-01&to=2026-12-31"),
        Sample(
            method: "GET",
            target: "/v1beta1/projects/demo-pushmock/androidApps/com.example.app/deliveryData?pageSize=5&pageToken=1",
            headers: [("Authorization", "Bearer @B")]),
    ]

    /// Every numeric member, numeric string, query value and header value of a sample,
    /// replaced one at a time by each extreme.
    static func variants(of s: Sample) -> [Sample] {
        var out: [Sample] = []
        if let body = s.body {
            for (range, isString) in numericSpans(body) {
                for n in isString ? texts : numbers {
                    var v = s
                    var text = body
                    let suffix = isString && body[range].hasSuffix("s") ? "s" : ""
                    text.replaceSubrange(range, with: n + suffix)
                    v.body = text
                    out.append(v)
                }
            }
        }
        if let q = s.target.firstIndex(of: "?") {
            let base = String(s.target[..<q])
            let pairs = s.target[s.target.index(after: q)...].split(separator: "&").map(String.init)
            for (i, pair) in pairs.enumerated() {
                guard let eq = pair.firstIndex(of: "=") else { continue }
                for n in texts {
                    var p = pairs
                    p[i] = pair[...eq] + (n.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? n)
                    var v = s
                    v.target = base + "?" + p.joined(separator: "&")
                    out.append(v)
                }
            }
        }
        for (i, h) in s.headers.enumerated() where Double(h.1) != nil {
            for n in texts {
                var v = s
                v.headers[i].1 = n
                out.append(v)
            }
        }
        return out
    }

    /// Spans of number tokens outside strings, and of string contents that are numbers or
    /// durations (`"10s"`), in a JSON or form text.
    static func numericSpans(_ text: String) -> [(Range<String.Index>, Bool)] {
        var spans: [(Range<String.Index>, Bool)] = []
        if !text.hasPrefix("{") {
            // A form: each value that is a number.
            for part in text.split(separator: "&") {
                if let eq = part.firstIndex(of: "="), Double(part[part.index(after: eq)...]) != nil {
                    spans.append((part.index(after: eq)..<part.endIndex, true))
                }
            }
            return spans
        }
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "\"" {
                let open = text.index(after: i)
                var j = open
                while j < text.endIndex, text[j] != "\"" { j = text.index(after: j) }
                let content = text[open..<j]
                let bare = content.hasSuffix("s") ? content.dropLast() : content[...]
                if !bare.isEmpty, Double(bare) != nil, text[text.index(after: j)...].first != ":" {
                    spans.append((open..<j, true))
                }
                i = text.index(after: j)
            } else if c == "-" || c.isNumber {
                var j = i
                while j < text.endIndex, "0123456789.eE+-".contains(text[j]) { j = text.index(after: j) }
                spans.append((i..<j, false))
                i = j
            } else {
                i = text.index(after: i)
            }
        }
        return spans
    }

    /// A gateway with an Android device, an iOS device, an APNs key, a service account and
    /// a send; `fill` puts their names into a sample.
    final class World {
        let h: Harness
        let token: String
        let apnsToken = String(repeating: "ab", count: 32)
        let key: (kid: String, team: String)
        let account: String

        init() throws {
            h = try Harness(keys: ExtremeNumberTests.Keys())
            let android = try h.device("android")
            token = android["token"] as? String ?? ""
            try h.device("ios", extra: #","apns_token":"\#(apnsToken)""#)
            key = h.addKey()
            let sa = json(h.call("GET", ExtremeNumberTests.project + "/serviceAccount"))
            account = sa["client_email"] as? String ?? ""
            _ = h.bearer()
        }

        func fill(_ text: String) -> String {
            let now = Double(h.gateway.clock.now()) / 1e6
            return text.replacingOccurrences(of: "@T", with: token).replacingOccurrences(of: "@A", with: apnsToken)
                .replacingOccurrences(of: "@B", with: "ya29.harness")
                .replacingOccurrences(
                    of: "@J", with: jwt(#"{"alg":"ES256","kid":"\#(key.kid)"}"#, #"{"iss":"\#(key.team)","iat":\#(Int(now))}"#))
        }

        func call(_ s: Sample) -> Response {
            h.call(
                s.method, fill(s.target), body: s.body.map { fill($0) }, contentType: s.contentType,
                headers: s.headers.map { (name: $0.0, value: fill($0.1)) },
                connection: s.target.hasPrefix("/3/") ? h.h2() : nil)
        }
    }

    static func jwt(_ header: String, _ claims: String) -> String {
        func b64(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return b64(Array(header.utf8)) + "." + b64(Array(claims.utf8)) + "." + b64(FakeKeys.good)
    }

    /// FakeKeys whose RS256 check passes for the same good signature, so assertions reach
    /// their time checks.
    struct Keys: KeyService {
        let fake = FakeKeys()
        func generateRSAKey() throws -> (privatePEM: String, publicPEM: String) { ("PRIVATE RSA", "PUBLIC RSA") }
        func generateP256Key() throws -> (privatePEM: String, publicPEM: String) { try fake.generateP256Key() }
        func publicKey(fromPrivatePEM pem: String) throws -> String { try fake.publicKey(fromPrivatePEM: pem) }
        func verifyRS256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool { signature == FakeKeys.good }
        func verifyES256(message: [UInt8], signature: [UInt8], publicKeyPEM: String) -> Bool {
            fake.verifyES256(message: message, signature: signature, publicKeyPEM: publicKeyPEM)
        }
        func issueAPNsCertificate(bundleID: String, teamID: String, environment: APNsEnvironment?) throws
            -> (certificatePEM: String, privateKeyPEM: String)
        { try fake.issueAPNsCertificate(bundleID: bundleID, teamID: teamID, environment: environment) }
        var certificateAuthorityPEM: String? { fake.certificateAuthorityPEM }
    }

    /// An answer a client can act on: a status a real service gives, and a body when it is
    /// an error.
    static func check(_ r: Response, _ s: Sample, _ w: World) {
        #expect((200..<500).contains(r.status), "\(r.status) for \(w.fill(s.description)): \(r.bodyText)")
        if r.status >= 400 { #expect(!r.body.isEmpty, "empty \(r.status) for \(w.fill(s.description))") }
    }

    @Test func samplesAreAnswered() throws {
        let w = try World()
        for s in Self.samples {
            #expect(!Self.variants(of: s).isEmpty, "no numbers in \(s)")
            let r = w.call(s)
            #expect((200..<300).contains(r.status), "\(r.status) for \(w.fill(s.description)): \(r.bodyText)")
        }
    }

    @Test(arguments: samples.indices)
    func extremeNumbers(_ index: Int) throws {
        let w = try World()
        for v in Self.variants(of: Self.samples[index]) { Self.check(w.call(v), v, w) }
    }

    /// The same, with the manual clock moved as far as it goes: every time computed from now
    /// (expiry, token ages, reports) must still be representable.
    @Test(arguments: samples.indices)
    func extremeNumbersAtTheEndOfTime(_ index: Int) throws {
        let w = try World()
        let r = w.h.call("POST", "/emulator/v1/clock:advance", body: #"{"seconds":1e19}"#)
        #expect(r.status == 400, "\(r.bodyText)")
        let most = Double(Timestamp.latest - w.h.gateway.clock.now()) / 1e6
        try HarnessError.expect(w.h.call("POST", "/emulator/v1/clock:advance", body: "{\"seconds\":\(most.rounded(.down))}"), 200)
        Self.check(w.call(Self.samples[index]), Self.samples[index], w)
        for v in Self.variants(of: Self.samples[index]) { Self.check(w.call(v), v, w) }
    }

    /// Time claims of an APNs provider token and of an OAuth assertion.
    @Test func jwtTimeClaims() throws {
        let w = try World()
        let now = Int(Double(w.h.gateway.clock.now()) / 1e6)
        func apns(iat: String) -> Response {
            let token = Self.jwt(#"{"alg":"ES256","kid":"\#(w.key.kid)"}"#, #"{"iss":"\#(w.key.team)","iat":\#(iat)}"#)
            return w.h.apns(
                w.apnsToken, headers: [("authorization", "bearer " + token), ("apns-topic", "com.example.app")], on: w.h.h2())
        }
        func oauth(iat: String, exp: String) -> Response {
            let assertion = Self.jwt(
                #"{"alg":"RS256"}"#,
                #"{"iss":"\#(w.account)","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"https://oauth2.googleapis.com/token","iat":\#(iat),"exp":\#(exp)}"#
            )
            return w.h.call(
                "POST", "/token", body: "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" + assertion,
                contentType: "application/x-www-form-urlencoded")
        }
        #expect(apns(iat: "\(now)").status == 200)
        #expect(oauth(iat: "\(now)", exp: "\(now + 60)").status == 200)
        for n in Self.numbers + Self.texts.map({ "\"\($0)\"" }) {
            let r = apns(iat: n)
            // A future iat within the years pushmock represents is taken, as now.
            #expect(
                r.status == 200 || r.status == 403 && w.h.reason(r).hasSuffix("ProviderToken"),
                "iat \(n): \(r.status) \(r.bodyText)")
            for t in [oauth(iat: n, exp: "\(now + 60)"), oauth(iat: "\(now)", exp: n)] {
                #expect(t.status == 400 && (json(t)["error"] as? String) == "invalid_grant", "\(n): \(t.bodyText)")
            }
        }
    }

    /// Numbers in a fixture file: a refusal with the place, never a trap.
    @Test func fixtureNumbers() throws {
        let fixture =
            #"{"projects":[{"id":"p","bridges":[{"webhook":{"url":"http://127.0.0.1:9/","timeout_seconds":1,"max_attempts":2},"queue_limit":3}],"devices":[{"platform":"android","app":"a"}]}]}"#
        for (range, _) in Self.numericSpans(fixture) {
            for n in Self.numbers {
                var text = fixture
                text.replaceSubrange(range, with: n)
                let h = try Harness()
                do { try h.gateway.seed(Array(text.utf8), file: "f.json") } catch { #expect(!error.description.isEmpty) }
            }
        }
    }

    @Test("a number's decimal digits: counted and written as String(n) writes them, at every length")
    func decimalDigits() {
        // Every number below 1,000 (each pair of digits, in each place), the powers of ten
        // and their neighbours, and random ones.
        var samples: [UInt64] = Array(0..<1000) + [UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        var p: UInt64 = 1
        for _ in 0..<19 {
            p *= 10
            samples += [p - 1, p, p + 1]
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { samples.append(UInt64.random(in: 0...(.max), using: &generator) >> UInt64.random(in: 0...63)) }
        for n in samples {
            let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalDigits.maxCount) { buffer in
                let start = DecimalDigits.write(n, endingAt: buffer.count, in: buffer)
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
            }
            #expect(text == String(n))
            #expect(DecimalDigits.count(n) == String(n).count)
        }
    }
}
