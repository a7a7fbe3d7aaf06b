// libFuzzer entry for the request decoders (`make fuzz`; a minute of it in `make test`).
// Compiled by Fuzz/build.sh together with PushMockCore's sources into one module, so it
// reaches internal decoders. Inputs: the first byte picks a target, the rest is its input;
// "@T" in a body becomes a live Android token and "@A" a live APNs token. Web Push runs on
// `FuzzCrypto`, whose primitives are fakes that always agree, so inputs reach the record,
// padding and header logic behind them. Google's client side: the protobuf decoders of the
// check-in and MCS, and a logged-in MCS connection fed whatever a client might send.
import Foundation

nonisolated(unsafe) private var gateway: Gateway?
nonisolated(unsafe) private var androidToken: [UInt8] = []
nonisolated(unsafe) private var apnsToken = ""
nonisolated(unsafe) private var webPushPaths: [String] = []
nonisolated(unsafe) private var mcsCredentials: (UInt64, UInt64)?
nonisolated(unsafe) private weak var mcsGateway: Gateway?

private func setUp() -> Gateway {
    if let gateway { return gateway }
    var c = Configuration()
    c.acceptAnyToken = true
    c.deviceRateLimit = 0
    c.maxEvents = 20_000
    c.maxMessages = 1_000
    guard
        let g = try? Gateway(
            configuration: c, clock: Clock(mode: .manual, start: 1_800_000_000_000_000), seed: 1,
            services: ServerServices(webPush: FuzzCrypto()))
    else {
        fatalError("setup")
    }
    func create(_ platform: String, _ more: String = "", app: String = "com.example.app") -> JSONValue {
        let r = g.handle(
            Request(
                method: "POST", target: "/emulator/v1/projects/demo-pushmock/devices",
                headers: [("Host", "127.0.0.1:4010"), ("Content-Type", "application/json")],
                body: Array("{\"platform\":\"\(platform)\",\"app\":\"\(app)\"\(more)}".utf8)))
        guard case .response(let response) = r, let device = try? JSONParser.parse(response.body) else { fatalError("setup") }
        return device
    }
    androidToken = Array((create("android")["token"]?.stringValue ?? "").utf8)
    apnsToken = create("ios")["apns_token"]?.stringValue ?? ""
    webPushPaths = ["chrome", "firefox"].compactMap { browser in
        let endpoint = create("web", ",\"browser\":\"\(browser)\"", app: "https://shop.example")["push_subscription"]?["endpoint"]
        return endpoint?.stringValue.map { String($0.dropFirst("http://127.0.0.1:4010".count)) }
    }
    guard webPushPaths.count == 2, !androidToken.isEmpty, !apnsToken.isEmpty else { fatalError("setup: devices") }
    _ = g.handle(Request(method: "POST", target: "/emulator/v1/projects/demo-pushmock/devices/d1/topics/news"))
    gateway = g
    return g
}

