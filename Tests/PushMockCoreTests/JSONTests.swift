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

    @Test("reports the character and byte position of a syntax error")
    func reportsPositions() {
        #expect(throws: JSONParseError(kind: .unexpectedCharacter(UInt8(ascii: "}")), position: 8)) {
            try JSONParser.parse(#"{"a": 1,}"#)
        }
        #expect(throws: JSONParseError(kind: .unexpectedEnd, position: 5)) { try JSONParser.parse(#"{"a":"#) }
        #expect(throws: JSONParseError(kind: .unexpectedCharacter(UInt8(ascii: "x")), position: 4)) { try JSONParser.parse("[1, x]") }
    }

    @Test("rejects trailing garbage, lone surrogates, control characters, bad numbers")
    func rejectsInvalidJSON() {
        for bad in ["{} {}", #""\udc00""#, "\"a\u{01}\"", "01", "1.", "-", "1e", "[1,]", "{\"a\" 1}", "tru", "nul"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONParser.parse(bad) }
        }
    }

    @Test("rejects invalid UTF-8 and nesting deeper than the limit")
    func rejectsHostileInput() {
        #expect(throws: JSONParseError(kind: .invalidUTF8, position: 1)) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect((try? JSONParser.parse(ok)) != nil)
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
}
