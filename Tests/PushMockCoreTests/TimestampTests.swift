import Testing
@testable import PushMockCore

@Suite("Timestamps")
struct TimestampTests {
    @Test("RFC 3339 and day formatting match known instants", arguments: [
        (Timestamp(0), "1970-01-01T00:00:00.000000Z"),
        (Timestamp(951_782_400_000_001), "2000-02-29T00:00:00.000001Z"),
        (Timestamp(1_800_000_000_123_456), "2027-01-15T08:00:00.123456Z"),
        (Timestamp(-1), "1969-12-31T23:59:59.999999Z"),
    ])
    func formatting(_ t: Timestamp, _ text: String) {
        #expect(t.rfc3339 == text)
        #expect(t.day == String(text.prefix(10)))
    }
}
