// libFuzzer entry for the request decoders (`make fuzz`; a minute of it in `make test`).
// Compiled by Fuzz/build.sh together with PushMockCore's sources into one module, so it
// reaches internal decoders. Inputs: the first byte picks a target, the rest is its input;
// "@T" in a body becomes a live Android token and "@A" a live APNs token.
import Foundation

nonisolated(unsafe) private var gateway: Gateway?
nonisolated(unsafe) private var androidToken: [UInt8] = []
nonisolated(unsafe) private var apnsToken = ""

private func setUp() -> Gateway {
    if let gateway { return gateway }
    var c = Configuration()
    c.acceptAnyToken = true
    c.deviceRateLimit = 0
    c.maxEvents = 20_000
    c.maxMessages = 1_000
    guard let g = try? Gateway(configuration: c, clock: Clock(mode: .manual, start: 1_800_000_000_000_000), seed: 1) else {
        fatalError("setup")
    }
    func create(_ platform: String) -> JSONValue {
        let r = g.handle(
            Request(
                method: "POST", target: "/emulator/v1/projects/demo-pushmock/devices",
                body: Array("{\"platform\":\"\(platform)\",\"app\":\"com.example.app\"}".utf8)))
        guard case .response(let response) = r, let device = try? JSONParser.parse(response.body) else { fatalError("setup") }
        return device
    }
    androidToken = Array((create("android")["token"]?.stringValue ?? "").utf8)
    apnsToken = create("ios")["apns_token"]?.stringValue ?? ""
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let g = setUp()
    let input = UnsafeBufferPointer(start: data, count: size)
    let body = expand(Array(input)[1...])
    switch input[0] % 10 {
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
