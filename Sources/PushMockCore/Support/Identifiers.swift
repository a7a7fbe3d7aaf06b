/// How pushmock mints the identifiers real FCM and APNs hand out, in their observed shapes
/// (docs/reference/fcm-legacy.md §A.8, §D.2): FIDs, registration tokens, APNs device tokens, message ids.
public enum Identifiers {
    /// A Firebase installation ID: 22 URL-safe base64 characters whose first four bits are
    /// `0111`, so it starts with c, d, e or f.
    public static func fid(_ random: RandomSource) -> String {
        random.base64URL(after: fidFirst[Int(random.next() % 4)], 21)
    }

    private static let fidFirst = ["c", "d", "e", "f"]

    /// A registration token as the current SDKs get it: `<fid>:APA91b` then 134 characters.
    public static func registrationToken(fid: String, _ random: RandomSource) -> String {
        random.base64URL(after: fid, 0, then: ":APA91b", 134)
    }

    /// A registration token that begins with a new FID (its part before the colon): drawn as
    /// `fid` then `registrationToken(fid:)`, made as one string.
    public static func registrationTokenWithNewFID(_ random: RandomSource) -> String {
        random.base64URL(after: fidFirst[Int(random.next() % 4)], 21, then: ":APA91b", 134)
    }

    /// An APNs device token: 32 bytes as 64 hex digits.
    public static func apnsToken(_ random: RandomSource) -> String { random.hex(64) }

    /// A lower-case version-4 UUID, the form of `apns-id` and `apns-unique-id`: 32 random
    /// hex digits, eight at a time, then the version digit (4) and the variant digit (8–b)
    /// set, in the 8-4-4-4-12 layout.
    public static func uuid(_ random: RandomSource) -> String {
        let a = random.next()
        let b = random.next()
        return withUnsafeTemporaryAllocation(byteCount: 68, alignment: 8) { raw in
            let digits = raw.baseAddress!
            let out = raw.baseAddress! + 32
            func digits8(_ bits: UInt64, at offset: Int) {
                digits.storeBytes(of: hexDigits(UInt32(truncatingIfNeeded: bits)), toByteOffset: offset, as: UInt64.self)
            }
            digits8(a, at: 0)
            digits8(a >> 32, at: 8)
            digits8(b, at: 16)
            digits8(b >> 32, at: 24)
            func copy(_ from: Int, to: Int, _ count: Int) { (out + to).copyMemory(from: digits + from, byteCount: count) }
            copy(0, to: 0, 8)
            copy(8, to: 9, 4)
            copy(12, to: 14, 4)
            copy(16, to: 19, 4)
            copy(20, to: 24, 12)
            for dash in stride(from: 8, through: 23, by: 5) {
                out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: dash, as: UInt8.self)
            }
            out.storeBytes(of: UInt8(ascii: "4"), toByteOffset: 14, as: UInt8.self)
            let variant = UInt8(truncatingIfNeeded: b >> 62) // 8, 9, a or b
            out.storeBytes(
                of: variant < 2 ? UInt8(ascii: "8") + variant : UInt8(ascii: "a") + variant - 2, toByteOffset: 19, as: UInt8.self)
            return String(decoding: UnsafeRawBufferPointer(start: out, count: 36), as: UTF8.self)
        }
    }

    /// Eight lower-case hex digits of `bits` as eight ASCII bytes, computed together: each
    /// nibble spread to its own byte, then shifted to '0'…'9' or 'a'…'f'.
    static func hexDigits(_ bits: UInt32) -> UInt64 {
        var x = UInt64(bits)
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    /// A stable 10-character Apple team id for a project (upper-case letters and digits).
    public static func teamID(for projectID: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        var h = stableHash("team:" + projectID)
        var out = [UInt8]()
        for _ in 0..<10 {
            out.append(alphabet[Int(h % 36)])
            h /= 36
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `token` has the shape of a registration token (current `<fid>:APA91b…` form or
    /// the older bare `APA91b…` form). Tokens of that shape that pushmock never issued answer
    /// NotRegistered; anything else is InvalidRegistration (docs/fcm-legacy.md).
    public static func looksLikeRegistrationToken(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        guard bytes.count >= 100, bytes.count <= 4096 else { return false }
        var colons = 0
        for c in bytes {
            switch c {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: continue
            case 0x3A: colons += 1
            default: return false
            }
        }
        return colons <= 1
    }

    /// FNV-1a, for stable numbers derived from names (project numbers, id suffixes).
    public static func stableHash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for c in s.utf8 { h = (h ^ UInt64(c)) &* 0x100_0000_01B3 }
        return h
    }

    /// A 12-digit project number (sender id) derived from the project id.
    public static func projectNumber(for projectID: String) -> Int64 {
        Int64(100_000_000_000 + stableHash(projectID) % 900_000_000_000)
    }
}
