import Foundation
import Testing

@testable import PushMockCore

@Suite("JSON parser and writer")
struct JSONTests {
    @Test("parses objects in order, keeps number text, decodes escapes and surrogates")
    func parsesDocuments() throws {
        let v = try JSONParser.parse(#"{"b":1,"a":[true,false,null],"n":7497838685051704056,"s":"\u00e9\ud83d\ude00\n"}"#)
        let o = try #require(v.objectValue)
        #expect(o.keys == ["b", "a", "n", "s"])
        #expect(o["n"]?.numberValue?.text == "7497838685051704056")
        #expect(o["n"]?.numberValue?.int == 7_497_838_685_051_704_056)
        #expect(o["s"]?.stringValue == "é😀\n")
        #expect(o["a"] == .array([.bool(true), .bool(false), .null]))
    }

    @Test("a member is the last of its name; a name canonically equal to it but of another length in bytes is not it")
    func membersByName() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K" (Swift's == says so), but it is
        // three bytes: Google's front end reads "\u212Aey" as a name of its own.
        let o = try #require(try JSONParser.parse(#"{"Key":1,"data":2,"apns":3,"\u212Aey":4,"data":5}"#).objectValue)
        #expect(o["Key"]?.numberValue?.int == 1)
        #expect(o["\u{212A}ey"]?.numberValue?.int == 4)
        #expect(o["data"]?.numberValue?.int == 5)
        #expect(o["apns"]?.numberValue?.int == 3)
        #expect(o["webpush"] == nil && o[""] == nil)
        #expect("\u{212A}ey" == "Key")
    }

