import Foundation

/// Microseconds since the Unix epoch: the one time unit inside pushmock.
public typealias Timestamp = Int64

/// The gateway's one source of time. `system` reads the wall clock; `manual` stands still
/// until a test or the control API advances it, so TTLs and expiry are testable without sleeping.
public final class Clock {
    public enum Mode: String, Sendable { case system, manual }

    public let mode: Mode
    /// Guarded by the loop thread, like all gateway state.
    private var manualNow: Timestamp

    public init(mode: Mode, start: Timestamp? = nil) {
        self.mode = mode
        self.manualNow = start ?? Clock.wallNow()
    }

    /// Set while a request is handled: one time for all it does.
    private var requestTime: Timestamp?

    public func now() -> Timestamp {
        if let requestTime { return requestTime }
        return mode == .manual ? manualNow : Clock.wallNow()
    }

    /// The wall clock's time, whatever a manual clock says, for what carries it (message ids):
    /// on the system clock while a request is handled, the time it started, read once.
    func wallTime() -> Timestamp {
        if mode == .system, let requestTime { return requestTime }
        return Clock.wallNow()
    }

    /// Runs `body` with `now()` answering the time it started: everything one request does
    /// (a push accepted, delivered and displayed) happens at one time, read once, as
    /// FCM's log shows a send's events; and a restart puts its saved state back at one time.
    func pinned<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        if requestTime != nil { return try body() }
        requestTime = now()
        defer { requestTime = nil }
        return try body()
    }

    /// The most a manual clock can move forward from now, in seconds: to `Timestamp.latest`.
    public var secondsLeft: Double { Double(Timestamp.latest - now()) / 1_000_000 }

    /// Moves a manual clock forward, by at most `secondsLeft`; a system clock cannot be moved.
    @discardableResult
    public func advance(seconds: Double) -> Bool {
        guard mode == .manual else { return false }
        precondition(seconds >= 0 && seconds <= secondsLeft, "the caller bounds the step")
        manualNow = min(Timestamp.latest, manualNow + Timestamp(seconds * 1_000_000))
        if requestTime != nil { requestTime = manualNow }
        return true
    }

    /// Microseconds since 1970 from the system clock (clock_gettime, without Foundation).
    public static func wallNow() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(ts.tv_sec) * 1_000_000 + Timestamp(ts.tv_nsec / 1000)
    }
}

extension Timestamp {
    /// The range of times pushmock represents: RFC 3339's and protobuf's, years 1 to 9999.
    /// A clock, a restored event or a request's time outside it is refused where it is read,
    /// so arithmetic on times (expiry, days, token ages) never overflows.
    public static let earliest: Timestamp = -62_135_596_800_000_000
    public static let latest: Timestamp = 253_402_300_799_999_999
    public static let representable = earliest...latest

    public var seconds: Int64 { self / 1_000_000 }

    /// RFC 3339 with microseconds in UTC, e.g. `2026-11-29T12:00:00.123456Z`, built without
    /// DateFormatter.
    public var rfc3339: String { withRFC3339 { String(decoding: $0, as: UTF8.self) } }

    /// `rfc3339`'s bytes, lent to `body` (a writer copies them without a String between).
    public func withRFC3339<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let secs = Int(self.floorDiv(1_000_000))
        // Wrapping arithmetic: exact, since the result is in 0..<1_000_000 (for Int64.min too).
        let micros = Int(self &- Int64(secs) &* 1_000_000)
        let (y, m, d) = Self.civil(days: secs.floorDiv(86_400))
        let daySecs = secs - secs.floorDiv(86_400) * 86_400
        // Digits written in place: every event's JSON carries one of these. A year outside
        // 0…9999 is written as it is, padded to four characters as the others are to theirs.
        let year = (0...9999).contains(y) ? nil : Self.pad(y, 4)
        let count = 23 + (year?.utf8.count ?? 4)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { out in
            var at = 0
            func put(_ n: Int, _ width: Int, then separator: UInt8) {
                var v = n
                for k in stride(from: width - 1, through: 0, by: -1) {
                    out[at + k] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
                out[at + width] = separator
                at += width + 1
            }
            if let year {
                for c in year.utf8 {
                    out[at] = c
                    at += 1
                }
                out[at] = UInt8(ascii: "-")
                at += 1
            } else {
                put(y, 4, then: UInt8(ascii: "-"))
            }
            put(m, 2, then: UInt8(ascii: "-"))
            put(d, 2, then: UInt8(ascii: "T"))
            put(daySecs / 3600, 2, then: UInt8(ascii: ":"))
            put(daySecs / 60 % 60, 2, then: UInt8(ascii: ":"))
            put(daySecs % 60, 2, then: UInt8(ascii: "."))
            put(micros, 6, then: UInt8(ascii: "Z"))
            return body(UnsafeBufferPointer(rebasing: out[..<at]))
        }
    }

    /// Whole days since 1970-01-01 (UTC): cheap to compare, unlike `day`.
    public var dayNumber: Int { Int(self.floorDiv(1_000_000)).floorDiv(86_400) }

    /// The day number of a `YYYY-MM-DD` date, or nil when it is not one.
    public static func dayNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        // Inverse of `civil` (H. Hinnant's days_from_civil).
        let yy = m <= 2 ? y - 1 : y
        let era = yy.floorDiv(400)
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD` in UTC.
    public var day: String {
        let (y, m, d) = Self.civil(days: Int(self.floorDiv(1_000_000)).floorDiv(86_400))
        return "\(Self.pad(y, 4))-\(Self.pad(m, 2))-\(Self.pad(d, 2))"
    }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Howard Hinnant's days-from-civil inverse.
    private static func civil(days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension BinaryInteger {
    func floorDiv(_ d: Self) -> Self {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}

/// Nanoseconds on a clock that never steps: for durations (request timing, the transport's
/// deadlines), never for event times.
public enum MonotonicClock {
    public static func nanos() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// The same clock as of its last tick (a few milliseconds behind, never ahead), read without
    /// the time stamp counter: for deadlines, which a sweep checks each second (`now > deadline`).
    public static func coarseNanos() -> UInt64 { read(CLOCK_MONOTONIC_COARSE) }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
