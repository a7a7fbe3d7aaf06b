/// FCM topic names: `[a-zA-Z0-9-_.~%]+`, optionally written with the `/topics/` prefix.
public enum Topic {
    public static let prefix = "/topics/"

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

    /// The bare name of `/topics/name` or `name`.
    public static func bareName(_ s: String) -> String {
        s.hasPrefix(prefix) ? String(s.dropFirst(prefix.count)) : s
    }

    /// Topics per app instance (docs/reference/topics.md §C.5).
    public static let maxPerInstance = 2000
}
