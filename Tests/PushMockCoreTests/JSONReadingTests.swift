import Testing

@testable import PushMockCore

/// The pull reading the store uses at start (`JSONParser.reading`): the values asked for,
/// read as `parse` reads them, the rest checked and passed.
@Suite("JSON read a value at a time")
struct JSONReadingTests {
    /// Reads `text` as an array, each element with `read`.
    private func elements<T>(_ text: String, _ read: (inout JSONParser) throws(JSONParseError) -> T) throws -> [T] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            try JSONParser.reading(b) { (p) throws(JSONParseError) in
                var out: [T] = []
                try p.eachElement { p, _ throws(JSONParseError) in out.append(try read(&p)) }
                return out
            }
        }
    }

    @Test("integers: as Int64(text) reads a number's text, other values nil and passed")
    func integers() throws {
        let read = try elements(
            #"[0, -0, 17, -42, 123456789012345678, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.5, 1e3, "7", null, [1], {"a":1}, 1796275192116363000, 9999999999999999999, -9223372036854775809, 12345678901234567890]"#
        ) { (p) throws(JSONParseError) in try p.readInteger() }
        #expect(
            read == [
                0, 0, 17, -42, 123_456_789_012_345_678, .max, .min, nil, nil, nil, nil, nil, nil, nil,
                1_796_275_192_116_363_000, nil, nil, nil,
            ])
        // What `parse` refuses, reading refuses too.
        for bad in ["[01]", "[-]", "[1.]", "[1", "[1,]", "[nul]", "[nulll]", "[null1]", "[nullx]", "[NULL]", "[n"] {
            #expect(throws: JSONParseError.self, "\(bad)") {
                try elements(bad) { (p) throws(JSONParseError) in try p.readInteger() }
            }
            #expect(throws: JSONParseError.self, "\(bad)") {
                try elements(bad) { (p) throws(JSONParseError) in try p.readString() }
            }
        }
        #expect(try elements("[null,null ,\nnull]") { (p) throws(JSONParseError) in try p.readInteger() } == [nil, nil, nil])
    }

    @Test("integers of every length, at every place in a word, read eight digits at a time as Int64(text) reads them")
    func integersByWords() throws {
        let random = RandomSource(seed: 37)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 24) + 1
            var digits = (0..<length).map { _ in String(random.next() % 10) }.joined()
            if digits.count > 1, digits.first == "0" { digits = "1" + digits.dropFirst() }
            let text = (random.next() % 3 == 0 ? "-" : "") + digits
            let space = String(repeating: " ", count: Int(random.next() % 9))
            let after = ["", ",7", ", 8", ",\"x\""][Int(random.next() % 4)]
            let read = try elements("[" + space + text + after + "]") { (p) throws(JSONParseError) in try p.readInteger() }
            #expect(read.first == Int64(text), "\(text)")
        }
    }

    @Test("strings: escapes decoded, other values nil; a repeated string is the candidate itself")
    func strings() throws {
        let read = try elements(#"["a\"b", "é", 5, null, "x", null,null]"#) { (p) throws(JSONParseError) in try p.readString() }
        #expect(read == ["a\"b", "é", nil, nil, "x", nil, nil])
        let candidate = "message-0:1764000000000000%abcdef0123456789"
        let reused = try elements(
            #"["message-0:1764000000000000%abcdef0123456789", "message-0:1764000000000000%abcdef012345678", "a\"b", "q\nr"]"#
        ) { (p) throws(JSONParseError) in try p.readString(reusing: candidate) }
        #expect(reused == [candidate, "message-0:1764000000000000%abcdef012345678", "a\"b", "q\nr"])
        // The same bytes but written with an escape: decoded, not taken for the candidate.
        let escaped = try elements(#"["q\nr", "q\u000ar"]"#) { (p) throws(JSONParseError) in
            try p.readString(reusing: "q\nr")
        }
        #expect(escaped == ["q\nr", "q\nr"])
    }

    @Test("nested arrays walked element by element; whatever follows the value is an error")
    func nesting() throws {
        let read = try elements(#"[[1, "a"], [], [2]]"#) { (p) throws(JSONParseError) -> [String] in
            var seen: [String] = []
            try p.eachElement { p, i throws(JSONParseError) in
                seen.append(i == 0 ? "\(try p.readInteger() ?? -1)" : try p.readString() ?? "?")
            }
            return seen
        }
        #expect(read == [["1", "a"], [], ["2"]])
        #expect(throws: JSONParseError.self) { try elements("[1] x") { (p) throws(JSONParseError) in try p.readInteger() } }
        #expect(throws: JSONParseError.self) { try elements(#"{"a":1}"#) { (p) throws(JSONParseError) in try p.readInteger() } }
    }

    @Test("an object's members walked one at a time, repeats and all; a registration's members read from them as from the tree")
    func members() throws {
        let text = #"{"platform":"ios","online":false,"topics":["a"],"platform":"android","app":"com.x.y","online":null}"#
        let bytes = Array(text.utf8)
        var names: [String] = []
        var topics: [JSONValue] = []
        let members = try bytes.withUnsafeBufferPointer { b in
            try JSONParser.reading(b) { (p) throws(JSONParseError) in
                try DeviceMembers(reading: &p) { (name, p) throws(JSONParseError) in
                    names.append(name)
                    guard name == "topics" else { return false }
                    topics = try p.readValue().arrayValue ?? []
                    return true
                }
            }
        }
        #expect(names == ["topics"])
        #expect(topics == [.string("a")])
        // The last of a repeated name counts; a null is as absent.
        let tree = DeviceMembers(try #require(JSONParser.parse(text).objectValue))
        for m in [members, tree] {
            #expect(m[.platform] == .string("android"))
            #expect(m[.online] == nil)
        }
        #expect(members.firstUnknown == nil && tree.firstUnknown == "topics")
        var taken = members
        let spec = try DeviceFields.spec(taking: &taken)
        #expect(spec.platform == .android && spec.app == "com.x.y" && spec.state.online)
        #expect(taken[.platform] == nil && taken[.app] == nil)
        #expect(throws: JSONParseError.self) {
            try Array("[1]".utf8).withUnsafeBufferPointer { b in
                try JSONParser.reading(b) { (p) throws(JSONParseError) in try DeviceMembers(reading: &p) { _, _ in false } }
            }
        }
    }

    @Test("a word's masks flag every byte that needs a look (or is no digit), and the first one flagged always does")
    func byteWordMasks() {
        // Bytes that need a look and their neighbours, which a borrow could flag falsely.
        // The digits' too (0x2F to 0x3A), and the bytes that carry when 6 is added (0xFA on).
        let bytes: [UInt8] = [
            0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2F, 0x30, 0x35, 0x39, 0x3A, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x61, 0x7F,
            0x80, 0xB0, 0xF9, 0xFA, 0xFF,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            var word = [UInt8](repeating: 0, count: 8)
            for k in 0..<8 { word[k] = bytes.randomElement(using: &generator)! }
            let w = word.withUnsafeBufferPointer { ByteWord.load($0.baseAddress!) }
            let escape = word.firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
            let plainASCII = word.firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }
            let m = ByteWord.escapeMask(w)
            #expect((m == 0 ? nil : ByteWord.first(m)) == escape)
            let n = m | ByteWord.nonASCIIMask(w)
            #expect((n == 0 ? nil : ByteWord.first(n)) == plainASCII)
            let digits = ByteWord.nonDigitMask(w)
            #expect((digits == 0 ? nil : ByteWord.first(digits)) == word.firstIndex { $0 < 0x30 || $0 > 0x39 })
        }
        for _ in 0..<10_000 {
            let text = String(UInt64.random(in: 0..<100_000_000, using: &generator)).leftPadded(to: 8)
            let w = Array(text.utf8).withUnsafeBufferPointer { ByteWord.load($0.baseAddress!) }
            #expect(ByteWord.nonDigitMask(w) == 0 && ByteWord.eightDigits(w) == UInt64(text))
        }
    }

    @Test("names compared without regard to ASCII case, eight bytes at a time, as byte by byte")
    func caseInsensitiveBytes() {
        // The letters' edges and their capitals, the bytes 0x20 apart from them that are no
        // letters, and bytes from 0x80 whose low seven bits are letters.
        let bytes: [UInt8] = [
            0x2D, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x6D, 0x7A, 0x7B, 0x0D, 0x4D, 0xC1, 0xE1, 0xFA, 0xFB,
        ]
        func lowered(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let n = Int.random(in: 0...20, using: &generator)
            let lower = (0..<n).map { _ in lowered(bytes.randomElement(using: &generator)!) }
            // Each byte of the other side is the same byte, its capital, or another byte.
            let other = lower.map { c -> UInt8 in
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: bytes.randomElement(using: &generator)!
                case 1, 2: c >= 0x61 && c <= 0x7A ? c & ~0x20 : c
                default: c
                }
            }
            let expected = other.map(lowered) == lower
            let found = other.withUnsafeBufferPointer { x in
                lower.withUnsafeBufferPointer { Request.equalsLowercased(x, lower: $0) }
            }
            #expect(found == expected, "\(other) against \(lower)")
        }
        #expect(Request.equalsLowercased("Content-TYPE", "content-type"))
        #expect(!Request.equalsLowercased("content-typf", "content-type"))
        #expect(!Request.equalsLowercased("content-type ", "content-type"))
    }

    @Test("byte runs of every length to 40, compared as words: the same run matches, one differing in any byte does not")
    func sameBytesEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for n in 0...40 {
            // Unaligned starts (the words are read one byte in), and a run that ends where
            // the buffer does, so no word reads past it.
            let a = [UInt8](repeating: 0, count: 1) + (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var b = a
            func same() -> Bool {
                a.withUnsafeBytes { x in b.withUnsafeBytes { y in sameBytes(x.baseAddress! + 1, y.baseAddress! + 1, count: n) } }
            }
            #expect(same(), "length \(n), equal")
            for k in 1..<(n + 1) {
                for flip: UInt8 in [0x01, 0x80, 0xFF] {
                    b[k] ^= flip
                    #expect(!same(), "length \(n), byte \(k - 1) differs by \(flip)")
                    b[k] ^= flip
                }
            }
        }
    }

    @Test("byte runs of every length to 40, copied as words: exactly the run, nothing before or after it")
    func copyBytesExactly() {
        var generator = SystemRandomNumberGenerator()
        for n in 0...40 {
            let source = (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Guard bytes on both sides of where the run goes, at an unaligned start.
            var target = [UInt8](repeating: 0xA5, count: n + 2 * 9)
            // (An empty array may have no address: then any address will do, as none is read.)
            source.withUnsafeBytes { from in
                target.withUnsafeMutableBytes { to in
                    copyBytes(from: from.baseAddress ?? UnsafeRawPointer(to.baseAddress!), to: to.baseAddress! + 9, count: n)
                }
            }
            #expect(Array(target[9..<9 + n]) == source, "length \(n)")
            #expect(target[..<9].allSatisfy { $0 == 0xA5 } && target[(9 + n)...].allSatisfy { $0 == 0xA5 }, "length \(n)")
        }
    }

    @Test("a String made of ASCII bytes in place is the String decoding them makes")
    func asciiStrings() {
        for n in [0, 1, 7, 15, 16, 40, 163] {
            let bytes = (0..<n).map { UInt8(0x21 + $0 % 90) }
            let made = bytes.withUnsafeBufferPointer { String(ascii: $0) }
            #expect(made == String(decoding: bytes, as: UTF8.self) && made.utf8.count == n)
        }
    }

    @Test("an enum's cases found by their spellings' bytes, as init(rawValue:) finds them")
    func spellings() {
        for state in AppState.allCases { #expect(AppState.spellings.find(state.rawValue) == state) }
        for p in Platform.allCases { #expect(Platform.spellings.find(p.rawValue) == p) }
        #expect(NotificationPermission.spellings.find("not_determined") == .notDetermined)
        // The same length, a prefix, another case's spelling, nothing, other letters' case.
        for text in ["backgrounx", "fore", "not_runnin", "", "Foreground", "ios "] {
            #expect(AppState.spellings.find(text) == nil)
            #expect(AppState.spellings.find(text) == AppState(rawValue: text))
        }
        #expect(PresentationOption.spellings.find("badge") == .badge && PresentationOption.spellings.find("badges") == nil)
    }

    @Test("a member name found among the names of its length as a byte-by-byte search finds it")
    func memberNamesAsSearched() {
        // Held names, held names with one byte changed anywhere, and others; of two letters,
        // so that many share a length.
        var generator = SystemRandomNumberGenerator()
        func word(_ n: Int) -> [UInt8] { (0..<n).map { _ in Bool.random(using: &generator) ? 0x61 : 0x62 } }
        for _ in 0..<200 {
            let held = (0..<12).map { _ in word(Int.random(in: 0...30, using: &generator)) }
            let names = MemberNames(held.map { String(decoding: $0, as: UTF8.self) })
            for _ in 0..<200 {
                var bytes = held.randomElement()!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: break
                case 1 where !bytes.isEmpty: bytes[Int.random(in: bytes.indices, using: &generator)] ^= 3 // one byte off
                default: bytes = word(Int.random(in: 0...32, using: &generator))
                }
                let found = bytes.withUnsafeBufferPointer { names.index(of: $0) }
                #expect(found == held.firstIndex(of: bytes), "\(bytes) in \(held)")
            }
        }
    }

    @Test("member names matched on their bytes: a name written with escapes matches as its text, others come as Strings")
    func memberNames() throws {
        let names = MemberNames(["id", "app", "platform", "ids"])
        let text = #"{"app":1,"\u0069d":2,"ids":3,"apps":4,"é":5,"":6,"platform":{"id":7}}"#
        var seen: [String] = []
        try Array(text.utf8).withUnsafeBufferPointer { b in
            try JSONParser.reading(b) { (p) throws(JSONParseError) in
                try p.readMembers(names) { p, name throws(JSONParseError) in
                    switch name {
                    case .known(let i): seen.append("#\(i)")
                    case .other(let s): seen.append(s)
                    }
                    try p.skip()
                }
            }
        }
        #expect(seen == ["#1", "#0", "#3", "apps", "é", "", "#2"])
        for bad in [#"{"id" 1}"#, #"{"id":1,}"#, #"{id:1}"#, "[1]", #"{"id":1"#] {
            #expect(throws: JSONParseError.self, "\(bad)") {
                try Array(bad.utf8).withUnsafeBufferPointer { b in
                    try JSONParser.reading(b) { (p) throws(JSONParseError) in
                        try p.readMembers(names) { p, _ throws(JSONParseError) in try p.skip() }
                    }
                }
            }
        }
    }
}

extension String {
    /// The text with zeros before it, `count` characters in all.
    fileprivate func leftPadded(to count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
