/// Appends compact JSON to a String without Foundation. Callers write keys and values in
/// order; the writer puts the commas and escapes strings.
public struct JSONWriter {
    public private(set) var text: String
    /// One entry per open container: true until its first element is written.
    private var isFirst: [Bool] = []
    /// True between a key and its value.
    private var afterKey = false

    public init(capacity: Int = 256) {
        text = ""
        text.reserveCapacity(capacity)
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    private mutating func prefix() {
        if afterKey { afterKey = false; return }
        guard let first = isFirst.last else { return }
        if first { isFirst[isFirst.count - 1] = false } else { text.append(",") }
    }

    public mutating func beginObject() { prefix(); text.append("{"); isFirst.append(true) }
    public mutating func endObject() { isFirst.removeLast(); text.append("}") }
    public mutating func beginArray() { prefix(); text.append("["); isFirst.append(true) }
    public mutating func endArray() { isFirst.removeLast(); text.append("]") }

    /// Writes `"name":`; the next call writes its value.
    public mutating func key(_ name: String) {
        prefix()
        Self.appendQuoted(name, to: &text)
        text.append(":")
        afterKey = true
    }

    public mutating func string(_ s: String) { prefix(); Self.appendQuoted(s, to: &text) }
    public mutating func int(_ n: Int) { prefix(); text.append(String(n)) }
    public mutating func bool(_ b: Bool) { prefix(); text.append(b ? "true" : "false") }
    public mutating func null() { prefix(); text.append("null") }
    /// Writes already-encoded JSON as one value.
    public mutating func raw(_ json: String) { prefix(); text.append(json) }

    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): raw(n.text)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let o):
            beginObject()
            for (k, item) in o.entries { key(k); value(item) }
            endObject()
        }
    }

    public mutating func member(_ name: String, _ s: String) { key(name); string(s) }
    public mutating func member(_ name: String, _ n: Int) { key(name); int(n) }
    public mutating func member(_ name: String, _ b: Bool) { key(name); bool(b) }
    public mutating func member(_ name: String, _ v: JSONValue) { key(name); value(v) }
    public mutating func member(_ name: String, ifPresent s: String?) { if let s { member(name, s) } }

    public static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    public static func appendQuoted(_ s: String, to out: inout String) {
        out.append("\"")
        var plain = true
        for c in s.utf8 where c < 0x20 || c == 0x22 || c == 0x5C { plain = false; break }
        if plain { out.append(s); out.append("\""); return }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }
}
