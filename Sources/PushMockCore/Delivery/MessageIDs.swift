/// Message ids in FCM's observed shapes (docs/reference/fcm-legacy.md §A.8): per-recipient
/// `0:<16-digit µs timestamp>%<16 hex>`, topic ids and multicast ids as 19-digit integers.
/// The timestamp part only moves forward, so ids are unique within a run. APNs' ids are
/// UUIDs.
final class MessageIDs {
    private var lastMicros: Int64 = 0
    private var lastBulk: Int64 = 0
    private let suffix: String
    private let random: RandomSource

    init(random: RandomSource) {
        self.random = random
        let half = random.hex(8)
        suffix = half + half
    }

    /// A random UUID, in upper case (`apns-id`, `apns-unique-id`).
    func uuid() -> String { Identifiers.uuid(random) }

    private func nextMicros() -> Int64 {
        lastMicros = max(lastMicros + 1, Clock.wallNow())
        return lastMicros
    }

    /// `0:1500415314455276%31bd1c9631bd1c96`, built in one buffer.
    func recipient() -> String {
        var bytes: [UInt8] = [UInt8(ascii: "0"), UInt8(ascii: ":")]
        bytes.reserveCapacity(40)
        JSONWriter.appendInt(nextMicros(), to: &bytes)
        bytes.append(UInt8(ascii: "%"))
        bytes.append(contentsOf: suffix.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A topic `message_id` or `multicast_id`: a 19-digit integer.
    func bulk() -> Int64 {
        lastBulk = max(lastBulk + 1, Clock.wallNow() * 1000)
        return lastBulk
    }
}
