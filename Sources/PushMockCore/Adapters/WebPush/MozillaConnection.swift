/// One Firefox's WebSocket to the push server: the messages of the Mozilla push protocol
/// (docs/reference/web-push.md §6.2), field names exact. `hello` first (anything before it
/// closes the connection, as autopush does), then `register`, `unregister`, `ack`, `nack`,
/// `broadcast_subscribe` and pings (`{}`) in any order; the server sends `notification`s.
/// Loop thread only.
final class MozillaConnection: MessageEndpoint {
    private let server: MozillaPushServer
    /// Where this browser's endpoints are: the push service at the address it connected to.
    let endpointOrigin: String
    let userAgent: String?
    let openedAt = MonotonicClock.nanos()
    private var channel: (any MessageChannel)?
    /// The browser, once it said `hello`.
    private(set) var device: Device?
    /// Pushes sent and not yet acknowledged, by `version` (the message id).
    private var unacknowledged: [String: Pending] = [:]

    init(server: MozillaPushServer, endpointOrigin: String, userAgent: String?) {
        self.server = server
        self.endpointOrigin = endpointOrigin
        self.userAgent = userAgent
    }

    func opened(_ channel: any MessageChannel) { self.channel = channel }

    func received(_ text: String) {
        device?.realClient?.lastHeard = server.clock.now()
        guard let message = (try? JSONParser.parse(Array(text.utf8)))?.objectValue else {
            return close(code: 1002, reason: "not a JSON object")
        }
        // `{}` (or any message without a string `messageType`) is a ping: answered with `{}`.
        guard let type = message["messageType"]?.stringValue else { return send("{}") }
        if type == "hello" { return hello(message) }
        guard let device else { return close(code: 1002, reason: "hello first") }
        switch type {
        case "register": register(message, device)
        case "unregister":
            guard let id = message["channelID"]?.stringValue else { return close(code: 1002, reason: "no channelID") }
            server.unregister(device, channelID: id.lowercased())
            reply("unregister", ("channelID", .string(id)), ("status", .number(JSONNumber(200))))
        case "ack":
            for update in message["updates"]?.arrayValue ?? [] {
                guard let version = update["version"]?.stringValue, let item = unacknowledged.removeValue(forKey: version) else {
                    continue
                }
                server.answered(item, by: device, code: update["code"]?.numberValue?.int ?? 100, nack: false)
            }
        case "nack":
            if let version = message["version"]?.stringValue, let item = unacknowledged.removeValue(forKey: version) {
                server.answered(item, by: device, code: message["code"]?.numberValue?.int ?? 0, nack: true)
            }
        case "ping": send("{}")
        case "broadcast_subscribe": break
        default: close(code: 1002, reason: "unknown messageType")
        }
    }

    func closed() {
        channel = nil
        server.disconnected(self)
    }

    // MARK: Messages

    /// `hello`: answered with the browser's `uaid` (a new one when it gave none, or one the
    /// server does not know: Firefox then drops its old subscriptions), `use_webpush` and the
    /// broadcasts; then what waited for it goes out.
    private func hello(_ message: JSONObject) {
        guard device == nil else { return close(code: 1002, reason: "hello twice") }
        let asked = message["uaid"]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 128 ? nil : $0 }
        guard let device = server.hello(self, uaid: asked), let uaid = device.realClient?.clientID else {
            return close(code: 1013, reason: "no room for another browser")
        }
        self.device = device
        reply(
            "hello", ("uaid", .string(uaid)), ("status", .number(JSONNumber(200))), ("use_webpush", .bool(true)),
            ("broadcasts", .object(JSONObject())))
        server.delivery.connected(device, true)
    }

    /// `register`: a lower-case dashed UUID `channelID` and, for a restricted subscription, the
    /// page's `applicationServerKey` (base64url, padded) as `key`.
    private func register(_ message: JSONObject, _ device: Device) {
        guard let id = message["channelID"]?.stringValue, Self.isUUID(id) else {
            return close(code: 1002, reason: "channelID is not a UUID")
        }
        var key: [UInt8]?
        if let text = message["key"]?.stringValue {
            guard let bytes = Base64URL.decode(text), bytes.count == 65, bytes[0] == 4 else {
                return reply("register", ("channelID", .string(id)), ("status", .number(JSONNumber(400))))
            }
            key = bytes
        }
        guard let sub = server.register(device, channelID: id.lowercased(), key: key, origin: endpointOrigin) else {
            return reply("register", ("channelID", .string(id)), ("status", .number(JSONNumber(503))))
        }
        reply(
            "register", ("channelID", .string(id)), ("status", .number(JSONNumber(200))), ("pushEndpoint", .string(sub.endpoint)))
    }

    /// A push for one of this browser's channels: its body base64url as `data`, its coding's
    /// headers as `headers` (lower-case, underscores); an empty push carries neither.
    func notify(_ item: Pending, channelID: String) {
        var fields: [(key: String, value: JSONValue)] = [
            ("messageType", .string("notification")), ("channelID", .string(channelID)), ("version", .string(item.messageID)),
        ]
        let body = item.message.requestBytes
        if !body.isEmpty {
            fields.append(("data", .string(Base64URL.encode(body))))
            var headers: [(key: String, value: JSONValue)] = []
            for (name, wire) in [("content-encoding", "encoding"), ("crypto-key", "crypto_key"), ("encryption", "encryption")] {
                if let v = item.message.requestHead.headers.last(where: { $0.name.lowercased() == name })?.value {
                    headers.append((wire, .string(v)))
                }
            }
            fields.append(("headers", .object(JSONObject(headers))))
        }
        unacknowledged[item.messageID] = item
        var w = JSONWriter(capacity: body.count * 4 / 3 + 256)
        w.value(.object(JSONObject(fields)))
        send(w.text)
    }

    /// The pushes sent and not acknowledged, for the server to keep again (the connection ended).
    func takeUnacknowledged() -> [Pending] {
        defer { unacknowledged = [:] }
        return unacknowledged.values.sorted { $0.since < $1.since }
    }

    /// Another connection of the same browser said `hello`: this one goes (what it had not
    /// acknowledged waits for the new one).
    func replaced() { close(code: 1000, reason: "replaced by a newer connection") }

    func close(code: Int, reason: String) { channel?.close(code: code, reason: reason) }

    private func send(_ text: String) { channel?.send(text) }

    private func reply(_ type: String, _ fields: (key: String, value: JSONValue)...) {
        var w = JSONWriter(capacity: 256)
        w.value(.object(JSONObject([("messageType", .string(type))] + fields)))
        send(w.text)
    }

    /// 8-4-4-4-12 hex digits (autopush also takes upper case and lower-cases it).
    static func isUUID(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
