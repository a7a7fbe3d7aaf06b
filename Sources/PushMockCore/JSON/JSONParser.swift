import Glibc

/// Why a body is not JSON, with the 0-based byte offset FCM's texts report.
public struct JSONParseError: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case unexpectedCharacter(UInt8)
        case unexpectedEnd, tooDeep, invalidUTF8
        /// A `\uD800`-`\uDFFF` escape without its other half: no Unicode text holds it.
        case loneSurrogate
    }
    public let kind: Kind
    public let position: Int
}

/// A strict RFC 8259 parser over bytes: no comments, no trailing commas, bounded nesting,
/// strings must be valid UTF-8. Numbers keep their text.
public struct JSONParser {
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buf) throws(JSONParseError) -> JSONValue in
            var p = JSONParser(buf)
            p.skipSpace()
            let value = try p.value(depth: 0)
            p.skipSpace()
            if p.i < buf.count { throw p.fail() }
            return value
        }
    }

    /// A member of an object read shallowly: its name, and its value if a scalar. (A struct, not
    /// a tuple: an array of tuples is freed element by element through the run time's generic
    /// tuple code.)
    public struct ShallowMember {
        public let key: String
        public let scalar: JSONValue?
    }

    /// The members of the object at top-level `key` in `bytes`, which must be valid JSON as a
    /// whole: names in order, scalar values built, nested objects and arrays only checked
    /// (nil). Nil when `bytes` is not an object or `key` does not name an object (the last
    /// one, if repeated). Top-level names are compared with `key` on their bytes.
    public static func members(of key: StaticString, in bytes: [UInt8]) -> [ShallowMember]? {
        bytes.withUnsafeBufferPointer { buf -> [ShallowMember]? in
            var p = JSONParser(buf)
            p.skipSpace()
            guard p.i < buf.count, buf[p.i] == UInt8(ascii: "{") else { return nil }
            do throws(JSONParseError) {
                var found: [ShallowMember]?
                try p.eachMember(name: { p throws(JSONParseError) in try p.stringSpells(key) }) {
                    p, isKey throws(JSONParseError) in
                    if isKey { found = try p.shallowObject() } else { try p.skipValue(depth: 1) }
                }
                p.skipSpace()
                return p.i < buf.count ? nil : found
            } catch {
                return nil
            }
        }
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    // Internal, not private: the pull reading in JSONParser+Reading.swift walks the same bytes.
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    func fail() -> JSONParseError {
        i < b.count
            ? JSONParseError(kind: .unexpectedCharacter(b[i]), position: i)
            : JSONParseError(kind: .unexpectedEnd, position: i)
    }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard i < b.count else { throw fail() }
        switch b[i] {
        case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail()
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        for c in word.utf8Bytes {
            guard i < b.count, b[i] == c else { throw fail() }
            i += 1
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONObject {
        if depth > Self.maxDepth { throw JSONParseError(kind: .tooDeep, position: i) }
        i += 1
        var entries: [JSONObject.Entry] = []
        entries.reserveCapacity(8)
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return JSONObject(entries)
        }
        while true {
            let key = try memberName()
            entries.append(JSONObject.Entry(key, try value(depth: depth)))
            if try objectEnds() { return JSONObject(entries) }
        }
    }

    /// A member's name and its colon, and the space after. (Inlined: it is on every request.)
    @inline(__always)
    private mutating func memberName() throws(JSONParseError) -> String {
        try memberName { p throws(JSONParseError) in try p.string() }
    }

    /// A member's name as `read` reads it (from its opening quote), and the colon after it.
    /// (Internal: the schema reader, ProtoJSON+Bytes.swift, reads names its own way.)
    @inline(__always)
    mutating func memberName<Name>(
        _ read: (inout JSONParser) throws(JSONParseError) -> Name
    ) throws(JSONParseError) -> Name {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail() }
        let name = try read(&self)
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail() }
        i += 1
        skipSpace()
        return name
    }

    /// Reads the string at `i` (its opening quote): whether it spells `text`. Bytes that need
    /// no decoding are compared where they lie; a string with escapes or non-ASCII bytes is
    /// decoded first, so it matches as its text does.
    mutating func stringSpells(_ text: StaticString) throws(JSONParseError) -> Bool {
        if let bytes = plainString() {
            return bytes.count == text.utf8CodeUnitCount && sameBytes(bytes.baseAddress!, text.utf8Start, count: bytes.count)
        }
        return try string().hasBytes(text.utf8Bytes)
    }

    /// The bytes of the string at `i` (its opening quote) when they need no decoding (ASCII,
    /// no escape), with the reader past its closing quote; nil, the reader where it was, for
    /// a string `string()` must decode (or one that does not end).
    @inline(__always)
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        let j = plainASCIIEnd(from: i + 1)
        guard j < b.count, b[j] == UInt8(ascii: "\"") else { return nil }
        let bytes = UnsafeBufferPointer(rebasing: b[(i + 1)..<j])
        i = j + 1
        return bytes
    }

    /// After a member's value: true at the object's `}`, false at the `,` before another.
    @inline(__always)
    mutating func objectEnds() throws(JSONParseError) -> Bool {
        skipSpace()
        guard i < b.count else { throw fail() }
        if b[i] == UInt8(ascii: ",") {
            i += 1
            return false
        }
        guard b[i] == UInt8(ascii: "}") else { throw fail() }
        i += 1
        return true
    }

    /// Walks the object at `i`, handing each member's name to `body`, which must consume the
    /// value. (`object(depth:)`, on every request, walks its own loop without the closure; both
    /// share the member's name and end.)
    mutating func eachMember(_ body: (inout JSONParser, String) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try eachMember(name: { p throws(JSONParseError) in try p.string() }, body)
    }

    /// As `eachMember(_:)`, each name read by `read` (from its opening quote): a reader may
    /// match names on their bytes (`readMembers(_:_:)`).
    @inline(__always)
    mutating func eachMember<Name>(
        name read: (inout JSONParser) throws(JSONParseError) -> Name,
        _ body: (inout JSONParser, Name) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        i += 1
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return
        }
        while true {
            let name = try memberName(read)
            try body(&self, name)
            if try objectEnds() { return }
        }
    }

    /// A member's value at depth 1: an object's members with scalars built (nil for another
    /// value, which is only checked).
    private mutating func shallowObject() throws(JSONParseError) -> [ShallowMember]? {
        guard i < b.count, b[i] == UInt8(ascii: "{") else {
            try skipValue(depth: 1)
            return nil
        }
        var out: [ShallowMember] = []
        out.reserveCapacity(4)
        try eachMember { p, name throws(JSONParseError) in
            let open = p.i < p.b.count ? p.b[p.i] : 0
            if open == UInt8(ascii: "{") || open == UInt8(ascii: "[") {
                try p.skipValue(depth: 2)
                out.append(ShallowMember(key: name, scalar: nil))
            } else {
                out.append(ShallowMember(key: name, scalar: try p.value(depth: 2)))
            }
        }
        return out
    }

    /// Checks one value as `value(depth:)` does, without building it.
    mutating func skipValue(depth: Int) throws(JSONParseError) {
        guard i < b.count else { throw fail() }
        let open = b[i]
        guard open == UInt8(ascii: "{") || open == UInt8(ascii: "[") else {
            switch open {
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
            // A literal matched, not made into a value to drop (a stored group's absent columns).
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            default: throw fail()
            }
            return
        }
        if depth + 1 > Self.maxDepth { throw JSONParseError(kind: .tooDeep, position: i) }
        let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        i += 1
        skipSpace()
        if i < b.count, b[i] == close {
            i += 1
            return
        }
        while true {
            skipSpace()
            if open == UInt8(ascii: "{") {
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail() }
                try skipString()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail() }
                i += 1
                skipSpace()
            }
            try skipValue(depth: depth + 1)
            skipSpace()
            guard i < b.count else { throw fail() }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if b[i] == close {
                i += 1
                return
            }
            throw fail()
        }
    }

    /// A string without escapes or non-ASCII bytes is checked in place; others are decoded.
    private mutating func skipString() throws(JSONParseError) {
        if plainString() == nil { _ = try string() }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> [JSONValue] {
        if depth > Self.maxDepth { throw JSONParseError(kind: .tooDeep, position: i) }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            return items
        }
        items.reserveCapacity(4) // rather than growing from one element, then two
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            guard i < b.count else { throw fail() }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if b[i] == UInt8(ascii: "]") {
                i += 1
                return items
            }
            throw fail()
        }
    }

    private mutating func number() throws(JSONParseError) -> JSONNumber {
        let start = i
        try scanNumber()
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        return JSONNumber(text: text, double: Double(text) ?? .nan)
    }

    /// Passes the number at `i`, checking its grammar (skipping one builds no text or Double).
    private mutating func scanNumber() throws(JSONParseError) {
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { throw fail() }
        if b[i] == UInt8(ascii: "0") { i += 1 } else if isDigit(b[i]) { digits() } else { throw fail() }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < b.count, isDigit(b[i]) else { throw fail() }
            digits()
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, isDigit(b[i]) else { throw fail() }
            digits()
        }
    }

    func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    private mutating func digits() { while i < b.count, isDigit(b[i]) { i += 1 } }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes; ASCII needs no UTF-8 validation. Plain ASCII is passed sixteen
        // bytes at a time (`plainASCIIEnd`: tokens are long); from the first other byte, one at
        // a time. Locals keep the scan in registers.
        var ascii = true
        var j = plainASCIIEnd(from: i)
        let buf = b
        while j < buf.count {
            let c = buf[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            ascii = ascii && c < 0x80
            j += 1
        }
        i = j
        guard i < b.count else { throw fail() }
        if b[i] == UInt8(ascii: "\"") {
            let slice = UnsafeBufferPointer(rebasing: b[start..<i])
            let s = ascii ? String(ascii: slice) : try validated(slice, at: start)
            i += 1
            return s
        }
        var bytes = Array(UnsafeBufferPointer(rebasing: b[start..<i]))
        while true {
            guard i < b.count else { throw fail() }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                break
            }
            if c < 0x20 { throw fail() }
            if c != UInt8(ascii: "\\") {
                bytes.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < b.count else { throw fail() }
            switch b[i] {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                let escape = i - 1
                let lone = JSONParseError(kind: .loneSurrogate, position: escape)
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 < b.count, b[i + 1] == UInt8(ascii: "\\"), b[i + 2] == UInt8(ascii: "u") else { throw lone }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw lone }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw lone
                }
                bytes.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default: throw fail()
            }
            i += 1
        }
        return try bytes.withUnsafeBufferPointer { (u) throws(JSONParseError) -> String in try validated(u, at: start) }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            i += 1
            guard i < b.count else { throw fail() }
            let c = b[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail()
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    private func validated(_ u: UnsafeBufferPointer<UInt8>, at position: Int) throws(JSONParseError) -> String {
        guard let s = String(validating: u, as: UTF8.self) else {
            throw JSONParseError(kind: .invalidUTF8, position: position)
        }
        return s
    }
}