    @Test("a lone surrogate escape is named as such, at the escape, and FCM's text says so")
    func loneSurrogates() throws {
        for (text, at) in [(#"["\ud800"]"#, 2), (#"["ab\udc00"]"#, 4), (#"{"k":"\ud800\u0041"}"#, 6), (#"["\uD83D\uD83D"]"#, 2)] {
            #expect(throws: JSONParseError(kind: .loneSurrogate, position: at), "\(text)") { try JSONParser.parse(text) }
        }
        let h = try Harness()
        let r = h.send(#"{"to":"x","data":{"k":"\ud800"}}"#)
        #expect(
            r.status == 400 && r.bodyText == "JSON_PARSING_ERROR: Unpaired surrogate in a \\u escape at position 23.\n",
            "\(r.bodyText)")
    }

    @Test(
        "long strings are scanned sixteen bytes at a time: a quote, backslash, control byte or non-ASCII byte is found at any offset, in documents shorter than sixteen bytes, a multiple of sixteen, or between"
    )
    func longStrings() throws {
        for length in [3, 13, 14, 15, 29, 30, 31, 32, 45, 62] {
            try longString(String(String(repeating: "abcdefgh", count: 8).prefix(length)))
        }
    }

    private func longString(_ plain: String) throws {
        for offset in 0..<plain.utf8.count {
            func at(_ insert: String) -> String {
                var s = plain
                s.insert(contentsOf: insert, at: s.index(s.startIndex, offsetBy: offset))
                return s
            }
            #expect(try JSONParser.parse("\"\(at("\\\""))\"").stringValue == at("\""))
            #expect(try JSONParser.parse("\"\(at("\\n"))\"").stringValue == at("\n"))
            #expect(try JSONParser.parse("\"\(at("é"))\"").stringValue == at("é"))
            #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\(at("\u{1F}"))\"") }
            var bytes = Array("\"\(plain)\"".utf8)
            bytes[1 + offset] = 0xFF
            #expect(throws: JSONParseError(kind: .invalidUTF8, position: 1)) { try JSONParser.parse(bytes) }
            #expect(throws: JSONParseError.self) { try JSONParser.parse("\"" + String(plain.prefix(offset))) }
        }
    }

    @Test("an object member's members are read as the whole parse would read them, and only from valid JSON")
    func members() throws {
        let docs = [
            #"{"aps":{"alert":"hi","badge":1},"k":"v"}"#, #"{"k":[1,{"a":"\u00e9"}],"aps":{"sound":"x","alert":{"t":[1]}}}"#,
            #"{"aps":1,"aps":{"x":true,"content-available":1}}"#, #"{"other":{"deep":[[[]]]}}"#, "{}", " { \"aps\" : {} } ",
            #"{"aps":{"a":null,"b":-1.5e3,"c":"\n"}}"#, #"{"aps":{}, "aps":"x"}"#,
            // Names matched on their bytes: escaped, of other lengths, other bytes, not ASCII.
            #"{"\u0061ps":{"alert":"x"},"apt":{"b":1},"ap":{},"apss":{},"Aps":{}}"#,
            #"{"aps":{"alert":"x"},"\u00e9":{"c":2},"a\"s":{},"é":{}}"#, #"{"ap\u0073":{"sound":"s"}}"#,
        ]
        for doc in docs {
            let whole = (try JSONParser.parse(doc)).objectValue?["aps"]?.objectValue
            let expected = whole?.entries.map { entry -> (String, JSONValue?) in
                switch entry.value {
                case .object, .array: (entry.key, nil)
                default: (entry.key, entry.value)
                }
            }
            let read = JSONParser.members(of: "aps", in: Array(doc.utf8))
            #expect(read?.map(\.key) == expected?.map(\.0), "\(doc)")
            #expect(read?.map(\.scalar) == expected?.map(\.1), "\(doc)")
        }
        for bad in [
            #"{"aps":{"alert":"hi"},"k":}"#, #"{"aps":{}} x"#, "[1]", #"{"k":"\u{01}","aps":{}}"#, #"{"k":[1,],"aps":{}}"#,
            #"{"aps":{"alert":{"t":[1,]}}}"#,
        ] {
            #expect(JSONParser.members(of: "aps", in: Array(bad.utf8)) == nil, "\(bad)")
        }
        let deep = "{\"k\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + ",\"aps\":{}}"
        #expect(JSONParser.members(of: "aps", in: Array(deep.utf8)) == nil)
    }

    @Test("reports the character and byte position of a syntax error")
    func reportsPositions() throws {
        #expect(throws: JSONParseError(kind: .unexpectedCharacter(UInt8(ascii: "}")), position: 8)) {
            try JSONParser.parse(#"{"a": 1,}"#)
        }
        #expect(throws: JSONParseError(kind: .unexpectedEnd, position: 5)) { try JSONParser.parse(#"{"a":"#) }
        #expect(throws: JSONParseError(kind: .unexpectedCharacter(UInt8(ascii: "x")), position: 4)) {
            try JSONParser.parse("[1, x]")
        }
    }

    @Test("rejects trailing garbage, lone surrogates, control characters, bad numbers")
    func rejectsInvalidJSON() throws {
        for bad in ["{} {}", #""\udc00""#, "\"a\u{01}\"", "01", "1.", "-", "1e", "[1,]", "{\"a\" 1}", "tru", "nul"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONParser.parse(bad) }
        }
    }

    @Test("rejects invalid UTF-8 and nesting deeper than the limit")
    func rejectsHostileInput() throws {
        #expect(throws: JSONParseError(kind: .invalidUTF8, position: 1)) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect((try? JSONParser.parse(ok)) != nil)
    }

    @Test("the writer escapes a quote, backslash or control character at any offset of a long string")
    func writerEscapesLongStrings() throws {
        let plain = String(repeating: "abcdéfgh", count: 4)
        for offset in 0...plain.count {
            for special in ["\"", "\\", "\n", "\u{1F}", "\u{7F}"] {
                var s = plain
                s.insert(contentsOf: special, at: s.index(s.startIndex, offsetBy: offset))
                let quoted = JSONWriter.quoted(s)
                #expect(try JSONParser.parse(quoted).stringValue == s, "\(quoted)")
            }
        }
    }

