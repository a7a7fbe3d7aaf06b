/// Appends compact JSON to a byte buffer without Foundation. Callers write keys and values
/// in order; the writer puts the commas and escapes strings. It owns its bytes
/// (`OwnedBytes`), so it cannot be copied.
public struct JSONWriter: ~Copyable {
    private var out: OwnedBytes
    /// Bit n is set while the container at depth n has no element yet (64 levels at most,
    /// beyond any document pushmock writes).
    private var isFirst: UInt64 = 0
    private var depth = 0
    /// True between a key and its value.
    private var afterKey = false

    public init(capacity: Int = 256) {
        out = OwnedBytes(capacity: capacity)
    }

    /// What has been written (a copy).
    public var bytes: [UInt8] { out.array }
    public var byteCount: Int { out.count }
    public var text: String { String(decoding: out.bytes, as: UTF8.self) }

    private mutating func putQuoted(_ s: String) { s.withBytes { out.appendQuoted($0) } }

    private mutating func prefix() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if isFirst & bit != 0 { isFirst &= ~bit } else { out.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        prefix()
        out.append(bracket)
        precondition(depth < 64, "JSONWriter nests at most 64 levels")
        isFirst |= 1 << UInt64(depth)
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        out.append(bracket)
    }

    /// Writes `"name":`; the next call writes its value.
    public mutating func key(_ name: JSONKey) {
        prefix()
        switch name.storage {
        case .literal(let s): out.appendQuoted(literal: s)
        case .text(let s): putQuoted(s)
        }
        out.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func string(_ s: String) {
        prefix()
        putQuoted(s)
    }
    /// A string value from its UTF-8 bytes.
    public mutating func string(bytes u: UnsafeBufferPointer<UInt8>) {
        prefix()
        out.appendQuoted(u)
    }
    /// One string value made of four parts, written without joining them first: parts
    /// written in the source, copied as they are (a debug build checks they need no escape),
    /// and the texts between them, escaped (`projects/`, a project id, `/messages/`, an id).
    public mutating func string(joining a: StaticString, _ b: String, _ c: StaticString, _ d: String) {
        assert(!Self.needsEscape(a.utf8Bytes) && !Self.needsEscape(c.utf8Bytes), "a part written in the source needs no escape")
        prefix()
        out.append(UInt8(ascii: "\""))
        out.append(a)
        b.withBytes { out.appendEscaped($0) }
        out.append(c)
        d.withBytes { out.appendEscaped($0) }
        out.append(UInt8(ascii: "\""))
    }
    public mutating func int(_ n: Int) {
        prefix()
        out.appendDecimal(Int64(n))
    }
    public mutating func int64(_ n: Int64) {
        prefix()
        out.appendDecimal(n)
    }
    /// A finite number; whole ones are written without a fraction.
    public mutating func double(_ d: Double) {
        if d.rounded() == d, abs(d) < 1e15 { int(Int(d)) } else { raw(String(d)) }
    }
    public mutating func bool(_ b: Bool) {
        prefix()
        out.append(b ? "true" : "false")
    }
    public mutating func null() {
        prefix()
        out.append("null")
    }
    /// Writes already-encoded JSON as one value.
    public mutating func raw(_ json: String) {
        prefix()
        json.withBytes { out.append($0) }
    }
    public mutating func raw(_ json: [UInt8]) {
        prefix()
        out.append(json)
    }
    /// A value this writer wrote before (its bytes from one `byteCount` to a later one),
    /// written again.
    public mutating func raw(repeating range: Range<Int>) {
        prefix()
        out.repeatBytes(range)
    }
    /// Members of the open object this writer wrote before, each after its comma (the bytes
    /// from one `byteCount` to a later one, taken where the object already had a member),
    /// written again.
    public mutating func members(repeating range: Range<Int>) {
        precondition(!afterKey && depth > 0 && isFirst & (1 << UInt64(depth - 1)) == 0, "members follow another")
        out.repeatBytes(range)
    }
    /// Another writer's JSON as one value.
    public mutating func raw(_ other: borrowing JSONWriter) {
        prefix()
        out.append(other.out.bytes)
    }

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
            for entry in o.entries {
                key(JSONKey(entry.key))
                value(entry.value)
            }
            endObject()
        }
    }

    public mutating func member(_ name: JSONKey, _ s: String) {
        key(name)
        string(s)
    }
    public mutating func member(_ name: JSONKey, _ n: Int) {
        key(name)
        int(n)
    }
    public mutating func member(_ name: JSONKey, _ b: Bool) {
        key(name)
        bool(b)
    }
    public mutating func member(_ name: JSONKey, _ v: JSONValue) {
        key(name)
        value(v)
    }

    /// `"name": ` and the value `body` writes.
    public mutating func member(_ name: JSONKey, _ body: (inout JSONWriter) -> Void) {
        key(name)
        body(&self)
    }

    /// `"name": [...]`, the elements written by `body`.
    public mutating func array(_ name: JSONKey, _ body: (inout JSONWriter) -> Void) {
        key(name)
        beginArray()
        body(&self)
        endArray()
    }

    /// `"name": ["a", "b", ...]`.
    public mutating func array(_ name: JSONKey, strings: some Sequence<String>) {
        array(name) { w in for s in strings { w.string(s) } }
    }

    /// `{...}`, the members written by `body`.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    public mutating func member(_ name: JSONKey, ifPresent s: String?) { if let s { member(name, s) } }

    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendInt(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        DecimalDigits.append(n.magnitude, to: &out)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Whether any byte is a quote, a backslash or a control character (bytes from 0x80 pass:
    /// UTF-8 is written as it is).
    /// Eight bytes at a time; the last word read ends with the last byte (it may overlap the
    /// one before), so there is no tail to scan a byte at a time.
    public static func needsEscape(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = u.baseAddress, u.count >= 8 else {
            return u.contains(where: needsEscape(byte:))
        }
        var i = 0
        while i + 8 <= u.count {
            if ByteWord.needsEscape(ByteWord.load(base + i)) { return true }
            i += 8
        }
        return i < u.count && ByteWord.needsEscape(ByteWord.load(base + u.count - 8))
    }

    /// Whether one byte needs an escape in a JSON string: a quote, a backslash or a control
    /// character.
    @inline(__always)
    static func needsEscape(byte c: UInt8) -> Bool { c < 0x20 || c == 0x22 || c == 0x5C }

    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(s, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    public static func appendQuoted(bytes u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(bytes: u, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The string's bytes with JSON's escapes, without quotes.
    static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        s.withBytes { appendEscaped(bytes: $0, to: &out) }
    }

    static func appendEscaped(bytes u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        // Most strings need no escape: found eight bytes at a time, then copied at once.
        guard needsEscape(u) else { return out.append(contentsOf: u) }
        var start = 0
        for i in 0..<u.count {
            let c = u[i]
            guard needsEscape(byte: c) else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i]))
            // Byte by byte, so an escape allocates nothing.
            out.append(0x5C)
            switch c {
            case 0x22, 0x5C: out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(0x30)
                out.append(0x30)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            }
            start = i + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start...]))
    }
}
