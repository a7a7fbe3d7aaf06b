import Testing

@testable import PushMockCore

@Suite("Timestamps")
struct TimestampTests {
    @Test(
        "RFC 3339 and day formatting match known instants",
        arguments: [
            (Timestamp(0), "1970-01-01T00:00:00.000000Z"),
            (Timestamp(951_782_400_000_001), "2000-02-29T00:00:00.000001Z"),
            (Timestamp(1_800_000_000_123_456), "2027-01-15T08:00:00.123456Z"),
            (Timestamp(-1), "1969-12-31T23:59:59.999999Z"),
            (Timestamp(253_402_300_799_999_999), "9999-12-31T23:59:59.999999Z"),
            (Timestamp(253_402_300_800_000_000), "10000-01-01T00:00:00.000000Z"),
        ])
    func formatting(_ t: Timestamp, _ text: String) {
        #expect(t.rfc3339 == text)
        #expect(t.day == String(text.prefix { $0 != "T" }))
    }

    @Test("day numbers round-trip with YYYY-MM-DD dates across leap years; bad dates are refused")
    func dayNumbers() throws {
        #expect(Timestamp.dayNumber("1970-01-01") == 0)
        for day in stride(from: -800, to: 40_000, by: 17) {
            let text = (Timestamp(day) * 86_400 * 1_000_000).day
            #expect(Timestamp.dayNumber(text) == day, "\(text)")
        }
        #expect(Timestamp.dayNumber("2024-02-29").map { (Timestamp($0) * 86_400_000_000).day } == "2024-02-29")
        for bad in ["2024-13-01", "2024-1-01", "yesterday", "2024-00-10"] { #expect(Timestamp.dayNumber(bad) == nil) }
    }
}
