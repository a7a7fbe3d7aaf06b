/// The `apns-*` request headers of one push, checked in the order Pushy's mock server uses
/// (docs/reference/apns.md §E.2, §E.4). Kept with the accepted message, shared by the pushes of a
/// connection that repeat the same headers (the device is shown them with the push's own id
/// and push type, which the message holds). A class, so passing it along copies no Strings.
public final class APNsHeaders: Sendable {
    public let apnsID: String?
    public let topic: String?
    public let pushType: String?
    public let priority: Int?
    /// UNIX seconds; 0 means one attempt only.
    public let expiration: Int64?
    public let collapseID: String?
    let authorization: String?
    /// The bundle id the topic addresses: the topic without its push-type suffix.
    public let bundleID: String

    /// The suffix `apns-topic` carries for each push type that needs one; the other types
    /// need none. Scanned, not hashed: the lists are short and this runs on every push.
    static let typeSuffixes: [(type: String, suffix: String)] = [
        ("voip", ".voip"), ("complication", ".complication"), ("fileprovider", ".pushkit.fileprovider"),
        ("liveactivity", ".push-type.liveactivity"), ("location", ".location-query"), ("pushtotalk", ".voip-ptt"),
        ("widgets", ".push-type.widgets"), ("controls", ".push-type.controls"),
    ]
    static let suffixBytes = typeSuffixes.map { Array($0.suffix.utf8) }
    static let typesWithoutSuffix = ["alert", "background", "mdm"]
    /// The headers read, in the order of the bits that mark them seen.
    static let names: [StaticString] = [
        "apns-id", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
        "authorization",
    ]

    /// The bit of a header `names` lists, compared on bytes without case (every header of
    /// every push passes here); nil for the others.
    static func bit(of name: String) -> Int? {
        let bit: Int
        switch name.utf8.count {
        case 7: bit = 0
        case 10: bit = 1
        case 14: bit = 2
        case 13: bit = Request.equalsLowercased(name, "authorization") ? 6 : 3
        case 15: bit = 4
        case 16: bit = 5
        default: return nil
        }
        return Request.equalsLowercased(name, names[bit]) ? bit : nil
    }

    /// Reads and checks the headers; `certificateTopic` stands in for a missing `apns-topic`.
    convenience init(_ request: Request, certificateTopic: String?) throws(APNsFailure) {
        try self.init(fields: request.headers, certificateTopic: certificateTopic)
    }

    /// APNs' verdict on headers FCM passes on from a v1 message's `apns.headers` (§E.2, §D.1):
    /// nil when APNs would take them. FCM sets the topic (the app's bundle id, with the suffix
    /// the push type needs) when the message does not.
    static func problem(passedOn fields: [(name: String, value: String)]) -> APNsReason? {
        let type = fields.last { Request.equalsLowercased($0.name, "apns-push-type") }?.value
        let suffix = type.flatMap(suffixIndex).map { typeSuffixes[$0].suffix } ?? ""
        do { _ = try APNsHeaders(fields: fields, certificateTopic: "app.set.by.fcm" + suffix) } catch { return error.reason }
        return nil
    }

    init(fields: [(name: String, value: String)], certificateTopic: String?) throws(APNsFailure) {
        var apnsID: String?
        var topic: String?
        var pushType: String?
        var priority: Int?
        var expiration: Int64?
        var collapseID: String?
        var authorization: String?
        var seen: UInt8 = 0
        for (rawName, value) in fields {
            guard let bit = Self.bit(of: rawName) else { continue }
            guard seen & (1 << bit) == 0 else { throw APNsFailure(.duplicateHeaders) }
            seen |= 1 << bit
            switch bit {
            case 0: apnsID = value
            case 1: topic = value
            case 2: pushType = value
            case 3:
                guard let p = Int(value) else { throw APNsFailure(.badPriority) }
                priority = p
            case 4:
                guard let e = Int64(value), e >= 0 else { throw APNsFailure(.badExpirationDate) }
                expiration = e
            case 5: collapseID = value
            default: authorization = value
            }
        }
        if let id = apnsID, !Self.isUUID(id) { throw APNsFailure(.badMessageId) }
        guard let topic = topic ?? certificateTopic else { throw APNsFailure(.missingTopic) }
        if let c = collapseID, c.utf8.count > 64 { throw APNsFailure(.badCollapseId) }
        if let p = priority, ![10, 5, 1].contains(p) { throw APNsFailure(.badPriority) }
        if let t = pushType, Self.suffixIndex(of: t) == nil, !Self.typesWithoutSuffix.contains(t) {
            throw APNsFailure(.invalidPushType)
        }
        guard !topic.isEmpty, topic.utf8.count <= 255, !topic.withBytes({ $0.contains(0x20) }) else {
            throw APNsFailure(.badTopic)
        }
        let type = pushType ?? "alert"
        // The topic's push-type suffix must be the one its push type needs (none for alert
        // and background); MDM topics come from the certificate and are taken as they are.
        let needed = Self.suffixIndex(of: type)
        let carried = Self.carriedSuffix(topic)
        if type != "mdm", carried != needed { throw APNsFailure(.badTopic) }
        // A background push must not claim immediate delivery (§E.2).
        if type == "background", priority == 10 { throw APNsFailure(.badPriority) }
        if let needed, carried == needed {
            bundleID = String(Substring(topic.utf8.dropLast(Self.suffixBytes[needed].count)))
        } else {
            bundleID = topic
        }
        self.apnsID = apnsID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.authorization = authorization
    }

    /// Where a push type is in `typeSuffixes`; nil for a type without a suffix.
    static func suffixIndex(of type: String) -> Int? {
        typeSuffixes.firstIndex { $0.type == type }
    }

    /// Which of `typeSuffixes` the topic ends with, byte for byte (String's `hasSuffix`
    /// compares grapheme clusters, which costs more and is not what a topic means).
    static func carriedSuffix(_ topic: String) -> Int? {
        topic.withBytes { t in
            suffixBytes.firstIndex { s in t.count >= s.count && t.last == s.last && t.suffix(s.count).elementsEqual(s) }
        }
    }

    /// 8-4-4-4-12 hex digits.
    static func isUUID(_ s: String) -> Bool {
        guard s.utf8.count == 36 else { return false }
        return s.withBytes { bytes in
            for (i, c) in bytes.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return false }
                } else {
                    guard isHexDigit(c) else { return false }
                }
            }
            return true
        }
    }

    static func isHexDigit(_ c: UInt8) -> Bool {
        let lower = c | 0x20
        return (c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x66)
    }
}

/// A provider API push's headers as read, and the push type they resolve to: what the device
/// is handed with the payload.
struct APNsPushDetails: MessageDetails {
    let headers: APNsHeaders
    let pushType: String

    func deviceHeaders(messageID: String) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = [("apns-push-type", pushType), ("apns-id", messageID)]
        if let v = headers.topic { out.append(("apns-topic", v)) }
        if let v = headers.priority { out.append(("apns-priority", String(v))) }
        if let v = headers.expiration { out.append(("apns-expiration", String(v))) }
        if let v = headers.collapseID { out.append(("apns-collapse-id", v)) }
        return out
    }
}
