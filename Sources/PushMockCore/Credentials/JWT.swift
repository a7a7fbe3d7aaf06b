import Foundation

/// A compact JWS (`header.payload.signature`), decoded but not yet verified.
struct JWT {
    let header: JSONObject
    let claims: JSONObject
    /// The bytes the signature covers: `base64url(header) "." base64url(payload)`.
    let signedPart: [UInt8]
    let signature: [UInt8]

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let h = Base64URL.decode(parts[0]), let p = Base64URL.decode(parts[1]), let s = Base64URL.decode(parts[2]),
            let header = (try? JSONParser.parse(h))?.objectValue, let claims = (try? JSONParser.parse(p))?.objectValue
        else { return nil }
        self.header = header
        self.claims = claims
        signedPart = Array(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        signature = s
    }

    /// A time claim in seconds: clients send integers, floats or numeric strings. A value
    /// outside the times pushmock represents (`Timestamp.representable`) is no time at all.
    func seconds(_ name: String) -> Double? {
        let value: Double? =
            switch claims[name] {
            case .number(let n)?: n.double
            case .string(let s)?: Double(s)
            default: nil
            }
        guard let value, value.isFinite, abs(value) <= Self.mostSeconds else { return nil }
        return value
    }

    private static let mostSeconds = Double(Timestamp.latest / 1_000_000)
}
