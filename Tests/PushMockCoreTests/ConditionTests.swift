import Testing

@testable import PushMockCore

@Suite("Topic conditions")
struct ConditionTests {
    func eval(_ text: String, _ topics: Set<String>) throws -> Bool {
        try Condition.parse(text).matches { topics.contains($0) }
    }

    @Test("&& binds tighter than ||, parentheses group, ! negates")
    func precedence() throws {
        let c = "'a' in topics || 'b' in topics && 'c' in topics"
        #expect(try eval(c, ["a"]))
        #expect(try !eval(c, ["b"]))
        #expect(try eval(c, ["b", "c"]))
        #expect(try !eval("('a' in topics || 'b' in topics) && 'c' in topics", ["a"]))
        #expect(try eval("!('TopicA' in topics)", []))
        #expect(try !eval("!('TopicA' in topics)", ["TopicA"]))
        #expect(try eval(#""a" in topics&&!("b" in topics)"#, ["a"]))
    }

    @Test("the documented example from the FCM docs parses")
    func docExample() throws {
        let c = try Condition.parse("'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)")
        #expect(c.topics == ["TopicA", "TopicB", "TopicC"])
    }

    @Test("more than five topics is an error naming the count")
    func topicLimit() throws {
        let six = (1...6).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect(throws: Condition.ParseError(message: "condition has 6 topics; at most 5 are allowed")) {
            try Condition.parse(six)
        }
        let five = (1...5).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect((try? Condition.parse(five)) != nil)
    }

    @Test(
        "malformed conditions are rejected",
        arguments: [
            "", "'a' in topics &&", "('a' in topics", "'a' in topic", "a in topics", "'a b' in topics",
            "'a' in topics 'b' in topics", "'a' in topics | 'b' in topics", "!",
        ])
    func malformed(_ text: String) {
        #expect(throws: Condition.ParseError.self) { try Condition.parse(text) }
    }
}
