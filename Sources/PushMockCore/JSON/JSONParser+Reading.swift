import CByteScan
import Foundation

/// Reading a document a value at a time, without building it: the durable store reads back
/// millions of events at start this way, where a tree per commit would cost more than the
/// events themselves. The same rules as `parse` (a malformed document throws the same errors);
/// only what the reader asks for is built.
extension JSONParser {
    /// Runs `body` with a reader at the start of `bytes`; whatever follows the value `body`
    /// consumed, but space, is an error.
    public static func reading<T>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONParser) throws(JSONParseError) -> T
    ) throws(JSONParseError) -> T {
        var p = JSONParser(bytes)
        p.skipSpace()
        let result = try body(&p)
        p.skipSpace()
        if p.i < bytes.count { throw p.fail() }
        return result
    }

    /// Whether the first byte after white space opens an object.
    var startsObject: Bool {
        var p = self
        p.skipSpace()
        return p.i < p.b.count && p.b[p.i] == UInt8(ascii: "{")
    }

    /// Whether the next value is an array (`eachElement` walks it; otherwise `skip` it).
    public mutating func atArray() -> Bool {
        skipSpace()
        return i < b.count && b[i] == UInt8(ascii: "[")
    }

    /// Walks the array at the reader, handing each element's index to `body`, which must
    /// consume exactly one value (read it or `skip` it).
    public mutating func eachElement(_ body: (inout JSONParser, Int) throws(JSONParseError) -> Void) throws(JSONParseError) {
        guard atArray() else { throw fail() }
        i += 1
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            return
        }
        var index = 0
        while true {
            skipSpace()
            try body(&self, index)
            index += 1
            skipSpace()
            guard i < b.count else { throw fail() }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard b[i] == UInt8(ascii: "]") else { throw fail() }
            i += 1
            return
        }
    }

    /// Walks the object at the reader, handing each member's name to `body`, which must consume
    /// its value (read it or `skip` it).
    public mutating func readMembers(_ body: (inout JSONParser, String) throws(JSONParseError) -> Void) throws(JSONParseError) {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { throw fail() }
        try eachMember(body)
    }

    /// A member's value as `readMemberLengths` hands it over: a string's length in UTF-8 once
    /// decoded, or any other value, built.
    public enum MemberLength {
        case string(utf8Count: Int)
        case other(JSONValue)
    }

    /// Walks the object at the reader without building it, handing `body` each member's name
    /// (its UTF-8, decoded) and its value as a `MemberLength`. A name or a string value is
    /// decoded only when it has escapes or bytes that are not ASCII; plain ones are measured
    /// where they lie. The same rules and errors as `readValue` reading the object.
    public mutating func readMemberLengths(
        _ body: (UnsafeBufferPointer<UInt8>, MemberLength) -> Void
    ) throws(JSONParseError) {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { throw fail() }
        try eachMember(
            name: { p throws(JSONParseError) in try p.nameText() },
            { p, name throws(JSONParseError) in
                let length: MemberLength
                if p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") {
                    if let plain = p.plainString() {
                        length = .string(utf8Count: plain.count)
                    } else {
                        length = .string(utf8Count: try p.string().utf8.count)
                    }
                } else {
                    // The object's members are at depth 2, as `readValue` builds them.
                    length = .other(try p.value(depth: 2))
                }
                switch name {
                case .plain(let bytes): body(bytes, length)
                case .decoded(let text): text.withBytes { body($0, length) }
                }
            })
    }

    /// A member's name: its bytes where they lie, or decoded when it has escapes or bytes
    /// that are not ASCII.
    private enum NameText {
        case plain(UnsafeBufferPointer<UInt8>)
        case decoded(String)
    }

    private mutating func nameText() throws(JSONParseError) -> NameText {
        if let bytes = plainString() { return .plain(bytes) }
        return .decoded(try string())
    }

    /// The next value if it is a string; nil, with the value checked and passed, otherwise.
    public mutating func readString() throws(JSONParseError) -> String? {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "\"") else {
            try skip()
            return nil
        }
        return try string()
    }

    /// As `readString`, but `candidate` itself when the string is the same (no escapes, the
    /// same bytes): a column that repeats from row to row is then held once, not once a row.
    public mutating func readString(reusing candidate: String?) throws(JSONParseError) -> String? {
        skipSpace()
        if var candidate, i < b.count, b[i] == UInt8(ascii: "\"") {
            // The same bytes then a quote, and none of them one that ends a string early or
            // starts an escape (compared first: most strings that differ do so at once).
            let n = candidate.utf8.count
            let end = i + 1 + n
            if end < b.count, b[end] == UInt8(ascii: "\""),
                candidate.withUTF8({ n == 0 || sameBytes($0.baseAddress!, b.baseAddress! + i + 1, count: n) }),
                plainEnd(from: i + 1) == end
            {
                i = end + 1
                return candidate
            }
        }
        return try readString()
    }

    /// Where the bytes from `start` first hold a quote, a backslash or a control character: a
    /// string without escapes ends there, at its closing quote.
    private func plainEnd(from start: Int) -> Int { end(from: start, stoppingAtNonASCII: false) }

    /// Where the bytes from `start` first hold one that is not ASCII, or a quote, a backslash
    /// or a control character: a member name that needs no decoding ends there, at its
    /// closing quote.
    func plainASCIIEnd(from start: Int) -> Int { end(from: start, stoppingAtNonASCII: true) }

    /// The first byte from `start` that needs a look, sixteen at a time (`pushmock_plain_end`).
    @inline(__always)
    private func end(from start: Int, stoppingAtNonASCII: Bool) -> Int {
        guard let base = b.baseAddress, start < b.count else { return start }
        return pushmock_plain_end(base, start, b.count, stoppingAtNonASCII ? 1 : 0)
    }

    /// The next value if it is an integer that fits 64 bits (no fraction or exponent, as
    /// `Int64(text)` reads a number); nil, with the value checked and passed, otherwise.
    public mutating func readInteger() throws(JSONParseError) -> Int64? {
        skipSpace()
        // Not a number (a null column, most often): checked and passed, not built.
        guard i < b.count, b[i] == UInt8(ascii: "-") || isDigit(b[i]) else {
            try skip()
            return nil
        }
        let start = i
        var negative = false
        var j = i
        if j < b.count, b[j] == UInt8(ascii: "-") {
            negative = true
            j += 1
        }
        var magnitude: UInt64 = 0
        let digitsStart = j
        // 19 digits fit in UInt64 (stored ids and times have 16 to 19): read up to eight at a
        // time while whole words remain, then one at a time.
        if let base = b.baseAddress {
            while j + 8 <= b.count {
                let w = ByteWord.load(base + j)
                let m = ByteWord.nonDigitMask(w)
                let n = m == 0 ? 8 : ByteWord.first(m)
                guard n > 0, j - digitsStart + n <= 19 else { break }
                // The n digits moved to the top of the word, zeros ("0") below them.
                let digits = n == 8 ? w : w << (64 - 8 * n) | 0x3030_3030_3030_3030 >> (8 * n)
                magnitude = magnitude &* DecimalDigits.power(n) &+ ByteWord.eightDigits(digits)
                j += n
                if n < 8 { break }
            }
        }
        while j < b.count, isDigit(b[j]), j - digitsStart < 19 {
            magnitude = magnitude * 10 + UInt64(b[j] - 0x30)
            j += 1
        }
        // Anything longer or unusual (a fraction, an exponent, 20 digits and more, a leading
        // zero, a magnitude past Int64's) is read the slow way.
        let ends =
            j == b.count
            || !(isDigit(b[j]) || b[j] == UInt8(ascii: ".") || b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E"))
        let leadingZero = j - digitsStart > 1 && b[digitsStart] == UInt8(ascii: "0")
        let fits = magnitude <= UInt64(Int64.max) + (negative ? 1 : 0)
        if j > digitsStart, ends, !leadingZero, fits {
            i = j
            return negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
        }
        i = start
        return try readValue().numberValue.flatMap { Int64($0.text) }
    }

    /// The next value, built.
    public mutating func readValue() throws(JSONParseError) -> JSONValue {
        skipSpace()
        return try value(depth: 1)
    }

    /// Checks the next value and passes it.
    public mutating func skip() throws(JSONParseError) {
        skipSpace()
        try skipValue(depth: 1)
    }
}