    @Test(
        "a writer's strings, copied eight bytes at a time as they are checked, come out as the escaping writer spells them, at every length and every place of an escape"
    )
    func writerCopiesWordsAndEscapes() throws {
        let specials = ["", "\"", "\\", "\n", "\u{1F}", "\u{7F}", "é"]
        for length in 0...40 {
            let plain = String((0..<length).map { i in Character(UnicodeScalar(UInt8(0x61 + i % 26))) })
            for special in specials {
                for offset in special.isEmpty ? [0] : Array(0...length) {
                    var s = plain
                    s.insert(contentsOf: special, at: s.index(s.startIndex, offsetBy: offset))
                    var w = JSONWriter(capacity: 16)
                    w.beginArray()
                    w.string(s)
                    w.string(joining: "-", s, "/", s)
                    w.endArray()
                    let expected = "[" + JSONWriter.quoted(s) + "," + JSONWriter.quoted("-" + s + "/" + s) + "]"
                    #expect(w.text == expected, "\(expected)")
                    #expect(w.byteCount == expected.utf8.count)
                }
            }
        }
    }

    @Test("integers are written as Swift spells them, from one digit to Int64's ends")
    func writerIntegers() {
        var values: [Int64] = [.min, .min + 1, .max, -10, -9, -1, 0]
        var power: Int64 = 1
        for _ in 0..<18 {
            values += [power - 1, power, power + 1, power * 9]
            power *= 10
        }
        for n in values {
            var w = JSONWriter()
            w.int64(n)
            #expect(w.text == String(n))
        }
    }

    @Test("writer output round-trips through Foundation, with escapes and nesting")
    func writerRoundTrips() throws {
        var w = JSONWriter()
        w.beginObject()
        w.member("q", "a\"b\\c\n\u{01}é")
        w.key("list")
        w.beginArray()
        w.int(1)
        w.beginObject()
        w.member("x", true)
        w.endObject()
        w.null()
        w.endArray()
        w.member("n", 2)
        w.endObject()
        let parsed = try #require(json(w.text) as? [String: Any])
        #expect(parsed["q"] as? String == "a\"b\\c\n\u{01}é")
        #expect((parsed["list"] as? [Any])?.count == 3)
        #expect(parsed["n"] as? Int == 2)
        #expect(w.text.hasPrefix(#"{"q":"a\"b\\c\n\u0001é","list":[1,{"x":true},null],"n":2}"#))
    }

    @Test("a member name known only when running is escaped; one written in the source is copied, growing the writer")
    func writerNames() throws {
        // A variable: `JSONKey("...")` of a literal is the literal's own (not escaped) form.
        let name = ["a\"b", "c\n\u{01}é"].joined(separator: "\\")
        var w = JSONWriter(capacity: 1)
        w.beginObject()
        w.member(JSONKey(name), 1)
        w.member("a_name_written_in_the_source_longer_than_the_writer", 2)
        w.key(JSONKey("plain"))
        w.string("v")
        w.endObject()
        #expect(w.text == #"{"a\"b\\c\n\u0001é":1,"a_name_written_in_the_source_longer_than_the_writer":2,"plain":"v"}"#)
        let parsed = try #require(json(w.text) as? [String: Any])
        #expect(parsed[name] as? Int == 1)
    }

    @Test("a writer of 16 bytes grows through long and escaped strings, numbers and another writer's JSON, and keeps every byte")
    func writerGrows() throws {
        var inner = JSONWriter(capacity: 16)
        inner.beginArray()
        for i in 0..<300 { inner.int(i * 1_000_003) }
        inner.endArray()
        var w = JSONWriter(capacity: 16)
        w.beginObject()
        let long = String(repeating: "x\"y\u{2}", count: 2_000)
        w.member("long", long)
        w.key("joined")
        w.string(joining: "a-", String(repeating: "b", count: 5_000), "c", "\"d\"\n")
        w.key("inner")
        w.raw(inner)
        w.member("last", -42)
        w.endObject()
        #expect(w.byteCount == w.bytes.count && w.bytes.count > 20_000)
        let parsed = try #require(json(w.text) as? [String: Any])
        #expect(parsed["long"] as? String == long)
        #expect(parsed["joined"] as? String == "a-" + String(repeating: "b", count: 5_000) + "c\"d\"\n")
        #expect((parsed["inner"] as? [Int]) == (0..<300).map { $0 * 1_000_003 })
        #expect(parsed["last"] as? Int == -42)
    }
}
