/// How pushmock mints the identifiers real FCM and APNs hand out, in their observed shapes
/// (protocol.md §A.8, §D.2): FIDs, registration tokens, APNs device tokens, message ids.
public enum Identifiers {
    /// A Firebase installation ID: 22 URL-safe base64 characters whose first four bits are
    /// `0111`, so it starts with c, d, e or f.
    public static func fid(_ random: inout RandomSource) -> String {
        let first = Array("cdef".utf8)[Int(random.next() % 4)]
        return String(decoding: [first], as: UTF8.self) + random.base64URL(21)
    }

    /// A registration token as the current SDKs get it: `<fid>:APA91b` then 134 characters.
    public static func registrationToken(fid: String, _ random: inout RandomSource) -> String {
        fid + ":APA91b" + random.base64URL(134)
    }

    /// An APNs device token: 32 bytes as 64 hex digits.
    public static func apnsToken(_ random: inout RandomSource) -> String { random.hex(64) }

    /// A lower-case version-4 UUID, the form of `apns-id` and `apns-unique-id`.
    public static func uuid(_ random: inout RandomSource) -> String {
        func hex(_ n: UInt64) -> UInt8 { n < 10 ? 0x30 + UInt8(n) : 0x57 + UInt8(n) }
        var bits = (random.next(), random.next())
        // Written to the stack and decoded (String's uninitialized-capacity initializer
        // validates on a slower path).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            var n = 0
            for i in 0..<32 {
                if i == 8 || i == 12 || i == 16 || i == 20 { out[n] = UInt8(ascii: "-"); n += 1 }
                let nibble = i < 16 ? bits.0 & 15 : bits.1 & 15
                if i < 16 { bits.0 >>= 4 } else { bits.1 >>= 4 }
                // Version 4, variant 10xx.
                out[n] = i == 12 ? UInt8(ascii: "4") : i == 16 ? hex(8 + nibble % 4) : hex(nibble)
                n += 1
            }
            return String(decoding: UnsafeBufferPointer(out), as: UTF8.self)
        }
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
