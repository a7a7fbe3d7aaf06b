/// FCM topic names: `[a-zA-Z0-9-_.~%]+`, optionally written with the `/topics/` prefix.
public enum Topic {
    public static let prefix = prefixBytes.description
    private static let prefixBytes: StaticString = "/topics/"

    /// Whether `s` begins with `/topics/`, compared on bytes (String's `hasPrefix` compares
    /// grapheme clusters, which costs more on every legacy send and is not what a prefix means).
    public static func isPrefixed(_ s: String) -> Bool { s.hasBytePrefix(prefixBytes) }

    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 900 else { return false }
        for c in name.utf8 {
            switch c {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E, 0x7E, 0x25: continue
            default: return false
            }
        }
        return true
    }

    /// The bare name of `/topics/name` or `name`: the prefix's bytes taken off (not its count
    /// of Characters, which would take a combining mark after the slash with it).
    public static func bareName(_ s: String) -> String {
        isPrefixed(s) ? String(Substring(s.utf8.dropFirst(prefixBytes.utf8CodeUnitCount))) : s
    }

    /// Topics per app instance (docs/reference/topics.md §C.5).
    public static let maxPerInstance = 2000
}
