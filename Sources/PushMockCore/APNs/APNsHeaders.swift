/// The `apns-*` request headers of one push, checked in the order Pushy's mock server uses
/// (protocol.md §E.2, §E.4). Kept with the accepted message, as the device sees them.
public struct APNsHeaders: Sendable {
    public var apnsID: String?
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    /// UNIX seconds; 0 means one attempt only.
    public var expiration: Int64?
    public var collapseID: String?
    var authorization: String?

    /// The suffix `apns-topic` carries for each push type that needs one.
    static let topicSuffixes: [String: String] = [
        "voip": ".voip", "complication": ".complication", "fileprovider": ".pushkit.fileprovider",
        "liveactivity": ".push-type.liveactivity", "location": ".location-query", "pushtotalk": ".voip-ptt",
        "widgets": ".push-type.widgets", "controls": ".push-type.controls",
    ]
    static let pushTypes: Set<String> = Set(topicSuffixes.keys).union(["alert", "background", "mdm"])
    /// The headers read, in the order of the bits that mark them seen.
    static let names = ["apns-id", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
                        "authorization"]

    /// Reads and checks the headers; `certificateTopic` stands in for a missing `apns-topic`.
    init(_ request: Request, certificateTopic: String?) throws(APNsFailure) {
        var seen: UInt8 = 0
        for (rawName, value) in request.headers {
            // HTTP/2 names arrive lower-case; lower-case others only when needed.
            let name = rawName.utf8.contains { $0 >= 0x41 && $0 <= 0x5A } ? rawName.lowercased() : rawName
            guard let bit = Self.names.firstIndex(of: name) else { continue }
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
        if topic == nil { topic = certificateTopic }
        guard let topic else { throw APNsFailure(.missingTopic) }
        if let c = collapseID, c.utf8.count > 64 { throw APNsFailure(.badCollapseId) }
        if let p = priority, ![10, 5, 1].contains(p) { throw APNsFailure(.badPriority) }
        if let t = pushType, !Self.pushTypes.contains(t) { throw APNsFailure(.invalidPushType) }
        guard !topic.isEmpty, topic.utf8.count <= 255, !topic.contains(" ") else { throw APNsFailure(.badTopic) }
        let type = pushType ?? "alert"
        // The topic's push-type suffix must be the one its push type needs (none for alert
        // and background); MDM topics come from the certificate and are taken as they are.
        if type != "mdm" {
            let carried = Self.topicSuffixes.values.first { Self.endsWith(topic, $0) }
            if carried != Self.topicSuffixes[type] { throw APNsFailure(.badTopic) }
        }
        // A background push must not claim immediate delivery (§E.2).
        if type == "background", priority == 10 { throw APNsFailure(.badPriority) }
    }

    /// The bundle id a topic addresses: the topic without its push-type suffix.
    var bundleID: String {
        guard let topic else { return "" }
        if let suffix = pushType.flatMap({ Self.topicSuffixes[$0] }), Self.endsWith(topic, suffix) {
            return String(topic.dropLast(suffix.count))
        }
        return topic
    }

    /// Whether `s` ends with `suffix`, byte for byte (String's `hasSuffix` compares
    /// grapheme clusters, which costs more and is not what a topic means).
    static func endsWith(_ s: String, _ suffix: String) -> Bool {
        let a = s.utf8, b = suffix.utf8
        guard a.count >= b.count else { return false }
        var i = a.index(a.endIndex, offsetBy: -b.count)
        for c in b {
            if a[i] != c { return false }
            i = a.index(after: i)
        }
        return true
    }

    /// 8-4-4-4-12 hex digits.
    static func isUUID(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard bytes.count == 36 else { return false }
        for (i, c) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(c) || (0x61...0x66).contains(c) || (0x41...0x46).contains(c) else { return false }
            }
        }
        return true
    }

    /// Whether `token` is a hex device token (Pushy: 64 hex digits).
    static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
    }
}
