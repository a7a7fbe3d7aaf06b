/// A push's RFC 8030 headers and its content coding, read and checked in the order of
/// docs/web-push.md, "Answers": `TTL` (required), `Topic`, `Urgency`, then the coding and
/// its headers, then the size.
struct WebPushHeaders {
    /// Seconds, capped at the service's longest.
    let ttl: Int
    let topic: String?
    let urgency: String?
    let coding: Coding?

    enum Coding {
        case aes128gcm
        /// The older coding: `salt` and `rs` from `Encryption`, the sender's key from `Crypto-Key: dh`.
        case aesgcm(salt: [UInt8], recordSize: Int, senderKey: [UInt8])

        var name: String {
            switch self {
            case .aes128gcm: "aes128gcm"
            case .aesgcm: "aesgcm"
            }
        }
    }

    init(_ request: Request, _ service: WebPushService) throws(WebPushRefusal) {
        // TTL: a non-negative integer; larger than can be represented counts as 2^31 (RFC 8030 §5.2).
        guard let text = request.header("ttl")?.trimming(" \t"), !text.isEmpty else { throw .missingTTL }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .missingTTL }
        if text.hasPrefix("-") { throw .negativeTTL }
        let value = digits.utf8.count > 10 ? Int(Int32.max) : Int(digits) ?? 0
        ttl = min(value, service.maxTTL)
        topic = request.header("topic")
        if let topic {
            guard topic.utf8.count <= 32 else { throw .topicTooLong }
            guard Self.isTopic(topic) else { throw .topicNotBase64URL }
        }
        urgency = request.header("urgency")
        // autopush ignores Urgency; the others take the four RFC values only (RFC 8030 §5.3).
        if let urgency, service != .autopush, !["very-low", "low", "normal", "high"].contains(urgency) { throw .badUrgency }
        coding = try Self.coding(request)
        guard request.body.count <= service.maxBody else { throw .tooLarge(limit: service.maxBody) }
    }

    /// RFC 8030 §5.4: at most 32 characters of the URL and filename safe base64 alphabet
    /// (autopush also takes trailing `=`).
    private static func isTopic(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, bytes[body.count...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
        return body.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
        }
    }

    /// The content coding a body needs (none for an empty push).
    private static func coding(_ request: Request) throws(WebPushRefusal) -> Coding? {
        guard !request.body.isEmpty else { return nil }
        guard let name = request.header("content-encoding")?.trimming(" \t").lowercased(), !name.isEmpty else {
            throw .missingEncoding
        }
        let salt = VAPID.parameter("salt", in: request.header("encryption"))
        let dh = VAPID.cryptoKeyParameter("dh", request)
        switch name {
        case "aes128gcm":
            guard salt == nil, dh == nil else { throw .legacyHeaders }
            return .aes128gcm
        case "aesgcm":
            guard let salt, let saltBytes = Base64URL.decode(salt) else { throw .missingSalt }
            guard let dh, let key = Base64URL.decode(dh) else { throw .missingSenderKey }
            let rs = VAPID.parameter("rs", in: request.header("encryption")).map { Int($0) ?? -1 } ?? 4096
            return .aesgcm(salt: saltBytes, recordSize: rs, senderKey: key)
        default:
            throw .unknownEncoding
        }
    }
}
