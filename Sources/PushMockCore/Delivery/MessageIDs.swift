/// Message ids in FCM's observed shapes (docs/reference/fcm-legacy.md §A.8): per-recipient
/// `0:<16-digit µs timestamp>%<16 hex>`, topic ids and multicast ids as 19-digit integers.
/// The timestamp part is the wall clock's time of the request (`Clock.wallTime`) and only
/// moves forward, so ids are unique within a run. APNs' ids are UUIDs.
final class MessageIDs {
    private var lastMicros: Int64 = 0
    private var lastBulk: Int64 = 0
    /// The id's last 16 characters, the same for the whole run.
    private let suffix: [UInt8]
    private let random: RandomSource
    private let clock: Clock

    init(random: RandomSource, clock: Clock) {
        self.random = random
        self.clock = clock
        let half = random.hex(8)
        suffix = Array((half + half).utf8)
    }

    /// A random UUID, in upper case (`apns-id`, `apns-unique-id`).
    func uuid() -> String { Identifiers.uuid(random) }

    private func nextMicros() -> Int64 {
        lastMicros = max(lastMicros + 1, clock.wallTime())
        return lastMicros
    }

    /// `0:1500415314455276%31bd1c9631bd1c96`, written on the stack and made a String once
    /// (every accepted token send takes one).
    func recipient() -> String {
        let micros = UInt64(nextMicros())
        let digits = DecimalDigits.count(micros)
        let length = 3 + digits + suffix.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { out in
            out[0] = UInt8(ascii: "0")
            out[1] = UInt8(ascii: ":")
            _ = DecimalDigits.write(micros, endingAt: 2 + digits, in: out)
            out[2 + digits] = UInt8(ascii: "%")
            suffix.withUnsafeBufferPointer { (out.baseAddress! + 3 + digits).update(from: $0.baseAddress!, count: $0.count) }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// A topic `message_id` or `multicast_id`: a 19-digit integer.
    func bulk() -> Int64 {
        lastBulk = max(lastBulk + 1, clock.wallTime() * 1000)
        return lastBulk
    }
}