/// `@T` → the Android token, `@A` → the APNs token.
private func expand(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = bytes.startIndex
    while i < bytes.endIndex {
        if bytes[i] == UInt8(ascii: "@"), i + 1 < bytes.endIndex,
            bytes[i + 1] == UInt8(ascii: "T") || bytes[i + 1] == UInt8(ascii: "A")
        {
            out += bytes[i + 1] == UInt8(ascii: "T") ? androidToken : Array(apnsToken.utf8)
            i += 2
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

/// Header lines `name: value` up to an empty line, then the body.
private func headersAndBody(_ bytes: [UInt8]) -> ([(name: String, value: String)], [UInt8]) {
    let text = bytes.firstRange(of: Array("\n\n".utf8))
    guard let split = text else { return ([], bytes) }
    var headers: [(name: String, value: String)] = []
    for line in bytes[..<split.lowerBound].split(separator: UInt8(ascii: "\n")) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        headers.append(
            (
                String(decoding: line[..<colon], as: UTF8.self),
                String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            ))
    }
    return (headers, Array(bytes[split.upperBound...]))
}

private func post(
    _ g: Gateway, _ target: String, _ body: [UInt8], headers: [(name: String, value: String)] = [],
    contentType: String = "application/json", connection: ConnectionContext? = nil
) {
    var request = Request(
        method: "POST", target: target,
        headers: [("Content-Type", contentType), ("Authorization", "key=" + Configuration.defaultServerKey)] + headers,
        body: body)
    request.connection = connection
    _ = g.handle(request)
}

/// The HTTP/1.1 reader: a head, then (chunked) a body, which must decode the same fed whole
/// or in two pieces split anywhere.
private func http1(_ bytes: [UInt8]) {
    var parser = HTTP1HeadParser(maxHeadBytes: 4096)
    guard case .head(let head, let length) = bytes.withUnsafeBytes({ parser.parse($0) }), head.framing == .chunked else { return }
    let rest = Array(bytes[length...])
    func decode(_ pieces: [ArraySlice<UInt8>]) -> (ChunkedDecoder.Outcome, [UInt8]) {
        var decoder = ChunkedDecoder(maxBytes: 1 << 16)
        var pending: [UInt8] = []
        for piece in pieces {
            pending += piece
            while true {
                let (consumed, outcome) = pending.withUnsafeBytes { decoder.feed($0) }
                pending.removeFirst(consumed)
                if outcome != .needMore { return (outcome, decoder.body) }
                if consumed == 0 { break }
            }
        }
        return (.needMore, decoder.body)
    }
    let whole = decode([rest[...]])
    let split = rest.isEmpty ? 0 : Int(rest[0]) % (rest.count + 1)
    let pieces = decode([rest[..<split], rest[split...]])
    guard whole.0 == pieces.0, whole.0 != .done || whole.1 == pieces.1 else {
        fatalError("chunked decoding depends on how bytes arrive")
    }
}

/// WebSocket framing: whatever a client sends, read whole or split in two anywhere, gives the
/// same frames or the same failure.
private func webSocket(_ bytes: [UInt8]) {
    func read(_ pieces: [ArraySlice<UInt8>]) -> [String] {
        var reader = WebSocketReader(maxMessage: 4096)
        var pending: [UInt8] = []
        var seen: [String] = []
        for piece in pieces {
            pending += piece
            while true {
                let step = pending.withUnsafeBytes { buffer in
                    Result { () throws(WebSocketReader.Failure) in try reader.read(buffer) }
                }
                switch step {
                case .failure(let error): return seen + ["failure \(error.code)"]
                case .success((0, _)): break
                case .success(let (consumed, frame)):
                    pending.removeFirst(consumed)
                    if let frame { seen.append("\(frame)") }
                    continue
                }
                break
            }
        }
        return seen
    }
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    guard read([bytes[...]]) == read([bytes[..<split], bytes[split...]]) else {
        fatalError("WebSocket framing depends on how bytes arrive")
    }
}

/// The protobuf decoders: any bytes are fields or `Malformed`, never a trap; a check-in
/// request, a login, an IQ's acknowledgements and the check-in route read them.
private func protobuf(_ bytes: [UInt8]) {
    _ = try? ProtoReader.fields(bytes[...])
    _ = try? CheckinAPI.readProtobuf(bytes)
    _ = try? MCSLogin(bytes)
    _ = try? MCSUpstream.acknowledged(bytes)
    for tag in [MCSTag.heartbeatPing, .iqStanza, .dataMessageStanza] { _ = try? MCSUpstream.lastStreamIDReceived(tag, bytes) }
    _ = setUp().handle(
        Request(method: "POST", target: "/checkin", headers: [("Content-Type", "application/x-protobuf")], body: bytes))
}

/// MCS: framing read whole or split in two gives the same packets or the same failure, and a
/// logged-in connection takes anything a client sends without trapping.
private func mcs(_ g: Gateway, _ bytes: [UInt8]) {
    func read(_ pieces: [ArraySlice<UInt8>]) -> [String] {
        var reader = MCSReader()
        var pending: [UInt8] = [41]
        var seen: [String] = []
        for piece in pieces {
            pending += piece
            while true {
                let step = pending.withUnsafeBytes { buffer in
                    Result { () throws(MCSReader.Failure) in try reader.read(buffer) }
                }
                guard case .success(let (consumed, packet)) = step else { return seen + ["failure"] }
                guard consumed > 0 else { break }
                pending.removeFirst(consumed)
                if let packet { seen.append("\(packet.0) \(packet.1)") }
            }
        }
        return seen
    }
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    guard read([bytes[...]]) == read([bytes[..<split], bytes[split...]]) else {
        fatalError("MCS framing depends on how bytes arrive")
    }
    // A browser checks in (once per gateway) and logs in; then the bytes.
    if mcsCredentials == nil || mcsGateway !== g {
        var checkin = ProtoWriter()
        checkin.message(4) { $0.varint(12, 3) }
        let answer = g.handle(
            Request(
                method: "POST", target: "/checkin", headers: [("Content-Type", "application/x-protobuf")], body: checkin.bytes))
        guard case .response(let r) = answer, let fields = try? ProtoReader.fields(r.body[...]),
            let id = fields.first(where: { $0.number == 7 })?.integer,
            let token = fields.first(where: { $0.number == 8 })?.integer
        else { fatalError("check-in") }
        mcsCredentials = (id, token)
        mcsGateway = g
    }
    guard let (id, token) = mcsCredentials else { return }
    var login = ProtoWriter()
    login.string(1, "chrome-1")
    login.string(3, String(id))
    login.string(5, String(token))
    var packet: [UInt8] = [41, 2]
    ProtoWriter.appendVarint(UInt64(login.bytes.count), to: &packet)
    let connection = g.mcsConnection()
    final class Sink: StreamChannel {
        func send(_ bytes: [UInt8]) {}
        func close() {}
        var pendingBytes: Int { 0 }
    }
    connection.opened(Sink())
    let all = packet + login.bytes + bytes
    _ = all.withUnsafeBytes { connection.received($0) }
    connection.closed()
}

/// The content codings' record, padding and header parsing, behind primitives that always agree.
private func contentCodings(_ bytes: [UInt8]) {
    let coding = ContentEncoding(crypto: FuzzCrypto())
    let key = [UInt8](repeating: 1, count: 32)
    let point = [4] + [UInt8](repeating: 2, count: 64)
    let auth = [UInt8](repeating: 3, count: 16)
    _ = try? coding.decryptAES128GCM(bytes, privateKey: key, publicKey: point, auth: auth)
    let rs = bytes.first.map { Int($0) * 7 } ?? 4096
    _ = try? coding.decryptAESGCM(
        Array(bytes.dropFirst()), salt: Array(bytes.prefix(16)), recordSize: rs, senderKey: point, privateKey: key,
        publicKey: point, auth: auth)
}

/// Web Push's primitives as fakes: key agreement works for any uncompressed point, "opening"
/// returns the ciphertext, signatures verify when their first byte is 1.
private struct FuzzCrypto: WebPushCrypto {
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
        sealed.count >= 16 ? Array(sealed.dropLast(16)) : nil
    }
    func aes128GCMSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: 16)
    }
    func verifyES256(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool { signature.first == 1 }
    func signES256(message: [UInt8], privateKey: [UInt8]) -> [UInt8]? { [1] + [UInt8](repeating: 0, count: 63) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let g = setUp()
    let input = UnsafeBufferPointer(start: data, count: size)
    let body = expand(Array(input)[1...])
    switch input[0] % 14 {
    case 0:
        // The parser, and a property: what it accepts, the writer writes back to the same value.
        if let value = try? JSONParser.parse(body) {
            var w = JSONWriter()
            w.value(value)
            guard (try? JSONParser.parse(w.bytes)) == value else { fatalError("JSON round trip changed \(value)") }
        }
    case 1: post(g, "/fcm/send", body)
    case 2: post(g, "/fcm/send", body, contentType: "application/x-www-form-urlencoded;charset=UTF-8")
    case 3: post(g, "/v1/projects/demo-pushmock/messages:send", body)
    case 4:
        let (headers, payload) = headersAndBody(body)
        let certificate = ClientCertificate(
            userID: "com.example.app", commonName: "Apple Push Services: com.example.app",
            organizationalUnit: g.directory["demo-pushmock"]?.teamID, trusted: true)
        post(
            g, "/3/device/" + apnsToken, payload, headers: headers,
            connection: ConnectionContext(isHTTP2: true, clientCertificate: certificate))
    case 5: post(g, "/iid/v1:batchAdd", body)
    case 6: _ = try? Condition.parse(String(decoding: body, as: UTF8.self))
    case 7:
        _ = g.handle(Request(method: "PUT", target: "/emulator/v1/projects/demo-pushmock/chaos", body: body))
        _ = g.handle(Request(method: "DELETE", target: "/emulator/v1/projects/demo-pushmock/chaos"))
    case 8: http1(body)
    case 9: webSocket(body)
    case 10:
        // A push to a fake browser: RFC 8030's headers, VAPID and the content codings.
        let (headers, payload) = headersAndBody(body)
        let path = webPushPaths[Int(input.count) % webPushPaths.count]
        _ = g.handle(Request(method: "POST", target: path, headers: headers, body: payload))
    case 11: contentCodings(body)
    case 12: protobuf(body)
    case 13: mcs(g, body)
    default:
        // Any target: the router, query parsing and path parameters.
        _ = g.handle(Request(method: "GET", target: String(decoding: body, as: UTF8.self)))
    }
    // Keep the state small: forget sends and events now and then, and start over when inputs
    // have made many projects (any valid project id is served, made on first use).
    if g.log.count > 10_000 { _ = g.handle(Request(method: "DELETE", target: "/emulator/v1/projects/demo-pushmock/messages")) }
    if g.directory.count > 100 { gateway = nil }
    return 0
}
